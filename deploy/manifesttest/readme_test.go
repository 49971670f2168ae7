package manifesttest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// flattenValues lists every value of values.yaml as a dotted path: maps are
// walked, everything else (lists, scalars, empty maps) is a leaf.
func flattenValues(prefix string, v any, out map[string]any) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		out[prefix] = v
		return
	}
	for k, child := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		flattenValues(p, child, out)
	}
}

var readmeRow = regexp.MustCompile("(?m)^\\| `([^`]+)` \\| `([^`]*)` \\| .*\\|$")

// The chart README's table lists every value with its current default, and
// nothing that is not a value.
func TestReadmeListsEveryValue(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chartPath, "values.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var values map[string]any
	if err := yaml.Unmarshal(data, &values); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{}
	flattenValues("", values, want)

	readme, err := os.ReadFile(filepath.Join(chartPath, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	table := string(readme)
	if i := strings.Index(table, "\n## Values\n"); i >= 0 {
		table = table[i:]
	} else {
		t.Fatal("README.md has no '## Values' section")
	}
	got := map[string]string{}
	for _, m := range readmeRow.FindAllStringSubmatch(table, -1) {
		if _, dup := got[m[1]]; dup {
			t.Errorf("README lists %s twice", m[1])
		}
		got[m[1]] = m[2]
	}
	for path, v := range want {
		def, ok := got[path]
		if !ok {
			t.Errorf("README does not list value %s", path)
			continue
		}
		enc, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if def != string(enc) {
			t.Errorf("README default of %s is `%s`, values.yaml has `%s`", path, def, enc)
		}
	}
	for path := range got {
		if _, ok := want[path]; !ok {
			t.Errorf("README lists %s, which values.yaml does not have", path)
		}
	}
}

// The README's production example is the values file CI renders.
func TestReadmeProductionExampleIsTested(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join(chartPath, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"ci/values-production.yaml", "ci/values-embedded.yaml", "ci/values-roles.yaml"} {
		v, err := os.ReadFile(filepath.Join(chartPath, f))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(readme), strings.TrimSpace(string(v))) {
			t.Errorf("README.md does not contain %s verbatim", f)
		}
	}
	if !strings.Contains(string(readme), "helm install jc deploy/helm/jetcompact -f ") {
		t.Error("README.md lacks the install command")
	}
}
