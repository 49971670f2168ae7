package stages

import (
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// TestFoldMarkerCountsBack: whatever a marker says of the lines it stands
// for (a node's reason, a debate answer's key points), nodes read its count.
func TestFoldMarkerCountsBack(t *testing.T) {
	for _, what := range []string{"folded by keywords", "compressed", "compressed. Key points: a; b [x]; c ...", "compressed. Key points: 3 lines"} {
		for _, n := range []int{1, 2, 17, 123456} {
			if got := textkit.ParseFoldMarker(FoldMarker(n, what)); got != n {
				t.Errorf("FoldMarker(%d, %q) = %q reads back as %d", n, what, FoldMarker(n, what), got)
			}
		}
	}
}
