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
		"retention":   {f.Retention, d.Retention},
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
		"retention:\n  max_age: -1h\n":              "retention.max_age",
		"pipeline:\n  mode: fast\n":                 "pipeline.mode",
	} {
		_, err := Parse([]byte(src))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v (want mention of %s)", src, err, want)
		}
	}
}

// TestErrorsNameTheLineAndTheYAMLKey: errors point at the user's line and
// key path, never at a Go type, and a misspelled node suggests the real one.
func TestErrorsNameTheLineAndTheYAMLKey(t *testing.T) {
	for _, c := range []struct{ src, want, not string }{
		{"pipeline:\n  nodez: {}\n", "line 2: pipeline.nodez: unknown key (did you mean \"nodes\"?)", "fileSection"},
		{"pipeline:\n  nodes:\n    headtail:\n      head_lines: many\n", "line 4: pipeline.nodes.headtail.head_lines: want a whole number, got \"many\"", "int"},
		{"pipeline:\n  nodes:\n    keywordz: {enabled: false}\n", "line 3: pipeline.nodes.keywordz: unknown node (did you mean \"keywords\"?)", ""},
		{"fleet:\n  prefix: jc\n  ack_wait: soon\n", "line 3: fleet.ack_wait: want a duration", "time.Duration"},
		{"\n\nwhatever: 1\n", "line 3: whatever: unknown key", "struct"},
		{"telemetry:\n  servce_name: x\n", "line 2: telemetry.servce_name: unknown key (did you mean \"service_name\"?)", ""},
		{"llm:\n  model: m\n  max_retries: lots\n", "line 3: llm.max_retries", "int"},
	} {
		_, err := Parse([]byte(c.src))
		if err == nil {
			t.Errorf("%q: accepted", c.src)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.src, err, c.want)
		}
		if c.not != "" && strings.Contains(err.Error(), c.not) {
			t.Errorf("%q: error names a Go type (%s): %v", c.src, c.not, err)
		}
	}
}

func TestEnvironmentReferencesExpand(t *testing.T) {
	t.Setenv("JC_PREFIX", "edge")
	t.Setenv("JC_PENDING", "512")
	f, err := Parse([]byte("fleet:\n  prefix: ${JC_PREFIX}\n  max_ack_pending: ${JC_PENDING}\n  storage: ${JC_UNSET_STORAGE:-memory}\nllm:\n  model: \"$${LITERAL}\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Fleet.Prefix != "edge" || f.Fleet.MaxAckPending != 512 || f.Fleet.Storage != "memory" || f.LLM.Model != "${LITERAL}" {
		t.Errorf("expanded: prefix %q pending %d storage %q model %q", f.Fleet.Prefix, f.Fleet.MaxAckPending, f.Fleet.Storage, f.LLM.Model)
	}
	_, err = Parse([]byte("fleet:\n  prefix: jc\n  storage: ${JC_NEVER_SET}\n"))
	if err == nil || !strings.Contains(err.Error(), "line 3") || !strings.Contains(err.Error(), "JC_NEVER_SET") {
		t.Errorf("unset variable: %v", err)
	}
}
