package main

import (
	"fmt"
	"io"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// validate prints the pipeline a config file gives, once run has loaded
// it (a bad file is an error there, naming line and key).
func validate(o options, file config.File, mode stages.Mode, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("validate takes no arguments; name the file with --config")
	}
	p, err := pipeline.New(file.Pipeline, stages.Deps{})
	if err != nil {
		return err
	}
	source := o.config
	if source == "" {
		source = "built-in defaults"
	}
	fmt.Fprintf(stdout, "config %s is valid\n", source)
	return p.Describe(!o.noLLM, mode).WriteText(stdout)
}
