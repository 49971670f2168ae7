package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestCutHeadTail(t *testing.T) {
	for _, c := range []struct {
		text       string
		head, tail int
		want       HeadTailCut
		ok         bool
	}{
		{"a\nb\nc\nd", 1, 2, HeadTailCut{"a", "b", "c\nd"}, true},
		{"a\nb\nc\nd", 0, 0, HeadTailCut{"", "a\nb\nc\nd", ""}, true},
		{"a\nb\nc\nd", 3, 0, HeadTailCut{"a\nb\nc", "d", ""}, true},
		{"a\nb\nc\nd", 0, 3, HeadTailCut{"", "a", "b\nc\nd"}, true},
		{"a\nb\nc\n", 2, 0, HeadTailCut{"a\nb", "c\n", ""}, true},
		{"a\nb\nc\n", 1, 1, HeadTailCut{"a", "b\nc", ""}, true}, // the tail is the empty last line
		{"\n\n\n", 1, 1, HeadTailCut{"", "\n", ""}, true},
		{"", 0, 0, HeadTailCut{"", "", ""}, true},
		{"a\nb\nc\nd", 2, 2, HeadTailCut{}, false},
		{"a\nb\nc\nd", 4, 0, HeadTailCut{}, false},
		{"a\nb\nc\nd", 0, 4, HeadTailCut{}, false},
		{"a\nb\nc\nd", 3, 3, HeadTailCut{}, false},
		{"", 0, 1, HeadTailCut{}, false},
		{"a\nb", -1, 0, HeadTailCut{}, false},
	} {
		got, ok := CutHeadTail(c.text, c.head, c.tail)
		if got != c.want || ok != c.ok {
			t.Errorf("CutHeadTail(%q, %d, %d) = %q, %v; want %q, %v", c.text, c.head, c.tail, got, ok, c.want, c.ok)
		}
		if !ok {
			continue
		}
		// The parts put back together are the text.
		parts := []string{got.Middle}
		if c.head > 0 {
			parts = append([]string{got.Head}, parts...)
		}
		if c.tail > 0 {
			parts = append(parts, got.Tail)
		}
		if back := strings.Join(parts, "\n"); back != c.text {
			t.Errorf("CutHeadTail(%q, %d, %d): parts join to %q", c.text, c.head, c.tail, back)
		}
	}
}

func TestFoldMiddle(t *testing.T) {
	cut := HeadTailCut{Middle: "x\nK1\n[... 4 lines folded ...]\ny\nK2\nK3\nz"}
	var got []string
	after, err := cut.FoldMiddle(context.Background(), MiddleFold{
		Keep:   func(l string) bool { return strings.HasPrefix(l, "K") },
		Folded: foldedLines,
		Kept:   func(l string, before int) { got = append(got, fmt.Sprintf("%d %s", before, l)) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "1 K1, 5 K2, 0 K3"; strings.Join(got, ", ") != want || after != 1 {
		t.Errorf("kept %q, %d folded after; want %q, 1", got, after, want)
	}
}

func TestFoldMiddleCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cut := HeadTailCut{Middle: strings.Repeat("line\n", 10000)}
	_, err := cut.FoldMiddle(ctx, MiddleFold{
		Keep:   func(string) bool { return false },
		Folded: func(string) int { return 1 },
		Kept:   func(string, int) {},
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}
