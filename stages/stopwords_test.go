package stages

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

func applyStopwords(t *testing.T, text string) string {
	t.Helper()
	out, err := NewStopwords(DefaultStopwordsOptions()).Apply(context.Background(), Input{Text: text, Kind: KindProse})
	if err != nil {
		t.Fatal(err)
	}
	return out.Text
}

// A Han stop character between two Latin words stays, so the words are
// not glued into a new one; elsewhere it is dropped.
func TestStopwordsNeverGlueLatinWords(t *testing.T) {
	cases := map[string]string{
		"o在f":          "o在f",
		"o在the f":      "o在f",
		"o在的f":         "o在f",
		"o在 f":         "o f",
		"中在f":          "中f",
		"我在家":          "我家",
		"x the y":      "x y",
		"o在'f":         "o在'f",
		"data在the的end": "data在end",
	}
	for in, want := range cases {
		if got := applyStopwords(t, in); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

// Generated mixed-script lines: English stop words, short Latin
// fragments, Han stop and content characters, spaces and apostrophes in
// random order. The node must be idempotent on every one.
func TestStopwordsIdempotentOnMixedScript(t *testing.T) {
	parts := []string{"o", "f", "of", "the", "a", "x", "data", "'", " ", "在", "的", "是", "中", "家", "t", "s", "don"}
	rng := rand.New(rand.NewPCG(19, 4))
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		once := applyStopwords(t, b.String())
		if twice := applyStopwords(t, once); twice != once {
			t.Fatalf("not idempotent on %q: once %q, twice %q", b.String(), once, twice)
		}
	}
}
