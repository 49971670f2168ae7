// Package config loads the jetcompact config file and hands each section
// to the package that owns it.
package config

import (
	"fmt"
	"os"

	"github.com/jetcompact/jetcompact/docstore"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/llm"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/jetcompact/jetcompact/transcripts"
	"go.yaml.in/yaml/v3"
)

// File is a whole config file, merged over the defaults.
type File struct {
	Pipeline    pipeline.Config
	Fleet       jetstream.Config
	Telemetry   telemetry.Config
	LLM         llm.Config
	Transcripts transcripts.Config
	// Retention bounds the publisher's store of originals (see docstore).
	Retention docstore.Config
	// Sources are users' streams of raw events that workers compact in windows.
	Sources []jetstream.SourceConfig
	Source  string
}

// Default is the configuration code ships.
func Default() File {
	fleet := jetstream.DefaultConfig()
	fleet.Tasks = transcripts.JobNames()
	return File{Pipeline: pipeline.DefaultConfig(), Fleet: fleet, Telemetry: telemetry.DefaultConfig(), LLM: llm.DefaultConfig(), Transcripts: transcripts.DefaultConfig(), Retention: docstore.DefaultConfig()}
}

// Load reads path; "" means built-in defaults.
func Load(path string) (File, error) {
	if path == "" {
		return Default(), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("config: %w", err)
	}
	f, err := Parse(data)
	if err != nil {
		return File{}, fmt.Errorf("config %s: %w", path, err)
	}
	f.Source = path
	f.Pipeline.Source = path
	return f, nil
}

// Parse merges YAML over the defaults. Unknown top-level sections and
// unknown fields are errors that name the field. ${NAME} and
// ${NAME:-default} in values are taken from the environment.
func Parse(data []byte) (File, error) {
	var root struct {
		Pipeline    yaml.Node `yaml:"pipeline"`
		Fleet       yaml.Node `yaml:"fleet"`
		Telemetry   yaml.Node `yaml:"telemetry"`
		LLM         yaml.Node `yaml:"llm"`
		Transcripts yaml.Node `yaml:"transcripts"`
		Sources     yaml.Node `yaml:"sources"`
		Retention   yaml.Node `yaml:"retention"`
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return File{}, err
	}
	if err := expandEnv(&doc); err != nil {
		return File{}, err
	}
	if err := pipeline.DecodeStrict(&doc, &root, ""); err != nil {
		return File{}, err
	}
	f := Default()
	var err error
	if f.Pipeline, err = pipeline.ParseSection(&root.Pipeline); err != nil {
		return File{}, err
	}
	if err := decodeSection(&root.Fleet, &f.Fleet, "fleet"); err != nil {
		return File{}, err
	}
	if err := decodeSection(&root.Telemetry, &f.Telemetry, "telemetry"); err != nil {
		return File{}, err
	}
	if f.LLM, err = llm.DecodeConfig(&root.LLM); err != nil {
		return File{}, err
	}
	if err := decodeSection(&root.Transcripts, &f.Transcripts, "transcripts"); err != nil {
		return File{}, err
	}
	if err := decodeSection(&root.Retention, &f.Retention, "retention"); err != nil {
		return File{}, err
	}
	if err := pipeline.DecodeStrict(&root.Sources, &f.Sources, "sources"); err != nil {
		return File{}, err
	}
	if err := jetstream.ValidateSources(f.Sources); err != nil {
		return File{}, err
	}
	return f, nil
}

// decodeSection decodes one section strictly into out, then validates it.
func decodeSection(n *yaml.Node, out interface{ Validate() error }, name string) error {
	if err := pipeline.DecodeStrict(n, out, name); err != nil {
		return err
	}
	return out.Validate()
}
