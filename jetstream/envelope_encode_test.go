package jetstream

import (
	"encoding"
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/nats-io/nats.go"
)

// writeViaJSON is Write as it was before appendReports: encoding/json for
// the report, Layout.String for the log layout. The reference.
func writeViaJSON(e Envelope, h nats.Header) error {
	h.Set(HeaderDocID, e.DocID)
	h.Set(HeaderKind, string(e.Kind))
	h.Set(HeaderMode, string(e.Mode))
	h.Set(HeaderAllowLLM, strconv.FormatBool(e.AllowLLM))
	h.Set(HeaderOrigChars, strconv.Itoa(e.OrigChars))
	h.Set(HeaderOrigBytes, strconv.Itoa(e.OrigBytes))
	h.Set(HeaderOrigRef, e.OrigRef)
	h.Set(HeaderAttempt, strconv.Itoa(e.Attempt))
	for k, v := range map[string]string{HeaderBlob: e.Blob, HeaderPass: e.Pass, HeaderLog: e.Log.String(), HeaderNonce: e.Nonce, HeaderError: e.Error} {
		if v == "" {
			h.Del(k)
		} else {
			h.Set(k, v)
		}
	}
	if e.Budget > 0 {
		h.Set(HeaderBudget, strconv.Itoa(e.Budget))
	} else {
		h.Del(HeaderBudget)
	}
	if len(e.Reports) == 0 {
		h.Del(HeaderReport)
		return nil
	}
	for dropped := 0; ; dropped++ {
		rs := e.Reports
		if dropped > 0 {
			rs = append([]pipeline.NodeReport{e.Reports[0], {Key: "reports", Skipped: true, Reason: strconv.Itoa(dropped) + " earlier node reports dropped"}}, e.Reports[1+dropped:]...)
		}
		b, err := json.Marshal(rs)
		if err != nil {
			return err
		}
		if (len(b) <= maxReportBytes && len(rs) <= maxReportEntries) || len(rs) <= 2 {
			h.Set(HeaderReport, string(b))
			return nil
		}
	}
}

