package logs

import (
	"slices"
	"testing"
)

// TestIDTokens: generated ids count as a request's tag whatever their
// shape; words, numbers, clocks, addresses, paths and names counted by a
// small number do not.
func TestIDTokens(t *testing.T) {
	for line, want := range map[string][]string{
		"I, [2024-05-01T10:01:17.130 #1234] ERROR -- : [294315ea] failed":      {"294315ea"},
		"corr=47daa0f5-fe99-c4bf-8bd0-00182c0f98b9 timeout":                    {"47daa0f5-fe99-c4bf-8bd0-00182c0f98b9"},
		"writeBlock blk_-1608999687919862906 received exception":               {"blk_-1608999687919862906"},
		"attempt_1445144423722_0020_m_000002_1 failed":                         {"attempt_1445144423722_0020_m_000002_1"},
		"(request req-7f3a9c1e) failed":                                        {"req-7f3a9c1e"},
		"[pool-1-thread-3] ERROR http-nio-8080-exec-5 user_1008 failed":        nil,
		"2024-05-01 10:01:17,130 ERROR 10.0.0.5:8080 /var/lib/x9f3a2b1/y fail": nil,
		"host.abc123def.example failed with code 500":                          nil,
		"Error: Exception1 in module":                                          nil,
		"ERROR [abcca899] Stage0 failed":                                       {"abcca899"},
	} {
		if got := idTokens(line, nil); !slices.Equal(got, want) {
			t.Errorf("%q: got %q, want %q", line, got, want)
		}
	}
}
