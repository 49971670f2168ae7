package llm

import (
	"sync"
	"time"
)

// BreakerState is the circuit breaker's state.
type BreakerState int

// The breaker states.
const (
	BreakerClosed BreakerState = iota
	BreakerOpen
	BreakerHalfOpen
)

func (s BreakerState) String() string {
	switch s {
	case BreakerClosed:
		return "closed"
	case BreakerOpen:
		return "open"
	case BreakerHalfOpen:
		return "half-open"
	}
	return "unknown"
}

// outcome is what one call tells the breaker.
type outcome int

const (
	outcomeSuccess outcome = iota
	outcomeFailure         // the endpoint misbehaved: counts toward opening
	outcomeNeutral         // says nothing about the endpoint (4xx, caller cancelled)
)

// breaker is a consecutive-failure circuit breaker. A nil *breaker is a
// breaker that is always closed.
type breaker struct {
	cfg BreakerConfig

	mu        sync.Mutex
	state     BreakerState
	failures  int
	openUntil time.Time
	probes    int // probes in flight while half-open
}

func newBreaker(cfg BreakerConfig) *breaker {
	if cfg.Failures <= 0 {
		return nil
	}
	return &breaker{cfg: cfg}
}

// allow says whether a call may go ahead now; probe is true when it is a
// half-open probe, which must be reported with done. retryAt is when an open
// breaker will let a probe through.
func (b *breaker) allow(now time.Time) (ok, probe bool, retryAt time.Time) {
	if b == nil {
		return true, false, time.Time{}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen && !now.Before(b.openUntil) {
		b.state = BreakerHalfOpen
		b.probes = 0
	}
	switch b.state {
	case BreakerOpen:
		return false, false, b.openUntil
	case BreakerHalfOpen:
		if b.probes >= b.cfg.HalfOpenProbes {
			return false, false, now
		}
		b.probes++
		return true, true, time.Time{}
	}
	return true, false, time.Time{}
}

// stillOpen is a cheap re-check for a call that waited for a slot.
func (b *breaker) stillOpen(now time.Time) bool {
	if b == nil {
		return false
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.state == BreakerOpen && now.Before(b.openUntil)
}

// done records a call's outcome and returns the state change it caused, if
// any (from == to when none).
func (b *breaker) done(now time.Time, probe bool, o outcome) (from, to BreakerState) {
	if b == nil {
		return BreakerClosed, BreakerClosed
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	from = b.state
	if probe && b.probes > 0 {
		b.probes--
	}
	switch o {
	case outcomeSuccess:
		b.failures = 0
		if b.state == BreakerHalfOpen && probe {
			b.state = BreakerClosed
		}
	case outcomeFailure:
		b.failures++
		if (b.state == BreakerHalfOpen && probe) || (b.state == BreakerClosed && b.failures >= b.cfg.Failures) {
			b.state = BreakerOpen
			b.openUntil = now.Add(b.cfg.OpenFor)
		}
	}
	return from, b.state
}

// State returns the breaker's state as of now.
func (b *breaker) State(now time.Time) BreakerState {
	if b == nil {
		return BreakerClosed
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.state == BreakerOpen && !now.Before(b.openUntil) {
		return BreakerHalfOpen
	}
	return b.state
}
