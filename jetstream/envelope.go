package jetstream

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

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

// validNonce reports whether s is what newNonce makes: 32 lower-case hex
// digits.
func validNonce(s string) bool {
	if len(s) != 32 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// newNonce returns 128 random bits in hex.
func newNonce() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b) // crypto/rand.Read never fails
	return hex.EncodeToString(b)
}

var docIDRe = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

// ValidDocID reports whether id can be used in a subject: whether docIDRe
// matches it, tested byte by byte as it runs for every message.
func ValidDocID(id string) bool {
	if len(id) == 0 || len(id) > 128 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// errBadEnvelope marks a message no retry can fix.
var errBadEnvelope = failure.Permanent(errors.New("bad envelope"))

// envelopeHeaders is how many headers Write may set.
const envelopeHeaders = 15

// Write puts the envelope into h; it does not fail (the error is for
// callers written when it could). It runs for every message: the values
// share one backing array and one byte buffer, and the report is encoded
// by appendReports, byte for byte as encoding/json would.
func (e Envelope) Write(h nats.Header) error {
	w := headerWriter{h: h, vals: make([]string, 0, envelopeHeaders)}
	// The numbers, the log layout and the report, in one buffer.
	buf := make([]byte, 0, 64+reportsSizeHint(e.Reports))
	buf = strconv.AppendInt(buf, int64(e.OrigChars), 10)
	origChars := len(buf)
	buf = strconv.AppendInt(buf, int64(e.OrigBytes), 10)
	origBytes := len(buf)
	buf = strconv.AppendInt(buf, int64(e.Attempt), 10)
	attempt := len(buf)
	buf = appendLayout(buf, e.Log)
	layout := len(buf)
	if e.Budget > 0 {
		buf = strconv.AppendInt(buf, int64(e.Budget), 10)
	}
	budget := len(buf)
	if len(e.Reports) > 0 {
		buf = appendBoundedReports(buf, e.Reports)
	}
	s := payloadText(buf) // buf is not written again
	w.set(HeaderDocID, e.DocID)
	w.set(HeaderKind, string(e.Kind))
	w.set(HeaderMode, string(e.Mode))
	w.set(HeaderAllowLLM, strconv.FormatBool(e.AllowLLM))
	w.set(HeaderOrigChars, s[:origChars])
	w.set(HeaderOrigBytes, s[origChars:origBytes])
	w.set(HeaderOrigRef, e.OrigRef)
	w.set(HeaderAttempt, s[origBytes:attempt])
	w.setOrDel(HeaderBlob, e.Blob)
	w.setOrDel(HeaderPass, e.Pass)
	w.setOrDel(HeaderLog, s[attempt:layout])
	w.setOrDel(HeaderNonce, e.Nonce)
	w.setOrDel(HeaderError, e.Error)
	w.setOrDel(HeaderBudget, s[layout:budget])
	w.setOrDel(HeaderReport, s[budget:])
	return nil
}

// headerWriter sets one value a header, the values sliced from one array.
type headerWriter struct {
	h    nats.Header
	vals []string
}

func (w *headerWriter) set(k, v string) {
	w.vals = append(w.vals, v)
	n := len(w.vals)
	w.h[k] = w.vals[n-1 : n : n] // capped: an Add copies
}

func (w *headerWriter) setOrDel(k, v string) {
	if v == "" {
		delete(w.h, k)
		return
	}
	w.set(k, v)
}

// appendLayout appends l.String(): the keys of its query in order.
func appendLayout(b []byte, l logs.Layout) []byte {
	if !l.Analyzed {
		return b
	}
	start := len(b)
	param := func(k byte, v string) {
		if len(b) > start {
			b = append(b, '&')
		}
		b = append(b, k, '=')
		b = append(b, url.QueryEscape(v)...)
	}
	if l.ByRepeats {
		param('b', "1")
	}
	if l.Fields != "" {
		param('f', l.Fields)
	}
	if l.HeaderCols > 0 {
		param('h', strconv.Itoa(l.HeaderCols))
	}
	for _, o := range l.Openers {
		param('o', o)
	}
	if l.Records {
		param('r', "1")
	}
	for _, d := range l.StatusFields {
		param('s', strconv.Itoa(d))
	}
	param('v', "1")
	return b
}

// appendBoundedReports appends reports within the bounds ReadEnvelope
// checks, dropping the oldest entries (after the first) when needed and
// saying so.
func appendBoundedReports(b []byte, reports []pipeline.NodeReport) []byte {
	start := len(b)
	for dropped := 0; ; dropped++ {
		rs := reports
		if dropped > 0 {
			rs = append([]pipeline.NodeReport{reports[0], {Key: "reports", Skipped: true, Reason: strconv.Itoa(dropped) + " earlier node reports dropped"}}, reports[1+dropped:]...)
		}
		b = appendReports(b[:start], rs)
		if (len(b)-start <= maxReportBytes && len(rs) <= maxReportEntries) || len(rs) <= 2 {
			return b
		}
	}
}

// reportsSizeHint is about the encoded size of reports.
func reportsSizeHint(reports []pipeline.NodeReport) int {
	n := 2
	for _, r := range reports {
		n += 96 + len(r.Key) + len(r.Reason) + len(r.Redactions)
		if r.LLM != nil {
			n += 160 + len(r.LLM.Model) + len(r.LLM.Redactions)
		}
	}
	return n
}

// appendReports appends json.Marshal(rs) without reflection.
func appendReports(b []byte, rs []pipeline.NodeReport) []byte {
	if rs == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, r := range rs {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"key":`...)
		b = appendJSONString(b, string(r.Key))
		b = append(b, `,"chars_in":`...)
		b = strconv.AppendInt(b, int64(r.CharsIn), 10)
		b = append(b, `,"chars_out":`...)
		b = strconv.AppendInt(b, int64(r.CharsOut), 10)
		b = append(b, `,"duration_ns":`...)
		b = strconv.AppendInt(b, int64(r.Duration), 10)
		if r.Skipped {
			b = append(b, `,"skipped":true`...)
		}
		if r.Reason != "" {
			b = append(b, `,"reason":`...)
			b = appendJSONString(b, r.Reason)
		}
		if u := r.LLM; u != nil {
			b = append(b, `,"llm":{"Model":`...)
			b = appendJSONString(b, u.Model)
			b = append(b, `,"PromptTokens":`...)
			b = strconv.AppendInt(b, int64(u.PromptTokens), 10)
			b = append(b, `,"CompletionTokens":`...)
			b = strconv.AppendInt(b, int64(u.CompletionTokens), 10)
			b = append(b, `,"Retries":`...)
			b = strconv.AppendInt(b, int64(u.Retries), 10)
			b = append(b, `,"CacheHit":`...)
			b = strconv.AppendBool(b, u.CacheHit)
			b = append(b, `,"LatencyMS":`...)
			b = strconv.AppendInt(b, u.LatencyMS, 10)
			b = append(b, `,"Redactions":`...)
			b = appendJSONString(b, u.Redactions)
			b = append(b, '}')
		}
		if r.Redactions != "" {
			b = append(b, `,"redactions":`...)
			b = appendJSONString(b, r.Redactions)
		}
		b = append(b, '}')
	}
	return append(b, ']')
}

// jsonPlain marks the ASCII bytes encoding/json writes as they are: not
// control bytes, quotes, backslashes or <, > and & (escaped for HTML).
var jsonPlain = func() (t [utf8.RuneSelf]bool) {
	for c := ' '; c < utf8.RuneSelf; c++ {
		t[c] = !strings.ContainsRune(`"\<>&`, c)
	}
	return t
}()

// appendJSONString appends s quoted as encoding/json quotes it: invalid
// UTF-8 becomes U+FFFD, U+2028 and U+2029 are escaped.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	for {
		i := jsonPlainLen(s)
		b = append(b, s[:i]...)
		if i == len(s) {
			return append(b, '"')
		}
		esc, size := jsonEscape(s[i:])
		b = append(b, esc...)
		s = s[i+size:]
	}
}

