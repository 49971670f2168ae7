package transcripts_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNoTransportOrTelemetryImports keeps the package pure: no NATS, no
// OpenTelemetry, and of the project only stages and pipeline (both pure).
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
					path != "github.com/jetcompact/jetcompact/stages" && path != "github.com/jetcompact/jetcompact/pipeline" &&
					path != "github.com/jetcompact/jetcompact/transcripts":
					t.Errorf("%s imports %s; only stages and pipeline are allowed", f, path)
				}
			}
		}
	}
}
