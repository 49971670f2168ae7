package pipeline

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// BenchmarkBeforeLogDedup times, on the 64 KiB log documents, what runs
// on the whole input before log_dedup: decoding, detection and the
// structured and whitespace nodes (with their protection), one
// sub-benchmark each, so that a profile of one shows its own cost.
func BenchmarkBeforeLogDedup(b *testing.B) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	for _, src := range []string{"synthetic", "loghub"} {
		docs := logDocs64KiB(256)
		if src == "loghub" {
			if docs = loghubDocs64KiB(256); docs == nil {
				continue
			}
		}
		b.Run(src, func(b *testing.B) { benchBeforeLogDedup(b, ctx, p, docs) })
	}
}

// loghubDocs64KiB is logDocs64KiB from LogHub when shared/ is found from
// a work tree beside the main one too; nil when it is not.
func loghubDocs64KiB(n int) []string {
	var src []byte
	for _, dir := range []string{"../../shared", "../../../shared"} {
		files, _ := filepath.Glob(dir + "/corpus/loghub/*/*_2k.log")
		for _, f := range files {
			b, _ := os.ReadFile(f)
			src = append(src, b...)
		}
		if len(src) >= 1<<20 {
			break
		}
		src = nil
	}
	if src == nil {
		return nil
	}
	const size = 64 << 10
	docs := make([]string, n)
	for i := range docs {
		start := (i * 7919 * 64) % (len(src) - size)
		if j := bytes.IndexByte(src[start:start+200], '\n'); j >= 0 {
			start += j + 1
		}
		docs[i] = strings.ToValidUTF8(string(src[start:start+size]), "?")
	}
	return docs
}

func benchBeforeLogDedup(b *testing.B, ctx context.Context, p *Pipeline, docs []string) {
	b.Run("Decode", func(b *testing.B) {
		b.SetBytes(64 << 10)
		for i := 0; i < b.N; i++ {
			Decode(docs[i%len(docs)])
		}
	})
	b.Run("DetectLayout", func(b *testing.B) {
		b.SetBytes(64 << 10)
		for i := 0; i < b.N; i++ {
			stages.DetectLayout(docs[i%len(docs)])
		}
	})
	for _, k := range []stages.Key{stages.KeyStructured, stages.KeyWhitespace} {
		ins := make([]stages.Input, len(docs))
		for i, d := range docs {
			ins[i], _ = p.Prepare(Request{Text: d})
		}
		b.Run(string(k), func(b *testing.B) {
			b.SetBytes(64 << 10)
			for i := 0; i < b.N; i++ {
				if _, err := p.nodes[k].Apply(ctx, ins[i%len(ins)]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
