package stages

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
)

func TestDedup(t *testing.T) {
	node := NewDedup(DefaultDedupOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{"repeated long lines go, short ones stay", KindProse,
			"The deploy finished without errors.\n}\n}\nnl\nnl\nThe deploy finished without errors.\n",
			"The deploy finished without errors.\n}\n}\nnl\nnl\n"},
		{"repeated paragraphs go", KindProse,
			"first line here\nsecond line here\n\nother\n\nfirst line here\nsecond line here\n\nend\n",
			"first line here\nsecond line here\n\nother\n\nend\n"},
		{"logs are left to log_dedup", KindLog,
			"fatal: could not resolve host example.org\nfatal: could not resolve host example.org\n", ""},
		{"transcripts lose repeated sentences, no counts", KindTranscript,
			"Alice: Price is fine. The lead time is twelve days. Ok.\nBob: I agree. The lead time is twelve days. Done.\n",
			"Alice: Price is fine. The lead time is twelve days. Ok.\nBob: I agree. Done.\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			got := applyNode(t, node, tc.in, tc.kind)
			if got != want {
				t.Errorf("got %q\nwant %q", got, want)
			}
			if strings.Contains(got, logs.CountOpen) {
				t.Error("dedup added a count")
			}
		})
	}
}

func TestDedupConformance(t *testing.T) {
	checkConformance(t, NewDedup(DefaultDedupOptions()), logInputs())
}

// TestDedupKeepsStructuredEntries: in a structured document (YAML
// documents or a list, XML records, INI sections) a line that repeats
// belongs to each record it is under, and every one stays; a prose text
// with a few "key: value" lines still loses its repeated lines.
func TestDedupKeepsStructuredEntries(t *testing.T) {
	node := NewDedup(DefaultDedupOptions())
	r := rand.New(rand.NewPCG(51, 52))
	keys := []string{"image", "owner", "queue", "timeout_seconds", "region", "enabled", "log-level", "retry.max"}
	for doc := range 40 {
		n := 5 + r.IntN(80)
		shared := keys[r.IntN(len(keys))]
		value := fmt.Sprintf("shared-value-%d", r.IntN(100))
		var b strings.Builder
		for i := range n {
			id := fmt.Sprintf("record-%d-%d", doc, i)
			switch doc % 4 {
			case 0: // YAML documents
				fmt.Fprintf(&b, "---\nkind: Deployment\nmetadata:\n  name: %s\nspec:\n  %s: %s\n", id, shared, value)
			case 1: // a YAML list
				fmt.Fprintf(&b, "- name: %s\n  %s: %s\n  settings:\n    %s: %s\n", id, shared, value, shared, value)
			case 2: // XML records
				fmt.Fprintf(&b, "  <record>\n    <id>%s</id>\n    <%s>%s</%s>\n  </record>\n", id, shared, value, shared)
			case 3: // INI sections
				fmt.Fprintf(&b, "[%s]\n%s = %s\nport = 8080\n\n", id, shared, value)
			}
		}
		in := b.String()
		if got := applyNode(t, node, in, KindProse); got != in {
			t.Fatalf("doc %d: structured entries changed:\n%s", doc, got)
		}
	}
	prose := "The deploy finished without errors on every host.\nNote: the cache was cold.\n" +
		"Rollback plan: none needed.\nThe deploy finished without errors on every host.\n"
	if got, want := applyNode(t, node, prose, KindProse), strings.TrimSuffix(prose, "The deploy finished without errors on every host.\n"); got != want {
		t.Errorf("prose with a few key: value lines kept its repeat:\n%s", got)
	}
}
