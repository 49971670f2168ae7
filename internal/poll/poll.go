// Package poll lets tests wait for what another goroutine, process or
// server brings about, checking a condition until a deadline instead of
// sleeping a fixed time.
package poll

import (
	"testing"
	"time"
)

// Interval is how often a condition is checked.
const Interval = 10 * time.Millisecond

// Until checks cond every Interval until it holds or d has passed, and
// reports whether it held. cond is checked once more at the deadline.
func Until(d time.Duration, cond func() bool) bool { return Every(Interval, d, cond) }

// Every is Until checking every interval, for a condition that is costly
// to check.
func Every(interval, d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			return cond()
		}
		time.Sleep(interval)
	}
	return true
}

// Require is Until that fails t, naming what did not happen within d.
func Require(t testing.TB, d time.Duration, what string, cond func() bool) {
	t.Helper()
	if !Until(d, cond) {
		t.Fatalf("not within %s: %s", d, what)
	}
}
