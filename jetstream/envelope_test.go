package jetstream

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats.go"
)

func TestEnvelopeRoundTripsThroughExactHeaderNames(t *testing.T) {
	in := Envelope{
		DocID: "doc-1", Kind: stages.KindLog, Mode: stages.ModeHybrid, AllowLLM: true,
		OrigChars: 1200, OrigBytes: 1250, OrigRef: "jc.original.doc-1", Blob: "orig:doc-1", Attempt: 3, Budget: 2000,
		Reports: []pipeline.NodeReport{{Key: stages.KeyDedup, CharsIn: 1200, CharsOut: 900}},
	}
	h := nats.Header{}
	if err := in.Write(h); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HeaderDocID, HeaderKind, HeaderMode, HeaderAllowLLM, HeaderOrigChars, HeaderOrigBytes, HeaderOrigRef, HeaderBlob, HeaderAttempt, HeaderReport, HeaderBudget} {
		if _, ok := h[name]; !ok {
			t.Errorf("header %s not written under its exact name (have %v)", name, h)
		}
	}
	out, err := ReadEnvelope(h)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(out, in) {
		t.Errorf("round trip:\n got %+v\nwant %+v", out, in)
	}

	lower := nats.Header{}
	for k, v := range h {
		lower[strings.ToLower(k)] = v
	}
	if _, err := ReadEnvelope(lower); !errors.Is(err, errBadEnvelope) {
		t.Errorf("lower-cased header names were read: %v", err)
	}
	for name, value := range map[string]string{HeaderDocID: "a b", HeaderKind: "yaml", HeaderMode: "turbo", HeaderAllowLLM: "maybe", HeaderOrigChars: "-1", HeaderAttempt: "x", HeaderReport: "{"} {
		bad := nats.Header{}
		for k, v := range h {
			bad[k] = v
		}
		bad.Set(name, value)
		if _, err := ReadEnvelope(bad); !errors.Is(err, errBadEnvelope) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s=%q: err = %v, want a bad envelope naming it", name, value, err)
		}
	}
	// A budget is a positive whole number of tokens, bounded; a bad one is
	// permanent, never read as "no budget".
	for _, value := range []string{"0", "-5", "x", "2000.5", " 2000", "1e9", "100000001", "99999999999999999999"} {
		bad := nats.Header{}
		for k, v := range h {
			bad[k] = v
		}
		bad.Set(HeaderBudget, value)
		if _, err := ReadEnvelope(bad); !errors.Is(err, errBadEnvelope) || !strings.Contains(err.Error(), HeaderBudget) {
			t.Errorf("%s=%q: err = %v, want a bad envelope naming it", HeaderBudget, value, err)
		}
	}
}

// TestReportIsBounded: a Jc-Report above its byte or entry bound is a bad
// envelope, and the fleet never writes one: Write drops the oldest
// entries (after the first) and says how many.
func TestReportIsBounded(t *testing.T) {
	env := Envelope{DocID: "d", OrigChars: 1, OrigBytes: 1}
	for name, reports := range map[string][]pipeline.NodeReport{
		"bytes":   {{Key: "x", Reason: strings.Repeat("r", maxReportBytes)}, {Key: "y"}, {Key: "z"}},
		"entries": make([]pipeline.NodeReport, maxReportEntries*3),
	} {
		h := nats.Header{}
		_ = env.Write(h)
		raw, _ := json.Marshal(reports)
		h.Set(HeaderReport, string(raw))
		if _, err := ReadEnvelope(h); !errors.Is(err, errBadEnvelope) || !strings.Contains(err.Error(), HeaderReport) {
			t.Errorf("%s: an oversized report was read: %v", name, err)
		}
		if name == "bytes" {
			continue // a single entry above the bound cannot be trimmed
		}
		env.Reports = reports
		h = nats.Header{}
		if err := env.Write(h); err != nil {
			t.Fatal(err)
		}
		got, err := ReadEnvelope(h)
		if err != nil {
			t.Fatalf("%s: the fleet wrote a report it cannot read: %v", name, err)
		}
		if len(got.Reports) > maxReportEntries || !strings.Contains(got.Reports[1].Reason, "dropped") {
			t.Errorf("%s: %d entries, second %+v", name, len(got.Reports), got.Reports[1])
		}
	}
}

// TestDeadLetterCopiesOnlyBoundedEnvelopeHeaders: Nats-* headers, the
// nonce and oversized values stay behind.
func TestDeadLetterCopiesOnlyBoundedEnvelopeHeaders(t *testing.T) {
	src := nats.Header{}
	src.Set("Nats-Expected-Stream", "JC_WORK")
	src.Set("Nats-Msg-Id", "x")
	src.Set(HeaderNonce, newNonce())
	src.Set(HeaderReport, strings.Repeat("r", maxDeadHeaderValueBytes+1))
	src.Set(HeaderDocID, "doc")
	src.Set("traceparent", "00-1-2-01")
	dst := nats.Header{}
	copyDeadLetterHeaders(dst, src)
	if len(dst) != 1 || dst.Get(HeaderDocID) != "doc" {
		t.Errorf("copied %v, want only %s", dst, HeaderDocID)
	}
}
