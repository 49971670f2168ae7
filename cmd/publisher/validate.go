package main

import (
	"fmt"
	"io"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// validate checks the config file o names (or the built-in defaults) and
// prints the pipeline it gives; a bad file is an error naming line and key.
func validate(o options, args []string, stdout io.Writer) error {
	if len(args) > 0 {
		return usagef("validate takes no arguments; name the file with --config")
	}
	file, err := config.Load(o.config)
	if err != nil {
		return err
	}
	mode, err := file.Pipeline.OverrideMode(o.mode)
	if err != nil {
		return err
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
