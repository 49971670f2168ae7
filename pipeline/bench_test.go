package pipeline

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// benchLog is a realistic multi-megabyte log: the LogHub Proxifier log from
// ../shared/corpus when present, else a synthetic service log of ~4 MB.
func benchLog(b *testing.B) []byte {
	b.Helper()
	if data, err := os.ReadFile("../../shared/corpus/logs_large/loghub_full/Proxifier_full.log"); err == nil {
		return data
	}
	return syntheticLog(4 << 20)
}

func syntheticLog(size int) []byte {
	r := rand.New(rand.NewPCG(1, 2))
	levels := []string{"INFO", "INFO", "INFO", "DEBUG", "WARN", "ERROR"}
	msgs := []string{
		"connection from 10.%d.%d.%d:%d accepted",
		"request %d served in %dms status=200 path=/api/v1/items/%d",
		"cache miss for key user:%d:profile, loading from db shard %d",
		"retrying upstream call attempt=%d backoff=%dms",
		"failed to open /var/lib/app/segment-%d.dat: permission denied (errno %d)",
		"gc pause %dms heap=%dMB",
	}
	var buf bytes.Buffer
	for i := 0; buf.Len() < size; i++ {
		m := r.IntN(len(msgs))
		fmt.Fprintf(&buf, "2024-03-%02d %02d:%02d:%02d.%03d %s [worker-%d] ", 1+i/86400%28, i/3600%24, i/60%60, i%60, r.IntN(1000), levels[m], r.IntN(16))
		fmt.Fprintf(&buf, msgs[m], r.IntN(255), r.IntN(255), r.IntN(255), r.IntN(65535))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

func benchJSON() []byte {
	var b strings.Builder
	b.WriteString(`{"data":[`)
	for i := 0; b.Len() < 4<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"id":%d,"login":"user%d","url":"https://api.example.com/users/%d","site_admin":false,"score":%d.5,"tags":["a","b","c"],"profile":{"bio":"text %d","followers":%d}}`, i, i, i, i%100, i, i*3)
	}
	b.WriteString(`],"total":1}`)
	return []byte(b.String())
}

// benchJSONLines is a ~4 MB JSON-lines service log (zap and slog style:
// a message, a level and variable fields).
func benchJSONLines() []byte {
	r := rand.New(rand.NewPCG(3, 4))
	levels := []string{"info", "info", "info", "debug", "warn", "error"}
	msgs := []string{"request served", "cache miss", "retrying upstream call", "user logged in", "gc pause", "job finished"}
	var buf bytes.Buffer
	for i := 0; buf.Len() < 4<<20; i++ {
		m := r.IntN(len(msgs))
		fmt.Fprintf(&buf, `{"level":%q,"ts":"2024-03-%02dT%02d:%02d:%02d.%03dZ","caller":"svc/handler.go:%d","msg":%q,"request_id":"%08x-%04x","user":"user%d","duration_ms":%d,"path":"/api/v1/items/%d"}`,
			levels[m], 1+i/86400%28, i/3600%24, i/60%60, i%60, r.IntN(1000), 40+m*7, msgs[m], r.Uint32(), r.IntN(1<<16), r.IntN(500), r.IntN(3000), r.IntN(100000))
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// BenchmarkPipelineJSONLines runs the whole algorithmic pipeline on a
// JSON-lines log. Compare with BenchmarkBytesCountJSONLines.
func BenchmarkPipelineJSONLines(b *testing.B) { benchPipeline(b, benchJSONLines()) }

// BenchmarkBytesCountJSONLines is the floor for the JSON-lines log.
func BenchmarkBytesCountJSONLines(b *testing.B) { benchCount(b, benchJSONLines()) }

func benchPipeline(b *testing.B, data []byte) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	text := string(data)
	ctx := context.Background()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	var out int
	for i := 0; i < b.N; i++ {
		res, err := p.CompactAlgorithmic(ctx, text)
		if err != nil {
			b.Fatal(err)
		}
		out = len(res.Text)
	}
	b.ReportMetric(float64(out)/float64(len(data)), "ratio")
}

// BenchmarkPipelineLog runs the whole algorithmic pipeline on a log.
// Compare with BenchmarkBytesCountLog, one bytes.Count pass over the same input.
func BenchmarkPipelineLog(b *testing.B) { benchPipeline(b, benchLog(b)) }

// BenchmarkPipelineLogSize is issue 12's linearity bar: the generated
// service log at 1, 2, 4 and 8 MiB. Doubling the input may cost at most
// 2.2x the time: compare ns/op of neighbouring sizes (MB/s should stay flat).
func BenchmarkPipelineLogSize(b *testing.B) {
	for _, mib := range []int{1, 2, 4, 8} {
		data := syntheticLog(mib << 20)
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			benchPipeline(b, data)
		})
	}
}

// BenchmarkPipelineJSON runs the whole algorithmic pipeline on a JSON payload.
// Profile (callgrind, Dec 2026; scripts/benchinstr.sh -b 'PipelineJSON$'
// -1 1 -2 3: 441M instructions/op, 537M when Detect and the fold each
// tokenized the document): Detect's validating walk, which records the
// token tape the fold reads (walkTape, stringLit, number, tapeKey) ~36%,
// the schema merge (jsonFolder.scan, field) ~15%, the array walk's field
// statistics (arrayWalk.field, fieldStats.add, numberValue) ~10%, the
// fold reading the tape (tapeMember, tapeNext) ~9%, the outlier pass
// (arrayWalk.picks, fieldRarity) ~6%, controlBytes ~2%.
func BenchmarkPipelineJSON(b *testing.B) { benchPipeline(b, benchJSON()) }

func benchCount(b *testing.B, data []byte) {
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if bytes.Count(data, []byte{'\n'}) < 0 {
			b.Fatal()
		}
	}
}

// BenchmarkBytesCountLog is the floor: one bytes.Count pass over the log.
func BenchmarkBytesCountLog(b *testing.B) { benchCount(b, benchLog(b)) }

// BenchmarkBytesCountJSON is the floor for the JSON payload.
func BenchmarkBytesCountJSON(b *testing.B) { benchCount(b, benchJSON()) }

// logDocs64KiB cuts 64 KiB documents at line starts from the LogHub samples
// in ../shared/corpus, as cmd/fleetbench does, else from a synthetic log.
func logDocs64KiB(n int) []string {
	var src []byte
	files, _ := filepath.Glob("../../shared/corpus/loghub/*/*_2k.log")
	for _, f := range files {
		b, _ := os.ReadFile(f)
		src = append(src, b...)
	}
	if len(src) < 1<<20 {
		src = syntheticLog(4 << 20)
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

// BenchmarkNodesLog64KiB splits BenchmarkPipelineLog64KiB's cost by node,
// as each node's report times it: one metric per node that ran, in
// microseconds a document, and "outside-us" for detection, decoding and
// the guard. Compare nodes with scripts/benchcmp.sh -b NodesLog64KiB.
func BenchmarkNodesLog64KiB(b *testing.B) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	docs := logDocs64KiB(256)
	ctx := context.Background()
	perNode := map[stages.Key]time.Duration{}
	var inNodes time.Duration
	b.SetBytes(64 << 10)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		res, err := p.CompactAlgorithmic(ctx, docs[i%len(docs)])
		if err != nil {
			b.Fatal(err)
		}
		for _, n := range res.Report.Nodes {
			perNode[n.Key] += n.Duration
			inNodes += n.Duration
		}
	}
	elapsed := time.Since(start)
	perDoc := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(b.N) }
	for k, d := range perNode {
		if d > 0 {
			b.ReportMetric(perDoc(d), string(k)+"-us")
		}
	}
	b.ReportMetric(perDoc(elapsed-inNodes), "outside-us")
}

// BenchmarkPipelineLog64KiB is the per-document cost a fused fleet worker
// pays: the whole pipeline, detection included, on 64 KiB log documents.
//
// Profile (issue 19), GOMAXPROCS=1. On a loaded box, count instructions
// (scripts/benchinstr.sh; callgrind for the split by function); else
//
//	go test -run '^$' -bench 'PipelineLog64KiB|PipelineLog$|PipelineJSONLines|PipelineJSON$' \
//	    -benchtime 3x -cpuprofile /tmp/speed.cpu ./pipeline
//	go tool pprof -top -nodecount 30 /tmp/speed.cpu
//
// Top entries at 4351c3b: pprof (2 s, cumulative) for Log64KiB; for the
// others callgrind's self instructions, pprof having too few samples on
// the loaded box:
//
//	Log64KiB:  log_dedup mine 36%, tokenize 19% (wordHash 7%), templates.add
//	           10%, whitespace 9%, headerStats 7.5%, rawSignal 7%
//	Log:       tokenize 23%, MayHaveFence 11% (IndexByte on every '-' of
//	           "--git "), indexbyte 10%, wordHash 6%, controlBytes 5%
//	JSONLines: scanJSONObject 12%, tokenize 8.5%, maskToken 5.6%,
//	           controlBytes 4.6%, pathShape 3%
//	JSON:      structured_json's jsonSource (stringLit 13%, next 12%),
//	           simdjson 8%, isStatusField 4.4%, controlBytes 2.2%
//
// Removed since (instructions per op, valgrind, 4351c3b -> 3b660a7):
// MayHaveFence looks at line starts first; controlBytes one bounds check
// and one lookup per byte below 0x20; tokenize one class lookup per token
// start and wordHash's short tail in two loads. Log 273.1M -> 233.9M
// (-14%), Log64KiB 9.14M -> 8.24M (-10%), JSONLines 362.1M -> 309.7M
// (-14%), JSON 884.2M -> 876.0M (-1%). Then headerStats' counts in one
// table add a byte: Log64KiB -4% more (docs 20-100: 8.85M -> 8.48M).
//
// Then (98bed38 -> 4d83451, instructions per op, GOGC=off scripts/benchinstr.sh
// so that GC pacing does not add noise): the whitespace node finds tabs
// and double blanks once over the text, not per line; templates keep
// their first record's token spans instead of tokenizing it again; slot
// values are counted by hash; JSON strings skip plain ASCII eight bytes a
// step; isStatusField is asked once per field. Log 236.5M -> 216.2M
// (-8.6%), Log64KiB 8.39M -> 8.09M (-3.6%), JSONLines 310.3M -> 292.1M
// (-5.9%), JSON 1361.8M -> 1103.9M (-19%).
//
// Top entries now (callgrind, self instructions as a share of the
// pipeline's, set-up left out):
//
//	Log64KiB:  tokenize 14%, headerStats 7.6%, IndexByte 6.2% (every node
//	           splits lines; Protect's line starts), appendShape 3%,
//	           maskToken 3%, templates.add 2.5%, controlBytes 2.3%,
//	           wordHash 2.3%
//	Log:       tokenize 21%, IndexByte 5.5%, templates.add 4.7%, wordHash
//	           3.9%, controlBytes 3.2%, appendShape 3.1%, mergeVariants 2.1%
//	JSONLines: tokenize 11%, JSON string scan (quoteOrBackslash,
//	           jsonStringEnd) 8.6%, scanJSONObject 7.8%, pathShape 4.8%,
//	           maskToken 4.7%, fieldTokens' visit 4.7%, IndexByte 4.6%
//	JSON:      jsonSource.next 15%, stringLit 12.5%, simdjson's stage 2
//	           5.3%, jsonSource.value 4.3%, skipValidated 3.8%, field-name
//	           map lookups 3.4%, float parsing 3.3%, walkItems 3.2%
//
// Then (c33a2ec -> speedlog, GOGC=off scripts/benchinstr.sh): a slot's
// distinct values in an open-addressing hash set, not a map; a run's
// fence memo (stages.WithRunMemo) spares Protect's scan when a node
// left a region-free text unchanged; Markdown-chat detection skips its
// line read without a line opening with '#' or '*'; the layout counts
// head shapes and picks opener heads by a short scan, not maps;
// mergeVariants sizes its maps once. Log64KiB 8.14M -> 7.63M (-6.2%),
// Log 217.5M -> 205.7M (-5.4%), JSONLines 298.1M -> 280.8M (-5.8%).
//
// Top entries at speedlog (callgrind, Log64KiB, self instructions as a
// share of Pipeline.Run's, 61 ops): tokenize 15.9%, headerStats 8.7%,
// IndexByte 6.4%, appendShape 3.3%, maskToken 3.3%, templates.add 2.9%,
// controlBytes 2.6%, wordHash 2.6%, strings.Index 2.2%, foldBase64 1.9%.
//
// Then (eb51a14 -> 0d340e4): a numeric slot's distinct values are counted
// only when its summary shows a count; the header-column merge counts
// sorted pairs, not maps. 938 -> 592 allocs/op; slotStat.add 15% -> 3% of
// the wall profile. On a quiet box, GOMAXPROCS=1, default benchtime:
// Log64KiB 88 MB/s, Log 110-112, JSONLines 210-213, JSON 189-193.
// Wall profile now (pprof, 5000 ops): log_dedup mine 42% (templateTokens
// 15%, templates.add 12%), AnalyzeLog 12%, keywords 8.5%, neardup 6.6%,
// number_normalize 6.1%, Detect 5.3%, whitespace 5%; flat: IndexByte 9%
// (every node splits lines), tokenize 9%, headerStats 5%, memclr and
// memmove 8.5% (fresh memory is dear on this VM: with GOGC=off the
// benchmark runs 3x slower), wordHash 3.7%.
//
// Then (4a18be0 -> this round, all byte-identical): headerStats reads
// column by column and stops once the header is settled; two text-wide
// searches that stopped at every line break look for rarer bytes
// (mayBeMarkdownChat 11.0 -> 3.1 us, the step filter 33.5 -> 14.8 us a
// document); failingTails reads steps only when a line reports a failing
// exit (16.9 -> 6.0 us); Decode counts characters while it validates;
// 595 -> 512 allocations. Default GOMAXPROCS, interleaved, on a box whose
// speed drifts by 15%: best of 6, 85.8 -> 89.7 MB/s; on a quiet spell
// Log64KiB 92-99, Log 98-116, JSONLines 184-204. Wall profile now (pprof,
// 6000 ops, cumulative): log_dedup 38.5% (template tokens 15.6%,
// templates.add 9.5%), prepare 16.7% (Analyze 11.8%, Detect 3%),
// keywords 10.7%, mallocgc 8.1%, number_normalize 6.5%, whitespace 5.6%,
// near_dup 5.3%, structured 3.9%; flat: IndexByte 9% (each node splits
// lines), tokenize 8.1%, headerStats 5.8%, memmove 3.7%, maskToken 3%.
//
// Then (fde716f -> d5b5d81): count lines found from their last '[' (-0.7%
// instructions); then fidelity rules for MAC/IPv6 addresses, host names,
// e-mail addresses and generated names in tokenize (+4%). GOGC=off
// scripts/benchinstr.sh -1 100 -2 356: 7.94M -> 8.22M instructions per
// document. Top self costs now (callgrind): tokenize 13.6%, readColumn
// 5%, indexbytebody 4.4%, maskToken 3.2%, appendShape 2.6%,
// templates.add 2.1%, wordHash 1.9%, controlBytes 1.8%.
//
// Then (30d1e8c -> 50a1fb6): appendShape, pathShape, the warning template
// and the assertion words got cheaper (8.23M -> 8.03M instructions per
// document, 512 -> 393 allocations); fidelity rules for bracketed lists,
// one-word routes and access logs spent 1.4% of it again (8.15M). Wall
// clock, interleaved (scripts/benchcmp.sh -n 6 -t 2s), on a slow spell of
// this VM: 91.8 -> 92.5 MB/s, within noise; on quiet spells the same
// binary ran 96-104 MB/s. Top self costs (callgrind): tokenize 15%,
// readColumn 5.5%, indexbytebody 4.8%, maskToken 3.5%, templates.add
// 2.4%, appendShape 2.2%, wordHash 2.1%, controlBytes 2%.
//
// Then (33cfb4f -> e1fe598): keywords reads the record keys
// number_normalize counted (stages.WithRunMemo) and headerStats stops a
// column once it is decided, -2.9%; the fidelity rules for lists,
// grouped numbers, trace ids and quoted words cost +2.3% on this log,
// +5.8% on BenchmarkPipelineLog (commas on every line), +1.2% on
// JSONLines. GOGC=off scripts/benchinstr.sh: Log64KiB 8.12M -> 8.06M,
// Log 206.7M -> 218.7M, JSONLines 283.6M -> 287.0M, JSON 369.1M ->
// 370.3M. Wall clock, interleaved, GOMAXPROCS=1 (scripts/benchcmp.sh -n
// 6 -t 2s), on a slow spell: Log64KiB 87.0 -> 87.0 MiB/s, Log 126 -> 120
// (+-6-8%), JSONLines 180 -> 187, JSON 182 -> 184; on a quicker one,
// before the headerStats change, Log64KiB 96.7 -> 94.1 (+-6-9%). Wall
// profile (cumulative):
// log_dedup 42%, keywords 9.7%, Analyze 9.5%, number_normalize 7.7%,
// whitespace 5.8%, near_dup 4.8%, structured 4.5%, Detect 4%.
//
// Then (428138d -> d2ac65c): log_dedup seeds the record keys of the lines
// it writes (seedRecordKeys), repeats are tied once a template, and
// controlBytes reads two words a step; twelve fidelity rules spent about
// as much again. GOGC=off scripts/benchinstr.sh -1 30 -2 130: 8.47M ->
// 8.44M instructions. Interleaved, GOMAXPROCS=1: Log64KiB 98.7 -> 97.8
// MiB/s (p=0.39); idle runs 103-108 MB/s. Top self costs (callgrind):
// tokenize 16%, indexbytebody 6%, readColumn 4%, templates.add 3%,
// maskToken 3%, appendShape 2.5%, wordHash 2.3%.
//
// Then (a872784 -> e5f3940), Dec 3, idle: 110 MB/s. Per document (616 us
// at 106 MB/s, the nodes' own reports): outside the nodes about 110 us
// (Analyze 55, Detect 22, Decode 12), structured 30, whitespace 40,
// log_dedup 310 (tokenize 118, templates.add 66, summaries 30, write
// 22), near_dup 37, number_normalize 33, keywords 55; the last three
// read only log_dedup's 5 KB, at 6-10 ns a byte. Of five fidelity rules
// (status fields, '&', ideographs, escapes, quoted names) only the
// ideograph cut cost measurably: -0.7% (benchcmp -n 6, p=0.041).
//
// Then (Dec 3, later): keywords reads a rare record's own signal only
// when a fold is possible (+7.2%), the bare-request probe searches for
// slashes (+2.7%), and the worker and publisher ship built with
// profile-guided optimization (cmd/worker/default.pgo, scripts/pgo.sh);
// built with it (go test -pgo=$PWD/cmd/worker/default.pgo, as
// scripts/benchcmp.sh does), Log64KiB +5.7%, Log +6.7%, JSONLines +8.3%,
// JSON +4.7% (benchcmp -n 6, p=0.002 each).
//
// Then (cad7ef0 -> 586399b, Dec 3, third session): log_dedup takes a
// record line's tokens from an earlier line of the same digit shape
// (stages/logs tokenMemo: 84% of these documents' record lines repeat
// one), Tok is back to four fields, near_dup, number_normalize and
// keywords read their lines once, structured decides a log has nothing
// to fold in one pass, Detect searches escapes a window at a time.
// benchinstr (GOGC=off): Log64KiB 8.11M -> 5.75M (-29%; 6.31M with the
// log_dedup changes alone), Log 243.2M -> 154.4M, JSONLines 319.3M ->
// 251.4M, JSON 358.6M -> 358.7M. Interleaved (benchcmp -n 5 -t 2s): Log64KiB -18.5% time
// (p=0.032), 95-108 MB/s alone. Top self costs now: indexbytebody 9.5%
// (line splitting across nodes), memclr 4%, recordSimTokens 3%,
// memmove 2.9%, tokenize 2.3% (6.6% cumulative), appendDigitShape 4.3%
// cumulative, readColumn 2.5%, foldTokenIDs 1.8%.
//
// Then (60d06c4 -> 5c77932, Dec 4): the run memo carries the line index
// between nodes, mining keeps its token memos across passes, groups are
// keyed once, and many per-line gates got cheaper; output byte-identical.
// benchinstr: 4.64M -> 3.85M (-17%). Interleaved (benchcmp -n 5 -t 2s, with
// each tree's default.pgo): 524.5 -> 431.6 us a document (-17.7%,
// p=0.032), about 152 MB/s. CPU profile now (GOMAXPROCS=1, pprof -top):
// log_dedup 51% cumulative (mineTemplates 40%), prepare 16% (Analyze
// 10%), mallocgc 9.4%, number_normalize and whitespace 7% each, near_dup
// 6.7%; self: indexbytebody 6.3% (line cutting everywhere),
// recordTokenHash 2.6%, memmove 2.6%, digitShapeHash 2.2%, tokenize 2%.
//
// Then (a80ed40 -> be9c016, Dec 4 evening): shape lookups try the shape
// last seen at the line's length, the token memo keeps its slices, the
// analysis and the template post-pass skip work that cannot change the
// answer, whitespace reads lines off the index, near_dup hashes a line in
// one loop, lineSignal passes over words no table holds; byte-identical.
// benchinstr: 4.26M -> 3.97M (-6.7%); allocs/op 249 -> 237. CPU profile
// (GOMAXPROCS=1, cumulative): log_dedup 59%, mineTemplates 46% (token
// memo 18%, addKeyed 14%), prepare 14% (Analyze 9%), mallocgc 10%,
// whitespace 8%; self: indexbytebody 6%, memmove 4.7%, memclr 3.7%,
// digitShapeWords 2.7%, tokenize 2%.
func BenchmarkPipelineLog64KiB(b *testing.B) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		b.Fatal(err)
	}
	docs := logDocs64KiB(256)
	ctx := context.Background()
	b.SetBytes(64 << 10)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := p.CompactAlgorithmic(ctx, docs[i%len(docs)]); err != nil {
			b.Fatal(err)
		}
	}
}
