package config

import (
	"reflect"
	"strings"
	"testing"
)

// TestShippedFileIsTheDefaults keeps configs/jetcompact.yaml, the documented
// default file, equal to the defaults in code, section by section.
func TestShippedFileIsTheDefaults(t *testing.T) {
	f, err := Load("../configs/jetcompact.yaml")
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	f.Source, f.Pipeline.Source = "", ""
	for name, pair := range map[string][2]any{
		"pipeline":    {f.Pipeline, d.Pipeline},
		"fleet":       {f.Fleet, d.Fleet},
		"telemetry":   {f.Telemetry, d.Telemetry},
		"llm":         {f.LLM, d.LLM},
		"transcripts": {f.Transcripts, d.Transcripts},
	} {
		if !reflect.DeepEqual(pair[0], pair[1]) {
			t.Errorf("%s section differs from the defaults:\nfile: %+v\ncode: %+v", name, pair[0], pair[1])
		}
	}
}

func TestUnknownFieldsAndBadValuesNameTheField(t *testing.T) {
	for src, want := range map[string]string{
		"fleet:\n  replicas: 9\n":                   "fleet.replicas",
		"fleet:\n  segments: [[dedup]]\n":           "fleet.segments",
		"fleet:\n  nope: 1\n":                       "nope",
		"telemetry:\n  exporter: zipkin\n":          "telemetry.exporter",
		"llm:\n  api_key: sk-123\n":                 "api_key",
		"transcripts:\n  debate: {gate_ratio: 2}\n": "gate_ratio",
		"whatever: 1\n":                             "whatever",
		"pipeline:\n  mode: fast\n":                 "pipeline.mode",
	} {
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v (want mention of %s)", src, err, want)
		}
	}
}
