package pipeline

import (
	"context"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// The same document gives the same output every time: fused and split
// fleets compare results byte for byte, and a republish is deduplicated by
// its result. Go randomizes map order per iteration, so repeating a run
// catches output that depends on it (a slot summary's examples did).
func TestOutputIsDeterministic(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range zooFormats {
		text, _, _, _ := zooDoc(f, 3000, uint64(i+1))
		first, err := p.Run(context.Background(), Request{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		for range 8 {
			again, _ := p.Run(context.Background(), Request{Text: text})
			if again.Text != first.Text {
				t.Errorf("%s: two runs of one document differ", f.name)
				break
			}
		}
	}
}
