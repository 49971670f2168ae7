package logs

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// logDocs64KiB cuts n documents of 64 KiB from the LogHub sample, as
// the pipeline's BenchmarkPipelineLog64KiB does; nil without it.
func logDocs64KiB(n int) []string {
	var src []byte
	files, _ := filepath.Glob("../../../shared/corpus/loghub/*/*_2k.log")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		src = append(src, b...)
	}
	const size = 64 << 10
	if len(src) < 1<<20 {
		return nil
	}
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

// BenchmarkAnalyzeLog64KiB is Analyze on the documents of
// BenchmarkPipelineLog64KiB.
func BenchmarkAnalyzeLog64KiB(b *testing.B) {
	docs := logDocs64KiB(256)
	if docs == nil {
		b.Skip("no LogHub sample")
	}
	b.SetBytes(64 << 10)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		Analyze(docs[i%len(docs)])
	}
}
