package stages

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestPurePackagesImportNoTransport: stages and its subpackages, pipeline
// and transcripts stay text in, text out. Nothing they depend on, directly
// or not, may be NATS or OpenTelemetry.
func TestPurePackagesImportNoTransport(t *testing.T) {
	for _, pkg := range []string{"github.com/jetcompact/jetcompact/stages/...", "github.com/jetcompact/jetcompact/pipeline", "github.com/jetcompact/jetcompact/transcripts"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		for _, dep := range strings.Fields(string(out)) {
			if strings.HasPrefix(dep, "github.com/nats-io/") || strings.HasPrefix(dep, "go.opentelemetry.io/") {
				t.Errorf("%s depends on %s", pkg, dep)
			}
		}
	}
}

// TestSubpackagesDoNotImportStages: stages imports its subpackages
// (logs, textkit), never the other way round.
func TestSubpackagesDoNotImportStages(t *testing.T) {
	const stages = "github.com/jetcompact/jetcompact/stages"
	for _, pkg := range []string{stages + "/logs", stages + "/textkit"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		if !slices.Contains(deps, pkg) {
			t.Fatalf("go list -deps %s does not list the package itself: %q", pkg, deps)
		}
		if slices.Contains(deps, stages) {
			t.Errorf("%s depends on %s", pkg, stages)
		}
	}
}

// TestEveryPackageHasADocComment keeps each package describable in a sentence.
func TestEveryPackageHasADocComment(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}\t{{.Doc}}", "github.com/jetcompact/jetcompact/...").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		path, doc, _ := strings.Cut(line, "\t")
		if strings.TrimSpace(doc) == "" {
			t.Errorf("%s has no package doc comment", path)
		}
	}
}
