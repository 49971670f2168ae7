package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// requestLog writes a log of requests whose records carry the request's
// id, in one of four dialects, with the requests at failing (indexes)
// failing. It returns the log and each failing request's route.
func requestLog(r *rand.Rand, dialect, requests int, failing map[int]bool) (string, []string) {
	var b strings.Builder
	var routes []string
	resources := []string{"cart", "orders", "users", "items", "invoices", "sessions"}
	for i := range requests {
		var id string
		switch r.IntN(3) {
		case 0:
			id = fmt.Sprintf("%08x", r.Uint32())
		case 1:
			id = fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", r.Uint32(), r.IntN(1<<16), r.IntN(1<<16), r.IntN(1<<16), r.Uint64()>>16)
		default:
			id = fmt.Sprintf("req-%x%c%d", r.Uint32(), 'a'+rune(r.IntN(26)), r.IntN(1000))
		}
		route := fmt.Sprintf("/api/%s/%d", resources[r.IntN(len(resources))], r.IntN(100000))
		if failing[i] {
			route = fmt.Sprintf("/api/refunds/%d/capture", 100000+r.IntN(100000))
			routes = append(routes, route)
		}
		clock := fmt.Sprintf("2024-06-%02d %02d:%02d:%02d.%03d", 1+i/86400, i/3600%24, i/60%60, i%60, r.IntN(1000))
		steps := []string{fmt.Sprintf("Started POST %q for 10.0.%d.%d", route, r.IntN(256), r.IntN(256))}
		for range r.IntN(3) {
			steps = append(steps, fmt.Sprintf("cache lookup took %dms", r.IntN(40)))
		}
		if failing[i] {
			steps = append(steps, "Payment gateway call failed: connection refused")
		}
		steps = append(steps, fmt.Sprintf("Completed %d in %dms", map[bool]int{false: 200, true: 502}[failing[i]], r.IntN(900)))
		for _, s := range steps {
			level := "INFO"
			if strings.Contains(s, "failed") {
				level = "ERROR"
			}
			switch dialect {
			case 0: // a tagged logger
				fmt.Fprintf(&b, "%s %s [%s] %s\n", clock, level, id, s)
			case 1: // logfmt
				fmt.Fprintf(&b, "ts=%q level=%s request_id=%s msg=%q\n", clock, strings.ToLower(level), id, s)
			case 2: // a thread and a correlation id
				fmt.Fprintf(&b, "%s %-5s [http-nio-8080-exec-%d] c.a.Api - corr=%s %s\n", clock, level, 1+r.IntN(8), id, s)
			default: // the id after the message
				fmt.Fprintf(&b, "[%s] %s: %s (request %s)\n", clock, level, s, id)
			}
		}
	}
	return b.String(), routes
}

// TestFailingRequestKeepsItsRoute: in a log whose records carry a
// request id, the failing request's first record (its route) is folded
// into the template of every request's first record. The output keeps it
// next to the failure, for any id shape, dialect and position.
func TestFailingRequestKeepsItsRoute(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	for doc := range 24 {
		dialect := doc % 4
		requests := 150 + r.IntN(500)
		failing := map[int]bool{20 + r.IntN(requests-20): true}
		text, routes := requestLog(r, dialect, requests, failing)
		out, ratio := compactLog(t, text)
		if !strings.Contains(out, routes[0]) {
			t.Errorf("doc %d (dialect %d): the failing request's route %s is gone:\n%s", doc, dialect, routes[0], out)
		}
		if !strings.Contains(out, "Payment gateway call failed") {
			t.Errorf("doc %d: the failure is gone", doc)
		}
		if ratio > 0.1 {
			t.Errorf("doc %d (dialect %d): ratio %.3f", doc, dialect, ratio)
		}
	}
}

// TestNoContextWithoutFailure: a request log that does not fail gains no
// context record.
func TestNoContextWithoutFailure(t *testing.T) {
	r := rand.New(rand.NewPCG(43, 44))
	for dialect := range 4 {
		text, _ := requestLog(r, dialect, 300, nil)
		if out, _ := compactLog(t, text); strings.Contains(out, "[context:") {
			t.Errorf("dialect %d: a context record without a failure:\n%s", dialect, out)
		}
	}
}
