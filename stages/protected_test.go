package stages

import (
	"context"
	"strings"
	"testing"
)

// rewriteNode applies f to every line of its input.
type rewriteNode func(string) string

func (rewriteNode) Key() Key { return KeyWhitespace }
func (f rewriteNode) Apply(_ context.Context, in Input) (Outcome, error) {
	lines := strings.Split(in.Text, "\n")
	for i, l := range lines {
		lines[i] = f(l)
	}
	return Outcome{Text: strings.Join(lines, "\n")}, nil
}

// TestProtectedKeepsFencesAndUndoesBadOutput: a node called on its own
// through Protected never sees fenced code, so what it does to every line
// leaves the fence byte for byte; a node that drops a stashed region or
// writes invalid UTF-8 is undone, its input passed on with the reason.
func TestProtectedKeepsFencesAndUndoesBadOutput(t *testing.T) {
	fence := "```go\nfunc   main()   {}\n```"
	for _, prose := range []string{"Some   prose   here.", "Zeile   mit   Umlauten: äöü", "日本語   の   文"} {
		text := prose + "\n" + fence + "\n" + prose + "\n"
		squeeze := rewriteNode(func(l string) string { return strings.Join(strings.Fields(l), " ") })
		out, err := Protected(squeeze).Apply(context.Background(), Input{Text: text})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.Text, fence) || strings.Contains(out.Text, prose) || out.Chars != Chars(out.Text) {
			t.Errorf("squeezed %q:\n%s (chars %d)", prose, out.Text, out.Chars)
		}
		for name, bad := range map[string]rewriteNode{
			"drops the fence": func(l string) string {
				if IsProtectedLine(l) {
					return ""
				}
				return l
			},
			"invalid UTF-8": func(l string) string { return l + "\xff" },
		} {
			out, err := Protected(bad).Apply(context.Background(), Input{Text: text})
			if err != nil {
				t.Fatal(err)
			}
			if out.Text != text || !out.Skipped || !strings.Contains(out.Reason, "undone") {
				t.Errorf("%s: %q, skipped %v, reason %q; want the input undone", name, out.Text, out.Skipped, out.Reason)
			}
		}
	}
	n := Protected(rewriteNode(strings.ToUpper))
	if p, ok := Protected(n).(protectedNode); !ok {
		t.Error("Protected returned no protected node")
	} else if _, twice := p.node.(protectedNode); twice {
		t.Error("Protected wrapped a protected node twice")
	}
}
