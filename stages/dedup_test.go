package stages

import (
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
