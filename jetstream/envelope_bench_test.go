package jetstream

import (
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/stages/logs"
	"github.com/nats-io/nats.go"
)

// benchEnvelope is a fused worker's result envelope for a 64 KiB log
// (benchDoc) run through the default pipeline.
func benchEnvelope() Envelope {
	skipped := func(k stages.Key, in, ns int, reason string) pipeline.NodeReport {
		return pipeline.NodeReport{Key: k, CharsIn: in, CharsOut: in, Duration: time.Duration(1000 * ns), Skipped: true, Reason: reason}
	}
	return Envelope{
		DocID: "w1000-17", Kind: stages.KindLog, Mode: stages.ModeAlgorithmic,
		OrigChars: 65536, OrigBytes: 65536, OrigRef: "jc.original.w1000-17",
		Log: logs.Layout{Analyzed: true, Records: true, HeaderCols: 2, Openers: []string{"d-d-d"}},
		Reports: []pipeline.NodeReport{
			skipped("structured", 65536, 67, "nothing to fold"),
			skipped("dedup", 65536, 1, "logs are left to log_dedup"),
			skipped("whitespace", 65536, 15, "nothing to trim"),
			{Key: "log_dedup", CharsIn: 65536, CharsOut: 146, Duration: 345456},
			skipped("near_dup", 146, 7, "no near duplicates"),
			{Key: "number_normalize", CharsIn: 146, CharsOut: 145, Duration: 16180},
			skipped("stopwords", 145, 0, "disabled in config"),
			skipped("keywords", 145, 1, "no lines to fold"),
			skipped("headtail", 145, 0, "shorter than min_lines"),
			skipped("redact", 145, 0, "disabled in config"),
			skipped("llm_summary", 145, 0, "disabled in config"),
		},
	}
}

func BenchmarkEnvelopeWrite(b *testing.B) {
	env := benchEnvelope()
	b.ReportAllocs()
	for b.Loop() {
		if err := env.Write(make(nats.Header)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEnvelopeRead(b *testing.B) {
	h := make(nats.Header)
	if err := benchEnvelope().Write(h); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadEnvelope(h); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEnvelopeReadFirstHop reads what a fused worker gets: the
// publisher's hop, which carries the nonce and no reports.
func BenchmarkEnvelopeReadFirstHop(b *testing.B) {
	h := make(nats.Header)
	env := Envelope{DocID: "w1000-17", OrigChars: 65536, OrigBytes: 65536, OrigRef: "jc.original.w1000-17", Blob: "orig:w1000-17", Nonce: "0123456789abcdef0123456789abcdef"}
	if err := env.Write(h); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ReadEnvelope(h); err != nil {
			b.Fatal(err)
		}
	}
}
