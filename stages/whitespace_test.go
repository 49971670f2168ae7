package stages

import "testing"

func TestWhitespace(t *testing.T) {
	node := NewWhitespace(DefaultWhitespaceOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{"crlf, lone cr, trailing spaces", KindLog, "a  \r\nb\rc\t\n", "a\nb\nc\n"},
		{"blank runs", KindProse, "\n\n\na\n\n\n\nb\n\n\n", "a\n\nb\n"},
		{"common indent and inner spaces", KindProse, "    x   =  1\n      y\t= 2\n", "x = 1\n  y = 2\n"},
		{"json keeps its spacing", KindJSON, "  {\"a\":   1}\n", "  {\"a\":   1}\n"},
		{"nothing to do", KindProse, "a\nb", "a\nb"},
		{"only blanks", KindProse, "\n\n  \n", ""},
		{"fence stays byte for byte", KindProse, "text  here\n```\n  code   with  spaces\n```\n", "text here\n```\n  code   with  spaces\n```\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := applyNode(t, node, tc.in, tc.kind)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
			if again := applyNode(t, node, got, tc.kind); again != got {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestWhitespaceConformance(t *testing.T) {
	checkConformance(t, NewWhitespace(DefaultWhitespaceOptions()), logInputs())
}
