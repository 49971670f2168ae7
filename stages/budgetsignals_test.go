package stages

import (
	"strings"
	"testing"
)

func TestProtectedLinesMapsRegions(t *testing.T) {
	text := strings.Join([]string{
		"intro",
		"```go",
		"x := 1",
		"```",
		"between",
		"~~~",
		"raw",
		"more",
		"~~~",
		"outro",
	}, "\n")
	want := []bool{false, true, true, true, false, true, true, true, true, false}
	got := ProtectedLines(text)
	if len(got) != len(want) {
		t.Fatalf("%d marks for %d lines", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("line %d %q: protected=%v, want %v", i+1, strings.Split(text, "\n")[i], got[i], want[i])
		}
	}
	for _, plain := range []string{"", "no fences here\nat all", "```\nunclosed"} {
		for i, p := range ProtectedLines(plain) {
			if p {
				t.Errorf("%q: line %d marked protected", plain, i+1)
			}
		}
	}
}
