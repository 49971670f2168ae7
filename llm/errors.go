package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/failure"
	"github.com/jetcompact/jetcompact/stages"
	openai "github.com/sashabaranov/go-openai"
)

var (
	// ErrNoModel is returned by Summarize when neither summary_model nor
	// model is configured (gate 4 normally stops such calls first).
	ErrNoModel = errors.New("no summary model and no default chat model configured")
	// ErrMalformedResponse is a response that is not a chat completion:
	// bad JSON or no choices.
	ErrMalformedResponse = errors.New("malformed chat completion response")
	// ErrTruncated is a summary cut off by the token limit or a content
	// filter; a cut summary silently drops facts, so it is not used.
	ErrTruncated = errors.New("summary cut off")
)

// HTTPError is a non-2xx answer from the endpoint. Its message is the
// server's, shortened; the go-openai error it came from is wrapped.
type HTTPError struct {
	StatusCode int
	// RetryAfter is the server's Retry-After (or retry-after-ms), 0 if none.
	RetryAfter time.Duration
	Message    string
	err        error
}

func (e *HTTPError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("HTTP %d", e.StatusCode)
	}
	return fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
}

func (e *HTTPError) Unwrap() error { return e.err }

// RetryDelay is the server's Retry-After, for failure.RetryAfter.
func (e *HTTPError) RetryDelay() time.Duration { return e.RetryAfter }

// Transient reports whether err may go away on its own: a 429 or 5xx
// answer, a network error or a request timeout. Everything else (4xx,
// malformed responses, no model, a truncated summary) will fail the same
// way when redelivered. An error joining several (a model and its
// fallback) is transient when any of them is.
func Transient(err error) bool {
	switch e := err.(type) {
	case nil:
		return false
	case *HTTPError:
		return e.StatusCode == http.StatusTooManyRequests || e.StatusCode >= 500
	case *transportError:
		return true
	case interface{ Unwrap() []error }:
		return slices.ContainsFunc(e.Unwrap(), Transient)
	case interface{ Unwrap() error }:
		return Transient(e.Unwrap())
	}
	return false
}

// classified marks a failed call's error permanent (failure.ErrPermanent),
// unless it may go away on its own: Transient, an open circuit, or a
// context that ended. A worker dead-letters a permanent error and retries
// the others with backoff.
func classified(err error) error {
	if err == nil || Transient(err) || errors.Is(err, stages.ErrCircuitOpen) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return failure.Permanent(err)
}

// transportError marks a network failure or a per-request timeout.
type transportError struct{ err error }

func (e *transportError) Error() string { return e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// maxMessage bounds how much of a server's error text goes into an error.
const maxMessage = 300

// classify turns a go-openai error into this package's errors and says what
// it means for retries and the breaker. parent is the caller's context:
// when it is done, nothing is retried and the breaker learns nothing.
//
//lint:ignore ST1008 the error is what classify makes; the flags describe it
func classify(parent context.Context, err error, header http.Header, now time.Time) (out error, retry bool, o outcome) {
	if perr := parent.Err(); perr != nil {
		return fmt.Errorf("%w (%w)", perr, err), false, outcomeNeutral
	}
	var apiErr *openai.APIError
	var reqErr *openai.RequestError
	status, msg := 0, ""
	switch {
	case errors.As(err, &apiErr) && apiErr.HTTPStatusCode > 0:
		status, msg = apiErr.HTTPStatusCode, apiErr.Message
	case errors.As(err, &reqErr) && reqErr.HTTPStatusCode > 0:
		status, msg = reqErr.HTTPStatusCode, string(reqErr.Body)
		if reqErr.Err != nil && len(reqErr.Body) == 0 {
			msg = reqErr.Err.Error()
		}
	}
	if status > 0 {
		he := &HTTPError{StatusCode: status, Message: shorten(msg), RetryAfter: retryAfter(header, now), err: err}
		if status == http.StatusTooManyRequests || status >= 500 {
			return he, true, outcomeFailure
		}
		return he, false, outcomeNeutral
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	if errors.As(err, &syn) || errors.As(err, &typ) {
		return fmt.Errorf("%w: %w", ErrMalformedResponse, err), false, outcomeFailure
	}
	var ue *url.Error
	var ne net.Error
	if errors.As(err, &ue) || errors.As(err, &ne) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, context.DeadlineExceeded) {
		return &transportError{err}, true, outcomeFailure
	}
	// Anything else was refused before a request was sent (go-openai's
	// own request checks): permanent, and not the endpoint's fault.
	return err, false, outcomeNeutral
}

// shorten keeps error text to one bounded line.
func shorten(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > maxMessage {
		s = stages.TruncateBytes(s, maxMessage) + "..."
	}
	return s
}

// retryAfter reads retry-after-ms, then Retry-After in seconds or as an
// HTTP date; 0 when absent or unparsable.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0
		}
		return time.Duration(secs * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

// backoffWait is the wait before retry number n (0-based): half to all of
// min(base*2^n, max).
func backoffWait(b BackoffConfig, n int) time.Duration {
	d := b.Base
	for i := 0; i < n && d < b.Max; i++ {
		d *= 2
	}
	d = min(d, b.Max)
	half := d / 2
	if half <= 0 {
		return d
	}
	return half + rand.N(d-half+1)
}

// minSecretLen is the shortest key that is redacted: a shorter one would
// match inside ordinary words ("x" in "exceeded").
const minSecretLen = 8

// secretPattern matches key as a whole token (no letter, digit, "-" or "_"
// on either side), or is nil for a key too short to redact safely.
func secretPattern(key string) *regexp.Regexp {
	if len(key) < minSecretLen {
		return nil
	}
	return regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(key) + `($|[^A-Za-z0-9_-])`)
}

// redactText replaces every whole-token occurrence of the secret.
func redactText(s string, secret *regexp.Regexp) string {
	if secret == nil {
		return s
	}
	// Adjacent occurrences share a boundary: repeat until none is left.
	for i := 0; i < 4 && secret.MatchString(s); i++ {
		s = secret.ReplaceAllString(s, "${1}[REDACTED]${2}")
	}
	return s
}

// redacted hides a secret that a server or proxy echoed into an error.
type redacted struct {
	err    error
	secret *regexp.Regexp
}

func (e *redacted) Error() string { return redactText(e.err.Error(), e.secret) }
func (e *redacted) Unwrap() error { return e.err }

func redact(err error, secret *regexp.Regexp) error {
	if err == nil || secret == nil || !secret.MatchString(err.Error()) {
		return err
	}
	return &redacted{err: err, secret: secret}
}
