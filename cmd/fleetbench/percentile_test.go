package main

import (
	"slices"
	"testing"
	"time"
)

func TestPercentileNearestRankOnACopy(t *testing.T) {
	var ds []time.Duration
	for i := 100; i >= 1; i-- { // 100 ms down to 1 ms, unsorted for the function
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	before := slices.Clone(ds)
	for _, c := range []struct {
		p    int
		want time.Duration
	}{{50, 51 * time.Millisecond}, {99, 100 * time.Millisecond}, {0, time.Millisecond}, {100, 100 * time.Millisecond}} {
		if got := percentile(ds, c.p); got != c.want {
			t.Errorf("p%d = %v, want %v", c.p, got, c.want)
		}
	}
	if !slices.Equal(ds, before) {
		t.Error("percentile reordered its input: the latencies' publishing order is lost")
	}
	if got := percentile(nil, 99); got != 0 {
		t.Errorf("p99 of none = %v, want 0", got)
	}
	// Of 100 values, p99 is the one at sorted index 99: the slowest.
	flat := make([]time.Duration, 100)
	for i := range flat {
		flat[i] = time.Millisecond
	}
	flat[37], flat[81] = 40*time.Millisecond, 50*time.Millisecond
	if got := percentile(flat, 99); got != 50*time.Millisecond {
		t.Errorf("p99 with two slow of 100 = %v, want 50ms", got)
	}
}
