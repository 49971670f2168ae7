package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadNamesTheFile: a file that does not parse is named in the error;
// one that does is recorded as the source of the file and its pipeline.
func TestLoadNamesTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("pipeline: [unclosed\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("bad YAML: %v", err)
	}
	good := filepath.Join(dir, "good.yaml")
	if err := os.WriteFile(good, []byte("pipeline:\n  enabled: false\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := Load(good)
	if err != nil || f.Pipeline.Enabled || f.Source != good || f.Pipeline.Source != good {
		t.Errorf("good: %+v %v", f.Pipeline, err)
	}
}
