package manifesttest

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

var update = flag.Bool("update", false, "rewrite values.schema.json from values.yaml")

// freePaths are Kubernetes objects and maps passed through as they are
// (resources, affinity, annotations): any content.
var freePaths = map[string]bool{
	"commonLabels": true, "podAnnotations": true, "podLabels": true,
	"serviceAccount.annotations": true, "podSecurityContext": true, "securityContext": true,
	"config.pipeline.nodes":     true,
	"segmentDefaults.resources": true, "segmentDefaults.nodeSelector": true, "segmentDefaults.affinity": true,
	"segmentDefaults.podAnnotations": true,
	"embedded.resources":             true, "embedded.nodeSelector": true, "embedded.affinity": true,
	"topology.resources": true, "topology.nodeSelector": true,
	"service.annotations": true, "metrics.serviceMonitor.labels": true,
	"prometheusRule.labels": true, "grafanaDashboard.labels": true,
}

// openPaths are the worker's own config sections: the product's strict
// loader checks them, so keys besides those listed are allowed here.
var openPaths = map[string]bool{
	"config.pipeline": true, "config.llm": true, "config.fleet": true, "config.telemetry": true,
}

// typeOverrides: values whose type is wider than their default's.
var typeOverrides = map[string]any{
	"segmentDefaults.pdb.maxUnavailable": []string{"integer", "string"}, // 1 or "25%"
}

// extraProperties are keys the chart reads that values.yaml leaves out.
var extraProperties = map[string]map[string]any{
	// Worker config sections the product knows besides those in values.yaml.
	"config": {
		"transcripts": map[string]any{"type": "object"},
		"sources":     map[string]any{"type": "array", "items": map[string]any{"type": "object"}},
		"retention":   map[string]any{"type": "object"},
	},
}

// schemaFor builds the JSON schema of one value from its default.
func schemaFor(path string, v any) map[string]any {
	s := map[string]any{}
	if freePaths[path] {
		s["type"] = "object"
		return s
	}
	switch x := v.(type) {
	case map[string]any:
		s["type"] = "object"
		props := map[string]any{}
		for k, child := range x {
			p := k
			if path != "" {
				p = path + "." + k
			}
			props[k] = schemaFor(p, child)
		}
		for k, extra := range extraProperties[path] {
			props[k] = extra
		}
		if len(props) > 0 {
			s["properties"] = props
		}
		if !openPaths[path] && len(x) > 0 {
			s["additionalProperties"] = false
		}
	case []any:
		s["type"] = "array"
		if len(x) > 0 {
			if _, scalar := x[0].(string); scalar {
				s["items"] = map[string]any{"type": "string"}
			} else if _, num := x[0].(float64); num {
				s["items"] = map[string]any{"type": "integer"}
			}
		}
	case string:
		s["type"] = "string"
	case bool:
		s["type"] = "boolean"
	case float64:
		if x == math.Trunc(x) {
			s["type"] = "integer"
		} else {
			s["type"] = "number"
		}
	}
	if t, ok := typeOverrides[path]; ok {
		s["type"] = t
	}
	return s
}

// valuesSchema is the schema of values.yaml: every key the chart owns is
// listed with its type, and an unknown key is an error.
func valuesSchema(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(chartPath, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	root := schemaFor("", values)
	root["$schema"] = "https://json-schema.org/draft-07/schema#"
	root["title"] = "jetcompact chart values (generated from values.yaml by deploy/manifesttest: go test -run TestValuesSchema -update)"

	// A segment entry: its own keys plus every key of segmentDefaults.
	props := root["properties"].(map[string]any)
	seg := schemaFor("segmentDefaults", values["segmentDefaults"])
	segProps := seg["properties"].(map[string]any)
	strList := map[string]any{"type": "array", "items": map[string]any{"type": "string"}}
	segProps["name"] = map[string]any{"type": "string"}
	segProps["stages"] = strList
	segProps["tasks"] = strList
	segProps["sources"] = strList
	segProps["natsSecret"] = map[string]any{"type": "string"}
	seg["required"] = []string{"name", "stages"}
	props["segments"] = map[string]any{"type": "array", "items": seg}

	out, err := json.MarshalIndent(root, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(out, '\n')
}

// TestValuesSchemaIsCurrent: values.schema.json is what values.yaml
// generates, so every value the chart owns is typed and closed.
func TestValuesSchemaIsCurrent(t *testing.T) {
	want := valuesSchema(t)
	path := filepath.Join(chartPath, "values.schema.json")
	if *update {
		if err := os.WriteFile(path, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: run `go test -run TestValuesSchemaIsCurrent -update` in deploy/manifesttest", path)
	}
}

func helmLint(t *testing.T, args ...string) (string, error) {
	t.Helper()
	full := append([]string{"lint", "--strict", "--kube-version", kubeVersion, chartPath}, args...)
	cmd := exec.Command(helmPath(t), full...)
	cmd.Env = offlineEnv(t)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// A misspelt key or a wrongly typed value fails `helm lint --strict` and
// `helm template`, naming the key; the shipped values files pass.
func TestValuesSchemaRejectsMistakes(t *testing.T) {
	for _, f := range []string{"values.yaml", "ci/values-production.yaml", "ci/values-embedded.yaml", "ci/values-roles.yaml"} {
		if out, err := helmLint(t, "-f", valuesFile(f)); err != nil {
			t.Errorf("helm lint %s: %v\n%s", f, err, out)
		}
	}
	for name, tc := range map[string]struct{ values, key string }{
		"misspelt top-level key": {"imag: {tag: v1}\n", "imag"},
		"misspelt nested key":    {"image: {tga: v1}\n", "tga"},
		"misspelt deep key":      {"nats: {auth: {token: {existingSecert: s}}}\n", "existingSecert"},
		"misspelt segment key": {"segments:\n- {name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary], replicaz: 2}\n- {name: g, stages: [guard]}\n",
			"replicaz"},
		"misspelt segmentDefaults key": {"segmentDefaults: {autoscaling: {keda: {enabeld: true}}}\n", "enabeld"},
		"misspelt config section":      {"config: {pipline: {mode: hybrid}}\n", "pipline"},
		"wrong type":                   {"drainTimeoutSeconds: soon\n", "drainTimeoutSeconds"},
		"wrong type nested":            {"networkPolicy: {enabled: \"yes\"}\n", "enabled"},
	} {
		t.Run(name, func(t *testing.T) {
			args := withValues(t, tc.values)
			out, err := helmLint(t, args...)
			if err == nil {
				t.Fatalf("helm lint passed:\n%s", out)
			}
			if !strings.Contains(out, tc.key) || !strings.Contains(out, "schema") {
				t.Errorf("helm lint does not name %q as a schema error:\n%s", tc.key, out)
			}
			if _, stderr, err := helmTemplate(t, args...); err == nil || !strings.Contains(stderr, tc.key) {
				t.Errorf("helm template: err %v, %s", err, stderr)
			}
		})
	}
}

// Free-form values stay free: Kubernetes objects and annotations.
func TestValuesSchemaAllowsFreeFormMaps(t *testing.T) {
	out, err := helmLint(t, withValues(t, `podAnnotations: {any.example/key: v}
segmentDefaults:
  resources: {requests: {cpu: 1, ephemeral-storage: 1Gi}}
  nodeSelector: {disk: ssd}
  pdb: {maxUnavailable: "50%"}
config:
  pipeline: {nodes: {headtail: {enabled: true, head_lines: 10}}}
  transcripts: {}
`)...)
	if err != nil {
		t.Errorf("helm lint refused free-form values: %v\n%s", err, out)
	}
}
