package stages

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMayBeMarkdownChatFilter checks that the cheap filter never turns a
// chat away: random texts of chat lines (aider's, turn headings, fences,
// tool output) and log lines, with and without CR, give the same answer
// through the filter as the line-by-line read alone.
func TestMayBeMarkdownChatFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	pool := []string{
		"# aider chat started at 2024-01-01", "#### fix the parser", "#### ", "> Applied edit to a.go",
		"> Tokens: 2k sent", "> plain quote", "## User", "### Assistant:", "**user**:", "**Assistant**",
		"```go", "```", "~~~", "<<<<<<< SEARCH", ">>>>>>> REPLACE", "  # indented", " **x**",
		"2024-01-01 10:00:00 INFO started", "ERROR failed", "", "plain prose line", "*", "#",
	}
	chats := 0
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(30); k > 0; k-- {
			b.WriteString(pool[r.IntN(len(pool))])
			if r.IntN(5) == 0 {
				b.WriteByte('\r')
			}
			b.WriteByte('\n')
		}
		text := b.String()
		if r.IntN(2) == 0 {
			text = strings.TrimSuffix(text, "\n")
		}
		want := isMarkdownChat(text)
		if want {
			chats++
		}
		if got := mayBeMarkdownChat(text) && isMarkdownChat(text); got != want {
			t.Fatalf("filtered %v, read alone %v, on %q", got, want, text)
		}
	}
	if chats < 100 {
		t.Fatalf("only %d chats among the random texts: the test does not test", chats)
	}
}

// TestHasLineOpenedBy checks the search by the opening byte against the
// plain statement: the text opens with c, or a line break precedes one.
func TestHasLineOpenedBy(t *testing.T) {
	r := rand.New(rand.NewPCG(51, 52))
	alphabet := "ab #*\n\r"
	for n := 0; n < 20000; n++ {
		b := make([]byte, r.IntN(12))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		s := string(b)
		for _, c := range []byte("#*") {
			want := s != "" && s[0] == c || strings.Contains(s, "\n"+string(c))
			if got := hasLineOpenedBy(s, c); got != want {
				t.Fatalf("hasLineOpenedBy(%q, %q) = %v, want %v", s, c, got, want)
			}
		}
	}
}
