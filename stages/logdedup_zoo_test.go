package stages

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/logs"
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

// TestLogDedupHeaderColumn: a column of host names right after the time
// stamp logs every kind of event, so no template splits by host, whatever
// the hosts are called; event names under it stay apart, and so do the
// levels of one message.
func TestLogDedupHeaderColumn(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	var users []string
	for i := range 300 {
		users = append(users, letters(i*7+1000))
	}
	msgs := []func() string{
		func() string { return "openDrawer" },
		func() string { return "closeDrawer" },
		func() string { return "session opened for user " + users[r.IntN(len(users))] },
		func() string {
			return fmt.Sprintf("Connection closed by 10.0.%d.%d port %d", r.IntN(256), r.IntN(256), 1024+r.IntN(60000))
		},
		func() string { return "sync job started" },
		func() string { return "sync job stopped" },
	}
	for _, hosts := range [][]string{
		{"web-a", "db-primary", "cache.prod.example.net", "x"},
		{"alpha", "beta", "gamma"},
		{"ip-10-0-0-1", "worker-b", "storage", "edge-7f", "mq"},
	} {
		var b strings.Builder
		for i := range 900 {
			level := "INFO"
			if i%300 == 299 {
				level = "ERROR" // the same message at another level
			}
			fmt.Fprintf(&b, "2024-03-01T10:%02d:%02dZ %s app[%d]: %s %s\n", i/60%60, i%60, hosts[r.IntN(len(hosts))], 100+r.IntN(900), level, msgs[i%len(msgs)]())
		}
		out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: b.String(), Kind: KindLog})
		if err != nil {
			t.Fatal(err)
		}
		// Six messages at INFO, and the ERROR one apart.
		if n := strings.Count(out.Text, "\n"); n != 7 {
			t.Errorf("hosts %q: %d lines, want 7:\n%s", hosts, n, out.Text)
		}
		for _, w := range []string{"openDrawer", "closeDrawer", "started", "stopped", "ERROR"} {
			if !strings.Contains(out.Text, w) {
				t.Errorf("hosts %q: %q lost:\n%s", hosts, w, out.Text)
			}
		}
	}
}

// TestLogDedupMethodColumnStays: an HTTP method right after the time stamp
// comes with many routes, but not evenly (DELETE with few): it names the
// event with its route, and no method merges into another.
func TestLogDedupMethodColumnStays(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	routes := map[string][]string{
		"/api/users":    {"GET", "POST"},
		"/api/orders":   {"GET", "POST", "DELETE"},
		"/api/items":    {"GET", "PUT"},
		"/api/carts":    {"GET", "POST", "PUT", "DELETE"},
		"/api/payments": {"GET"},
		"/api/sessions": {"POST", "DELETE"},
	}
	pairs := 0
	var keys []string
	for route, ms := range routes {
		pairs += len(ms)
		keys = append(keys, route)
	}
	var b strings.Builder
	for i := range 1500 {
		route := keys[r.IntN(len(keys))]
		ms := routes[route]
		fmt.Fprintf(&b, "2024-03-01T10:%02d:%02d.%03dZ %s %s 200 %dms\n", i/60%60, i%60, r.IntN(1000), ms[r.IntN(len(ms))], route, 1+r.IntN(900))
	}
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: b.String(), Kind: KindLog})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "\n"); n != pairs {
		t.Fatalf("%d lines, want %d (one per method and route):\n%s", n, pairs, out.Text)
	}
}

// TestLogDedupContinuationValues: continuation lines are masked like a
// head, so a node name with a number (dn228) in them is a value and the
// records merge; a different trace stays apart.
func TestLogDedupContinuationValues(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d,%03d INFO [db] config applied\n  details: retry=%d\n  node=dn%d\n", i/60%60, i%60, r.IntN(1000), r.IntN(5), r.IntN(400))
		if i%100 == 50 {
			fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d,%03d INFO [db] config applied\n  details: retry=%d\n  rollback=true\n", i/60%60, i%60, r.IntN(1000), r.IntN(5))
		}
	}
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: b.String(), Kind: KindLog})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "\n"); n != 6 {
		t.Fatalf("%d lines, want 6 (two records of three lines):\n%s", n, out.Text)
	}
	if !strings.Contains(out.Text, "rollback=true") {
		t.Fatalf("the other trace was lost:\n%s", out.Text)
	}
}

// TestLogDedupFieldColumns: in JSON lines, a node's name and its id (two
// fields that vary together, one before and one after the message) log
// every kind of event: no template splits by node. The component, which
// comes with its message, stays.
func TestLogDedupFieldColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	nodes := []string{"alpha", "beta", "gamma", "delta"}
	msgs := []struct{ comp, msg string }{
		{"o.e.n.Node", "started"},
		{"o.e.n.Node", "stopping"},
		{"o.e.g.GatewayService", "recovered indices into cluster state"},
		{"o.e.c.r.a.AllocationService", "cluster health status changed"},
		{"o.e.c.s.MasterService", "elected-as-master"},
	}
	var b strings.Builder
	for i := range 1000 {
		n, m := nodes[r.IntN(len(nodes))], msgs[i%len(msgs)]
		fmt.Fprintf(&b, `{"timestamp": "2024-03-01T10:%02d:%02d,%03dZ", "level": "INFO", "component": %q, "node.name": %q, "message": %q, "node.id": "id-%s-node"}`+"\n",
			i/60%60, i%60, r.IntN(1000), m.comp, n, m.msg, n)
	}
	text := b.String()
	out, err := NewLogDedup(DefaultLogDedupOptions()).Apply(context.Background(), Input{Text: text, Kind: KindLog, Log: logs.Analyze(text)})
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(out.Text, "\n"); n != len(msgs) {
		t.Fatalf("%d lines, want %d (one per message):\n%s", n, len(msgs), out.Text)
	}
}
