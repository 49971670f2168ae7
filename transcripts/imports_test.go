package transcripts_test

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoTransportOrTelemetryImports keeps the package pure: no NATS, no
// OpenTelemetry, and of the project only stages.
func TestNoTransportOrTelemetryImports(t *testing.T) {
	for _, dir := range []string{".", "sessiontest"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			ast, err := parser.ParseFile(token.NewFileSet(), f, src, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range ast.Imports {
				path, _ := strconv.Unquote(imp.Path.Value)
				switch {
				case strings.HasPrefix(path, "github.com/nats-io/"), strings.HasPrefix(path, "go.opentelemetry.io/"):
					t.Errorf("%s imports %s", f, path)
				case strings.HasPrefix(path, "github.com/jetcompact/jetcompact/") &&
					path != "github.com/jetcompact/jetcompact/stages" && path != "github.com/jetcompact/jetcompact/transcripts":
					t.Errorf("%s imports %s; only stages is allowed", f, path)
				}
			}
		}
	}
}

// TestDependsOnlyOnStages: dependencies point one way. transcripts sits
// beside pipeline, under stages; nothing it depends on, directly or not,
// may be pipeline or a package above it.
func TestDependsOnlyOnStages(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "github.com/jetcompact/jetcompact/transcripts").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	allowed := map[string]bool{
		"github.com/jetcompact/jetcompact/transcripts": true,
		"github.com/jetcompact/jetcompact/stages":      true,
		"github.com/jetcompact/jetcompact/redact":      true, // stages' redaction rules
	}
	for _, dep := range strings.Fields(string(out)) {
		below := strings.HasPrefix(dep, "github.com/jetcompact/jetcompact/internal/") ||
			strings.HasPrefix(dep, "github.com/jetcompact/jetcompact/stages/") // stages' own parts
		if strings.HasPrefix(dep, "github.com/jetcompact/jetcompact/") && !allowed[dep] && !below {
			t.Errorf("transcripts depends on %s", dep)
		}
	}
}
