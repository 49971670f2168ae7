package poll

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestUntilSeesAConditionComeTrue(t *testing.T) {
	var n atomic.Int32
	go func() {
		for range 5 {
			time.Sleep(time.Millisecond)
			n.Add(1)
		}
	}()
	if !Until(10*time.Second, func() bool { return n.Load() == 5 }) {
		t.Fatal("condition that came true reported false")
	}
}

func TestUntilGivesUpAtTheDeadline(t *testing.T) {
	calls := 0
	start := time.Now()
	if Until(30*time.Millisecond, func() bool { calls++; return false }) {
		t.Fatal("a condition that never holds reported true")
	}
	if time.Since(start) < 30*time.Millisecond || calls < 2 {
		t.Errorf("gave up after %s and %d checks", time.Since(start), calls)
	}
}
