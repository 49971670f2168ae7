package stages

import "testing"

func TestNumberNormalize(t *testing.T) {
	node := NewNumberNormalize(DefaultNumberNormalizeOptions())
	for _, tc := range []struct {
		name string
		kind Kind
		in   string
		want string
	}{
		{"records lose their ids and times", KindLog,
			"2015-07-29 19:04:12,394 INFO connection from /10.10.34.11:45307 id=0x14ed93111f20005\n",
			"<N>-07-29 19:04:<N> INFO connection from /<N>:<N> id=0x<N>\n"},
		{"counts stay", KindLog,
			"2015-07-29 19:04:12 INFO request handled [×12345]\n",
			"<N>-07-29 19:04:12 INFO request handled [×12345]\n"},
		{"build output keeps versions and line numbers", KindLog,
			"Boost version: 1.54.0\nsrc/main.c:1234:5: error: 'x' undeclared\n", ""},
		{"hex ids in records", KindLog,
			"2024-01-01 10:00:00 INFO session 3f2a9c7b1e4d opened\n",
			"<N>-01-01 10:00:00 INFO session <N> opened\n"},
		{"prose keeps exact numbers", KindProse, "It cost 12345 dollars in 2024.\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := tc.want
			if want == "" {
				want = tc.in
			}
			got := applyNode(t, node, tc.in, tc.kind)
			if got != want {
				t.Errorf("got  %q\nwant %q", got, want)
			}
			if again := applyNodeAs(t, node, got, tc.kind, tc.in); again != got {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestNumberNormalizeConformance(t *testing.T) {
	checkConformance(t, NewNumberNormalize(DefaultNumberNormalizeOptions()), logInputs())
}