// jsonPlainLen is how many leading bytes of s encoding/json writes as
// they are.
func jsonPlainLen(s string) int {
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if !jsonPlain[c] {
				return i
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
			return i
		}
		i += size
	}
	return len(s)
}

// jsonEscape is how encoding/json writes the byte or rune s starts with,
// one jsonPlainLen stops at, and its length in s.
func jsonEscape(s string) (string, int) {
	const hex = "0123456789abcdef"
	switch c := s[0]; c {
	case '"':
		return `\"`, 1
	case '\\':
		return `\\`, 1
	case '\b':
		return `\b`, 1
	case '\f':
		return `\f`, 1
	case '\n':
		return `\n`, 1
	case '\r':
		return `\r`, 1
	case '\t':
		return `\t`, 1
	default:
		if c < utf8.RuneSelf {
			return `\u00` + hex[c>>4:c>>4+1] + hex[c&0xf:c&0xf+1], 1
		}
	}
	switch r, size := utf8.DecodeRuneInString(s); r {
	case '\u2028':
		return `\u2028`, size
	case '\u2029':
		return `\u2029`, size
	}
	return `\ufffd`, 1
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
	if e.Nonce != "" && !validNonce(e.Nonce) {
		return fail("%s: not a nonce", HeaderNonce)
	}
	if r := h.Get(HeaderReport); r != "" {
		if len(r) > maxReportBytes {
			return fail("%s: %d bytes, above %d", HeaderReport, len(r), maxReportBytes)
		}
		var reports []pipeline.NodeReport // not &e.Reports: e would escape
		if err := json.Unmarshal([]byte(r), &reports); err != nil {
			return fail("%s: %v", HeaderReport, err)
		}
		e.Reports = reports
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
