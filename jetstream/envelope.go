package jetstream

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/jetcompact/jetcompact/failure"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/nats-io/nats.go"
)

// Header names. NATS header names are case-sensitive: always use these.
const (
	HeaderDocID     = "Jc-Doc-Id"
	HeaderKind      = "Jc-Kind"
	HeaderMode      = "Jc-Mode"
	HeaderAllowLLM  = "Jc-Allow-Llm"
	HeaderOrigChars = "Jc-Orig-Chars"
	HeaderOrigBytes = "Jc-Orig-Bytes"
	HeaderOrigRef   = "Jc-Orig-Ref"
	HeaderBlob      = "Jc-Blob"    // body lives in the object store under this name
	HeaderPass      = "Jc-Pass"    // passthrough reason: later stages do nothing
	HeaderReport    = "Jc-Report"  // JSON node reports accumulated so far
	HeaderGuard     = "Jc-Guard"   // guard outcome, on results
	HeaderAttempt   = "Jc-Attempt" // replay counter, part of message ids
	HeaderReason    = "Jc-Reason"  // dead-letter reason
	HeaderStage     = "Jc-Stage"   // dead-letter: the segment that gave up
	HeaderError     = "Jc-Error"   // result: permanent error, original emitted
	HeaderLog       = "Jc-Log"     // the log analysis of the original (logs.Layout)
	// HeaderBudget is the document's token budget (pipeline.FitBudget),
	// applied after the guard; absent = the worker's budget_tokens.
	HeaderBudget = "Jc-Budget-Tokens"
	// HeaderBudgetReport is a result's pipeline.BudgetReport as JSON.
	HeaderBudgetReport = "Jc-Budget-Report"
	// HeaderNonce is a document's unguessable token, stored with its
	// original. A hop must carry it; results and dead letters never do.
	HeaderNonce = "Jc-Nonce"
)

// The W3C trace context travels in "traceparent" and "tracestate", written
// by the OpenTelemetry propagator through headerCarrier.

// Envelope is everything a hop carries besides the text.
//
// Blob names where the text is when it is not the message body: the stored
// original ("orig:" and the document id) on the first hop, else a work
// blob named after the hop and a digest of its text, for a text over
// inline_max_bytes. Empty: the text is the body.
//
// Pass is why the document goes through untouched ("passthrough: empty
// input", binary input, a kept original): when set, later segments run no
// node and the guard publishes it as the outcome.
type Envelope struct {
	DocID     string
	Kind      stages.Kind
	Mode      stages.Mode
	AllowLLM  bool
	OrigChars int
	OrigBytes int
	OrigRef   string
	Blob      string
	Pass      string
	Attempt   int
	Reports   []pipeline.NodeReport
	// Log is the analysis of the original log, made by the first segment
	// so that later ones work with it instead of re-reading rewritten text.
	Log   logs.Layout
	Nonce string
	// Budget caps the result's estimated tokens; 0 = none given.
	Budget int
	// Error is a permanent error the document met; it comes out as its
	// original (a dead letter's hop to the guard, a result).
	Error string
}

// Bounds of Jc-Report: any envelope the fleet writes stays within them, so
// a larger one is forged and no retry can fix it.
const (
	maxReportBytes   = 16 << 10
	maxReportEntries = 128
)

// MaxBudgetTokens bounds a document's token budget: far above any
// context window, low enough that a forged header cannot mean anything odd.
const MaxBudgetTokens = 100_000_000

var nonceRe = regexp.MustCompile(`^[0-9a-f]{32}$`)

// newNonce returns 128 random bits in hex.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

var docIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// ValidDocID reports whether id can be used in a subject.
func ValidDocID(id string) bool { return docIDRe.MatchString(id) }

// errBadEnvelope marks a message no retry can fix.
var errBadEnvelope = failure.Permanent(errors.New("bad envelope"))

// Write puts the envelope into h.
func (e Envelope) Write(h nats.Header) error {
	h.Set(HeaderDocID, e.DocID)
	h.Set(HeaderKind, string(e.Kind))
	h.Set(HeaderMode, string(e.Mode))
	h.Set(HeaderAllowLLM, strconv.FormatBool(e.AllowLLM))
	h.Set(HeaderOrigChars, strconv.Itoa(e.OrigChars))
	h.Set(HeaderOrigBytes, strconv.Itoa(e.OrigBytes))
	h.Set(HeaderOrigRef, e.OrigRef)
	h.Set(HeaderAttempt, strconv.Itoa(e.Attempt))
	setOrDel(h, HeaderBlob, e.Blob)
	setOrDel(h, HeaderPass, e.Pass)
	setOrDel(h, HeaderLog, e.Log.String())
	setOrDel(h, HeaderNonce, e.Nonce)
	setOrDel(h, HeaderError, e.Error)
	if e.Budget > 0 {
		h.Set(HeaderBudget, strconv.Itoa(e.Budget))
	} else {
		h.Del(HeaderBudget)
	}
	if len(e.Reports) > 0 {
		b, err := marshalReports(e.Reports)
		if err != nil {
			return err
		}
		h.Set(HeaderReport, string(b))
	} else {
		h.Del(HeaderReport)
	}
	return nil
}

