package logs

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// requestClasses make lines with a request line (quoted, as balancers
// write them, or bare, as IIS does) and lines without, some of them
// near misses.
var requestClasses = []func(r *rand.Rand, n int) string{
	func(r *rand.Rand, n int) string { // ALB
		return fmt.Sprintf(`2024-01-%02dT10:%02d:%02d.%06dZ app/lb/%d 10.0.0.%d:%d 10.1.0.%d:80 0.00%d 0.0%d 0.000 %d %d 34 %d "GET http://h:80/api/%d HTTP/1.1" "curl/7.%d"`,
			1+r.IntN(28), r.IntN(60), n%60, r.IntN(999999), r.IntN(99), r.IntN(256), 1000+r.IntN(60000), r.IntN(256), r.IntN(9), r.IntN(99),
			[]int{200, 502, 404}[r.IntN(3)], []int{200, 500, 301}[r.IntN(3)], r.IntN(9999), r.IntN(100), r.IntN(80))
	},
	func(r *rand.Rand, n int) string { // IIS
		return fmt.Sprintf("2024-01-%02d 10:%02d:%02d 10.0.0.%d GET /orders/%d - 443 - 10.2.0.%d Mozilla/5.0 - %d 0 0 %d",
			1+r.IntN(28), r.IntN(60), n%60, r.IntN(256), r.IntN(500), r.IntN(256), []int{200, 404, 500}[r.IntN(3)], r.IntN(999))
	},
	func(r *rand.Rand, n int) string { // no request
		return fmt.Sprintf("2024-01-%02d 10:%02d:%02d INFO [w-%d] reading /etc/app/%d.conf took %d ms", 1+r.IntN(28), r.IntN(60), n%60, r.IntN(9), r.IntN(50), r.IntN(900))
	},
	func(r *rand.Rand, n int) string { // a quoted string that is no request
		return fmt.Sprintf(`2024-01-%02d 10:%02d:%02d WARN user %d said "GET me out %d HTTP" and left`, 1+r.IntN(28), r.IntN(60), n%60, r.IntN(99), r.IntN(9))
	},
}

// TestFewRequestsAgreesWithStatusFields checks the gate before
// statusFields: when fewRequests holds, statusFields finds nothing, on
// heads of every mix of request lines and others, with facts from the
// memo, made afresh, or both; and Analyze agrees with its reference on
// texts of those lines.
func TestFewRequestsAgreesWithStatusFields(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	gated, kept := 0, 0
	for run := range 600 {
		share := r.IntN(11) // request lines, in tenths
		style := r.IntN(2)  // one style of request a log, mostly
		var lines []string
		for n := range 1 + r.IntN(150) {
			c := 2 + r.IntN(2)
			if r.IntN(10) < share {
				c = style
				if r.IntN(20) == 0 {
					c = 1 - style
				}
			}
			lines = append(lines, requestClasses[c](r, n))
		}
		var a logAnalysis
		a.memo = getFactMemo()
		facts := make([]int32, len(lines))
		for k, h := range lines {
			if _, fi := a.memo.lookup(h); fi >= 0 && r.IntN(8) > 0 {
				facts[k] = fi
			} else {
				facts[k] = -1
			}
		}
		few := a.fewRequests(lines, facts)
		if again := a.fewRequests(lines, facts); again != few {
			t.Fatalf("run %d: fewRequests %v, then %v", run, few, again)
		}
		a.memo.release(nil, nil, nil)
		found := statusFields(lines)
		if few && found != nil {
			t.Fatalf("run %d: few requests, yet statusFields finds %v in\n%s", run, found, strings.Join(lines, "\n"))
		}
		if few {
			gated++
		} else if found != nil {
			kept++
		}
		text := strings.Join(lines, "\n")
		if got, want := Analyze(text), analyzeReference(text); !reflect.DeepEqual(got, want) {
			t.Fatalf("run %d: Analyze %+v, reference %+v", run, got, want)
		}
	}
	if gated < 100 || kept < 100 {
		t.Fatalf("gated %d, status fields found %d: the test does not test", gated, kept)
	}
}
