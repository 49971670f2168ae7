// Package failure is the project's one error vocabulary for retries: an
// error wrapping ErrPermanent can never succeed when redelivered (bad
// input, a refused request); any other error may go away on its own.
// The worker's ack policy reads it: permanent → dead letter and Term,
// otherwise Nak with backoff.
package failure

import (
	"errors"
	"time"
)

// ErrPermanent marks a failure that no retry can fix.
var ErrPermanent = errors.New("permanent")

// IsPermanent reports whether err can never succeed on retry.
func IsPermanent(err error) bool { return errors.Is(err, ErrPermanent) }

// Permanent marks err as permanent without changing its message; errors.Is
// and errors.As still find what err wraps. Permanent(nil) is nil.
func Permanent(err error) error {
	if err == nil || IsPermanent(err) {
		return err
	}
	return &permanentError{err}
}

type permanentError struct{ err error }

func (e *permanentError) Error() string   { return e.err.Error() }
func (e *permanentError) Unwrap() []error { return []error{e.err, ErrPermanent} }

// RetryAfter is the wait a transient error asks for (a server's
// Retry-After): the first error in err's chain with a RetryDelay method
// that returns more than 0; 0 when none does.
func RetryAfter(err error) time.Duration {
	var r interface{ RetryDelay() time.Duration }
	if errors.As(err, &r) {
		return max(r.RetryDelay(), 0)
	}
	return 0
}
