package stages

import "testing"

func TestKeepPlaceholders(t *testing.T) {
	// Real placeholders, made by the code that makes them.
	masked, _ := Protect("intro\n```\na\n```\nmid\n~~~\nb\n~~~\nend")
	ph := placeholders(masked)
	if len(ph) != 2 {
		t.Fatalf("placeholders = %q", ph)
	}
	p0, p1 := ph[0], ph[1]
	for _, tc := range []struct{ name, summary, want string }{
		{"kept", "sum " + p0 + "\n" + p1, "sum " + p0 + "\n" + p1},
		{"missing appended", "sum", "sum\n" + p0 + "\n" + p1},
		{"one missing", p1 + " sum", p1 + " sum\n" + p0},
		{"duplicate dropped", p0 + "\n" + p0 + "\n" + p1, p0 + "\n\n" + p1},
		{"unknown dropped", "x \uE000\uE01F\uE001 y\n" + p0 + p1, "x  y\n" + p0 + p1},
		{"stray rune dropped", "x \uE000 y\n" + p0 + p1, "x  y\n" + p0 + p1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keepProtectedLines(tc.summary, masked)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := keepProtectedLines("summary", "plain text"); got != "summary" {
		t.Errorf("plain text: %q", got)
	}
}
