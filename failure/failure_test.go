package failure

import (
	"errors"
	"fmt"
	"io"
	"testing"
	"time"
)

func TestPermanentKeepsTheMessageAndTheChain(t *testing.T) {
	err := Permanent(fmt.Errorf("decode: %w", io.ErrUnexpectedEOF))
	if err.Error() != "decode: unexpected EOF" {
		t.Errorf("message %q changed", err)
	}
	if !IsPermanent(err) || !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("chain lost: permanent %v, EOF %v", IsPermanent(err), errors.Is(err, io.ErrUnexpectedEOF))
	}
	if IsPermanent(fmt.Errorf("wrapped: %w", io.ErrUnexpectedEOF)) {
		t.Error("an unmarked error is permanent")
	}
	if !IsPermanent(fmt.Errorf("task: %w", err)) {
		t.Error("wrapping a permanent error lost the mark")
	}
	if Permanent(nil) != nil {
		t.Error("Permanent(nil) is not nil")
	}
	if Permanent(err) != err {
		t.Error("marking twice wrapped again")
	}
}

type throttled struct{ wait time.Duration }

func (t throttled) Error() string             { return "throttled" }
func (t throttled) RetryDelay() time.Duration { return t.wait }

func TestRetryAfter(t *testing.T) {
	if got := RetryAfter(fmt.Errorf("task: %w", throttled{3 * time.Second})); got != 3*time.Second {
		t.Errorf("wrapped: %s", got)
	}
	if got := RetryAfter(io.EOF); got != 0 {
		t.Errorf("no delay asked: %s", got)
	}
	if got := RetryAfter(throttled{-time.Second}); got != 0 {
		t.Errorf("negative: %s", got)
	}
}
