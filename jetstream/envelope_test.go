package jetstream

import (
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
		OrigChars: 1200, OrigBytes: 1250, OrigRef: "jc.original.doc-1", Blob: "orig:doc-1", Attempt: 3,
		Reports: []pipeline.NodeReport{{Key: stages.KeyDedup, CharsIn: 1200, CharsOut: 900}},
	}
	h := nats.Header{}
	if err := in.Write(h); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{HeaderDocID, HeaderKind, HeaderMode, HeaderAllowLLM, HeaderOrigChars, HeaderOrigBytes, HeaderOrigRef, HeaderBlob, HeaderAttempt, HeaderReport} {
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
}