// marshalReports encodes reports within the bounds ReadEnvelope checks,
// dropping the oldest entries (after the first) when needed and saying so.
func marshalReports(reports []pipeline.NodeReport) ([]byte, error) {
	for dropped := 0; ; dropped++ {
		rs := reports
		if dropped > 0 {
			rs = append([]pipeline.NodeReport{reports[0], {Key: "reports", Skipped: true, Reason: strconv.Itoa(dropped) + " earlier node reports dropped"}}, reports[1+dropped:]...)
		}
		b, err := json.Marshal(rs)
		if err != nil || (len(b) <= maxReportBytes && len(rs) <= maxReportEntries) || len(rs) <= 2 {
			return b, err
		}
	}
}

func setOrDel(h nats.Header, k, v string) {
	if v == "" {
		h.Del(k)
		return
	}
	h.Set(k, v)
}

// ReadEnvelope parses the envelope from h. Errors wrap errBadEnvelope.
func ReadEnvelope(h nats.Header) (Envelope, error) {
	e := Envelope{
		DocID:   h.Get(HeaderDocID),
		Kind:    stages.Kind(h.Get(HeaderKind)),
		Mode:    stages.Mode(h.Get(HeaderMode)),
		OrigRef: h.Get(HeaderOrigRef),
		Blob:    h.Get(HeaderBlob),
		Pass:    h.Get(HeaderPass),
		Nonce:   h.Get(HeaderNonce),
		Error:   h.Get(HeaderError),
	}
	fail := func(format string, args ...any) (Envelope, error) {
		return Envelope{}, fmt.Errorf("%w: %s", errBadEnvelope, fmt.Sprintf(format, args...))
	}
	if !ValidDocID(e.DocID) {
		return fail("missing or invalid %s", HeaderDocID)
	}
	if e.Kind != "" && stages.ParseKind(string(e.Kind)) == "" {
		return fail("unknown %s %q", HeaderKind, e.Kind)
	}
	if e.Mode != "" && !e.Mode.Valid() {
		return fail("unknown %s %q", HeaderMode, e.Mode)
	}
	var err error
	if e.AllowLLM, err = strconv.ParseBool(h.Get(HeaderAllowLLM)); err != nil {
		return fail("%s: %v", HeaderAllowLLM, err)
	}
	if e.OrigChars, err = strconv.Atoi(h.Get(HeaderOrigChars)); err != nil || e.OrigChars < 0 {
		return fail("%s: not a count", HeaderOrigChars)
	}
	if e.OrigBytes, err = strconv.Atoi(h.Get(HeaderOrigBytes)); err != nil || e.OrigBytes < 0 {
		return fail("%s: not a count", HeaderOrigBytes)
	}
	if a := h.Get(HeaderAttempt); a != "" {
		if e.Attempt, err = strconv.Atoi(a); err != nil || e.Attempt < 0 {
			return fail("%s: not a count", HeaderAttempt)
		}
	}
	if b := h.Get(HeaderBudget); b != "" {
		if e.Budget, err = ParseBudget(b); err != nil {
			return fail("%s: %v", HeaderBudget, err)
		}
	}
	// The analysis is a hint: one that does not parse is made again.
	e.Log, _ = logs.ParseLayout(h.Get(HeaderLog))
	if e.Nonce != "" && !nonceRe.MatchString(e.Nonce) {
		return fail("%s: not a nonce", HeaderNonce)
	}
	if r := h.Get(HeaderReport); r != "" {
		if len(r) > maxReportBytes {
			return fail("%s: %d bytes, above %d", HeaderReport, len(r), maxReportBytes)
		}
		if err := json.Unmarshal([]byte(r), &e.Reports); err != nil {
			return fail("%s: %v", HeaderReport, err)
		}
		if len(e.Reports) > maxReportEntries {
			return fail("%s: %d entries, above %d", HeaderReport, len(e.Reports), maxReportEntries)
		}
	}
	return e, nil
}

// msgID is the JetStream message id of a document's hop into stage: a
// redelivered message republishes under the same id and is dropped.
func msgID(docID string, attempt int, stage stages.Key) string {
	return docID + ":" + strconv.Itoa(attempt) + ":" + string(stage)
}

// ParseBudget reads a token budget: a positive integer of at most
// MaxBudgetTokens.
func ParseBudget(s string) (int, error) {
	n, err := strconv.Atoi(s)
	switch {
	case err != nil:
		return 0, fmt.Errorf("%q is not a whole number of tokens", truncate(s, 40))
	case n <= 0:
		return 0, fmt.Errorf("%d is not positive", n)
	case n > MaxBudgetTokens:
		return 0, fmt.Errorf("%d is above %d", n, MaxBudgetTokens)
	}
	return n, nil
}
