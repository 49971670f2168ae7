package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLogDedupNamedHexIDs: a request id written as a name and a UUID
// (OpenStack's req-<uuid>) is one shape whatever letters the UUID spells,
// so a template with another parameter (a user) still merges.
func TestLogDedupNamedHexIDs(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var users []string // a long tail of user names
	for i := range 300 {
		users = append(users, letters(i*7+1000))
	}
	var b strings.Builder
	for i := range 200 {
		uuid := fmt.Sprintf("%08x-%04x-4%03x-a%03x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<12), r.IntN(1<<12), r.Int64N(1<<48))
		for _, name := range []string{"req", "span"} {
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d.%03d 2574%d INFO nova.compute.manager [%s-%s] session opened for user %s\n",
				i/60, i%60, r.IntN(1000), i%3, name, uuid, users[r.IntN(len(users))])
		}
	}
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: b.String(), Kind: KindLog})
	if err != nil {
		t.Fatal(err)
	}
	// One template per id name: req and span stay apart.
	if n := strings.Count(out.Text, "\n"); n != 2 {
		t.Fatalf("%d lines, want 2 (one per id name):\n%s", n, out.Text)
	}
}