// oddPieces are what the generated strings are made of: bytes encoding/json
// escapes, invalid and partial UTF-8, the JSONP separators, bytes a URL
// query escapes.
var oddPieces = []string{
	"", "a", "Z9", "log_dedup", " ", "<", ">", "&", `"`, `\`, "/", "\x00", "\x01", "\x1f", "\x7f",
	"\b", "\f", "\n", "\r", "\t", "\u2028", "\u2029", "\u2027", "\u202a", "é", "日本", "😀", "\ufffd",
	"\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xf4\x90\x80\x80", "=", "+", "%", "?", "#", ";", "d-d-d",
}

func oddString(r *rand.Rand) string {
	var sb strings.Builder
	for range r.IntN(6) {
		if r.IntN(8) == 0 {
			sb.WriteByte(byte(r.IntN(256)))
			continue
		}
		sb.WriteString(oddPieces[r.IntN(len(oddPieces))])
	}
	return sb.String()
}

func oddInt(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return 0
	case 1:
		return r.IntN(200)
	case 2:
		return -r.IntN(1 << 20)
	}
	return int(r.Int64())
}

func oddReports(r *rand.Rand) []pipeline.NodeReport {
	if r.IntN(10) == 0 {
		return nil
	}
	rs := make([]pipeline.NodeReport, r.IntN(14))
	for i := range rs {
		rs[i] = pipeline.NodeReport{
			Key: stages.Key(oddString(r)), CharsIn: oddInt(r), CharsOut: oddInt(r), Duration: time.Duration(oddInt(r)),
			Skipped: r.IntN(2) == 0, Reason: oddString(r), Redactions: oddString(r),
			Spans: map[int]int{1: 2},
		}
		if r.IntN(3) == 0 {
			rs[i].LLM = &stages.LLMUsage{
				Model: oddString(r), PromptTokens: oddInt(r), CompletionTokens: oddInt(r), Retries: oddInt(r),
				CacheHit: r.IntN(2) == 0, LatencyMS: int64(oddInt(r)), Redactions: oddString(r),
			}
		}
	}
	return rs
}

func oddLayout(r *rand.Rand) logs.Layout {
	l := logs.Layout{Analyzed: r.IntN(5) > 0, Records: r.IntN(2) == 0, ByRepeats: r.IntN(2) == 0, Fields: oddString(r), HeaderCols: oddInt(r) % 10}
	for range r.IntN(4) {
		l.Openers = append(l.Openers, oddString(r))
	}
	for range r.IntN(3) {
		l.StatusFields = append(l.StatusFields, oddInt(r)%5)
	}
	return l
}

func oddEnvelope(r *rand.Rand) Envelope {
	e := Envelope{
		DocID: oddString(r), Kind: stages.Kind(oddString(r)), Mode: stages.Mode(oddString(r)), AllowLLM: r.IntN(2) == 0,
		OrigChars: oddInt(r), OrigBytes: oddInt(r), OrigRef: oddString(r), Blob: oddString(r), Pass: oddString(r),
		Attempt: oddInt(r), Reports: oddReports(r), Log: oddLayout(r), Nonce: oddString(r), Budget: oddInt(r), Error: oddString(r),
	}
	if r.IntN(200) == 0 {
		// Above the report's bounds: Write drops entries.
		e.Reports = make([]pipeline.NodeReport, maxReportEntries+r.IntN(100))
		for i := range e.Reports {
			e.Reports[i] = pipeline.NodeReport{Key: stages.Key(oddString(r)), Reason: strings.Repeat(oddString(r), r.IntN(60))}
		}
	}
	return e
}

// checkWriteMatchesJSON fails unless Write sets the headers writeViaJSON
// sets, over headers that held every envelope header and one other.
func checkWriteMatchesJSON(t *testing.T, e Envelope) {
	t.Helper()
	got, want := nats.Header{}, nats.Header{}
	for _, h := range []nats.Header{got, want} {
		for _, k := range []string{HeaderBlob, HeaderPass, HeaderLog, HeaderNonce, HeaderError, HeaderBudget, HeaderReport, "Other"} {
			h.Set(k, "stale")
		}
	}
	if err := e.Write(got); err != nil {
		t.Fatal(err)
	}
	if err := writeViaJSON(e, want); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		for k := range want {
			if !reflect.DeepEqual(got[k], want[k]) {
				t.Errorf("%s:\n got %q\nwant %q", k, got[k], want[k])
			}
		}
		t.Fatalf("headers differ for %#v\n got %q\nwant %q", e, got, want)
	}
}

func TestEnvelopeWriteMatchesJSON(t *testing.T) {
	checkWriteMatchesJSON(t, benchEnvelope())
	checkWriteMatchesJSON(t, Envelope{})
	checkWriteMatchesJSON(t, Envelope{Reports: []pipeline.NodeReport{}})
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		checkWriteMatchesJSON(t, oddEnvelope(r))
	}
}

func TestEnvelopeAppendReportsMatchesJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		rs := oddReports(r)
		want, err := json.Marshal(rs)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendReports([]byte("x"), rs); string(got) != "x"+string(want) {
			t.Fatalf("%#v:\n got %s\nwant x%s", rs, got, want)
		}
	}
	// Every byte and every rune around the escaped ones, alone.
	for c := range 0x3000 {
		for _, s := range []string{string(rune(c)), string([]byte{byte(c)}), "a" + string(rune(c)) + "b"} {
			want, _ := json.Marshal(s)
			if got := appendJSONString(nil, s); string(got) != string(want) {
				t.Fatalf("%q: got %s, want %s", s, got, want)
			}
		}
	}
}

func TestEnvelopeAppendLayoutMatchesString(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		l := oddLayout(r)
		if got, want := string(appendLayout(nil, l)), l.String(); got != want {
			t.Fatalf("%#v:\n got %q\nwant %q", l, got, want)
		}
	}
}

// TestEnvelopeEncodedTypesAreKnown: appendReports and appendLayout write the
// fields below; a field added, renamed or retagged, or a type given its
// own encoding, fails here until they learn it.
func TestEnvelopeEncodedTypesAreKnown(t *testing.T) {
	for typ, want := range map[reflect.Type]string{
		reflect.TypeFor[pipeline.NodeReport](): `Key string json:"key"; CharsIn int json:"chars_in"; CharsOut int json:"chars_out"; Duration int64 json:"duration_ns"; Skipped bool json:"skipped,omitempty"; Reason string json:"reason,omitempty"; LLM ptr json:"llm,omitempty"; Redactions string json:"redactions,omitempty"; Spans map json:"-"; `,
		reflect.TypeFor[stages.LLMUsage]():     `Model string ; PromptTokens int ; CompletionTokens int ; Retries int ; CacheHit bool ; LatencyMS int64 ; Redactions string ; `,
		reflect.TypeFor[logs.Layout]():         `Analyzed bool ; Records bool ; Fields string ; ByRepeats bool ; HeaderCols int ; Openers slice ; StatusFields slice ; `,
	} {
		var got strings.Builder
		for f := range typ.Fields() {
			got.WriteString(f.Name + " " + f.Type.Kind().String() + " " + string(f.Tag) + "; ")
			for _, ft := range []reflect.Type{f.Type, reflect.PointerTo(f.Type)} {
				if ft.Implements(reflect.TypeFor[json.Marshaler]()) || ft.Implements(reflect.TypeFor[encoding.TextMarshaler]()) {
					t.Errorf("%s.%s: %s encodes itself", typ, f.Name, ft)
				}
			}
		}
		if got.String() != want {
			t.Errorf("%s fields:\n got %s\nwant %s", typ, got.String(), want)
		}
	}
}

func FuzzEnvelopeWriteMatchesJSON(f *testing.F) {
	f.Add("doc-1", "log_dedup", "nothing to fold", "kind=1", "model", "d-d-d", 65536, int64(345456), true, "orig:doc-1")
	f.Add("", "<&>", "\u2028\u2029", "\xff\xc3", "\x00\x1f\x7f", "a b=c&d", -1, int64(-1), false, "")
	f.Fuzz(func(t *testing.T, id, key, reason, redactions, model, opener string, n int, dur int64, flag bool, blob string) {
		rep := pipeline.NodeReport{Key: stages.Key(key), CharsIn: n, CharsOut: n / 2, Duration: time.Duration(dur), Skipped: flag, Reason: reason, Redactions: redactions}
		withLLM := rep
		withLLM.LLM = &stages.LLMUsage{Model: model, PromptTokens: n, CompletionTokens: -n, Retries: n % 7, CacheHit: !flag, LatencyMS: dur, Redactions: reason}
		e := Envelope{
			DocID: id, Kind: stages.Kind(key), Mode: stages.Mode(model), AllowLLM: flag, OrigChars: n, OrigBytes: int(dur),
			OrigRef: reason, Blob: blob, Pass: redactions, Attempt: n, Reports: []pipeline.NodeReport{rep, withLLM},
			Log:   logs.Layout{Analyzed: !flag || n%2 == 0, Records: flag, ByRepeats: n%3 == 0, Fields: model, HeaderCols: n % 9, Openers: []string{opener, key}, StatusFields: []int{n % 5}},
			Nonce: opener, Budget: n, Error: key,
		}
		checkWriteMatchesJSON(t, e)
		want, err := json.Marshal(e.Reports)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendReports(nil, e.Reports); string(got) != string(want) {
			t.Fatalf("got %s, want %s", got, want)
		}
	})
}

// TestEnvelopeIDChecksMatchRegexps: ValidDocID and validNonce test by hand
// what docIDRe and the nonce's pattern say.
func TestEnvelopeIDChecksMatchRegexps(t *testing.T) {
	nonceRe := regexp.MustCompile(`^[0-9a-f]{32}$`)
	r := rand.New(rand.NewPCG(7, 8))
	const alphabet = "azAZ09_-gG:. \n\x00\xff/"
	check := func(s string) {
		if got, want := ValidDocID(s), docIDRe.MatchString(s); got != want {
			t.Fatalf("ValidDocID(%q) = %v, regexp says %v", s, got, want)
		}
		if got, want := validNonce(s), nonceRe.MatchString(s); got != want {
			t.Fatalf("validNonce(%q) = %v, regexp says %v", s, got, want)
		}
	}
	for c := range 256 {
		check(string([]byte{byte(c)}))
		check(newNonce()[:31] + string([]byte{byte(c)}))
		check(strings.Repeat("a", 127) + string([]byte{byte(c)}))
	}
	for _, s := range []string{"", strings.Repeat("a", 128), strings.Repeat("a", 129), newNonce(), newNonce() + "\n", strings.ToUpper(newNonce())} {
		check(s)
	}
	for range 20000 {
		b := make([]byte, r.IntN(140))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
			if r.IntN(2) == 0 {
				b[i] = "0123456789abcdef"[r.IntN(16)]
			}
		}
		check(string(b))
		if len(b) > 32 {
			check(string(b[:32]))
		}
	}
}
