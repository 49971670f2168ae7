package logs

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// memoLinePieces are the constructs tokenize treats apart, with digits
// in them: numbers and clocks, hex literals and ids, paths and a host
// written twice around a slash, lists, quoted phrases, escapes, CJK next
// to ASCII, MAC addresses, dashed ids and grouped numbers.
var memoLinePieces = []func(r *rand.Rand) string{
	func(r *rand.Rand) string { return fmt.Sprintf("%d", r.IntN(100000)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("2024-0%d-1%d 1%d:0%d:3%d,%03d", r.IntN(9)+1, r.IntN(9), r.IntN(9), r.IntN(9), r.IntN(9), r.IntN(1000))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("0x%x", r.IntN(1<<20)) },
	func(r *rand.Rand) string { return fmt.Sprintf("%dx%x", r.IntN(10), r.IntN(1<<12)) },
	func(r *rand.Rand) string { return fmt.Sprintf("/api/v%d/users/%d/orders", r.IntN(3), r.IntN(1000)) },
	func(r *rand.Rand) string { return fmt.Sprintf("web-%d/web-%d", r.IntN(3), r.IntN(3)) },
	func(r *rand.Rand) string { return fmt.Sprintf("a%d/a%d", r.IntN(2), r.IntN(2)) },
	func(r *rand.Rand) string { return fmt.Sprintf("%d/%d", r.IntN(3), r.IntN(3)) },
	func(r *rand.Rand) string { return fmt.Sprintf("[p%d, p%d, q%d]", r.IntN(9), r.IntN(9), r.IntN(9)) },
	func(r *rand.Rand) string { return fmt.Sprintf("for \"red shoes v%d\" returned", r.IntN(9)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf(`msg=\"look up h%d/h%d now\" then`, r.IntN(2), r.IntN(2))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("\x1b[%dmnode-%d\x1b[0m", 30+r.IntN(8), r.IntN(5)) },
	func(r *rand.Rand) string { return fmt.Sprintf("用户u%d登录", r.IntN(99)) },
	func(r *rand.Rand) string { return fmt.Sprintf("用户%d/用户%d", r.IntN(2), r.IntN(2)) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("fa:16:3e:%02x:%02x:%02x", r.IntN(256), r.IntN(256), r.IntN(256))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("req-%08x-1a2b-4c3d-8e9f-%012x", r.Uint32(), r.Uint64()&(1<<48-1))
	},
	func(r *rand.Rand) string {
		return fmt.Sprintf("processed %d,%03d,%03d rows", r.IntN(9), r.IntN(1000), r.IntN(1000))
	},
	func(r *rand.Rand) string { return fmt.Sprintf("user_%d=blk_-%d", r.IntN(9), r.Int64()) },
	func(r *rand.Rand) string {
		return fmt.Sprintf("evicted k%d, k%d, k%d", r.IntN(9), r.IntN(9), r.IntN(9))
	},
	func(r *rand.Rand) string {
		return []string{"INFO", "session", "opened", "for", "user", "alice", "db.internal", "web-kgkxttbzrl-sxsxk", "Mon", "(main)", "x=1", "a,b"}[r.IntN(12)]
	},
}

// digitVariant returns line with some of its digits given other values:
// none, all, or each with a chance; the same shape, other values.
func digitVariant(r *rand.Rand, line string) string {
	b := []byte(line)
	mode := r.IntN(4)
	for i, c := range b {
		if c < '0' || c > '9' {
			continue
		}
		switch {
		case mode == 0:
		case mode == 1:
			b[i] = '0'
		default:
			if r.IntN(2) == 0 {
				b[i] = byte('0' + r.IntN(10))
			}
		}
	}
	return string(b)
}

// TestTokenMemoMatchesTokenize checks the memo's promise on generated
// records and digit variants of them: every line gets exactly the tokens
// tokenize and joinLists give it alone, hit or miss.
func TestTokenMemoMatchesTokenize(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	m, plain := newTokenMemo(), getTokenMemo(tokenize)
	var bases []string
	for range 300 {
		var parts []string
		for range 2 + r.IntN(7) {
			parts = append(parts, memoLinePieces[r.IntN(len(memoLinePieces))](r))
		}
		sep := []string{" ", " ", ", ", " | ", "="}[r.IntN(5)]
		bases = append(bases, strings.Join(parts, sep))
	}
	hits := 0
	for n := range 20000 {
		line := digitVariant(r, bases[r.IntN(len(bases))])
		m.off, plain.off = false, false // three lines in four hold a value read: kept on to test every line
		before := m.hits
		got := m.lineTokens(line, nil)
		want := lineTokens(line, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("line %d %q: memo gave %v, tokenize %v", n, line, got, want)
		}
		if got, want := plain.lineTokens(line, nil), tokenize(line, nil); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("line %d %q: the tokenize memo gave %v, tokenize %v", n, line, got, want)
		}
		hits += m.hits - before
	}
	if hits < 2000 {
		t.Fatalf("%d hits in 20000 lines of 300 shapes: the memo is not used", hits)
	}
}

// TestTokenMemoValueReads pins the decisions that read a digit's value:
// a line whose tokens would change with them is never reused.
func TestTokenMemoValueReads(t *testing.T) {
	for _, pair := range [][2]string{
		{"read 0x1f bytes", "read 5x1f bytes"},
		{"relay web-1/web-1 up", "relay web-1/web-2 up"},
		{"from web-2 relay web-2/web-2", "from web-2 relay web-3/web-3"},
		{`say \"look a1/a1 now\" ok`, `say \"look a1/a2 now\" ok`},
		{"keys a1/a1, b", "keys a1/a2, b"},
	} {
		m := newTokenMemo()
		m.lineTokens(pair[0], nil)
		got, want := m.lineTokens(pair[1], nil), lineTokens(pair[1], nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("%q after %q: memo gave %v, tokenize %v", pair[1], pair[0], got, want)
		}
		if m.hits != 0 {
			t.Errorf("%q after %q: reused", pair[1], pair[0])
		}
	}
}

// TestTokenMemoStopsOnDistinctShapes: a text whose lines never repeat a
// shape turns the memo off after its probe, and its lines still get
// their own tokens.
func TestTokenMemoStopsOnDistinctShapes(t *testing.T) {
	m := newTokenMemo()
	for i := range 3 * 1024 {
		line := fmt.Sprintf("event %s happened %d", strings.Repeat("x", i%97+1)+strings.Repeat("y", i/97+1), i)
		if got, want := m.lineTokens(line, nil), lineTokens(line, nil); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q: memo gave %v, tokenize %v", line, got, want)
		}
	}
	if !m.off {
		t.Fatalf("memo still on after %d lookups, %d hits", m.lookups, m.hits)
	}
}

// FuzzTokenMemo: a line and a digit variant of it get, through one memo,
// the tokens tokenize gives each alone.
func FuzzTokenMemo(f *testing.F) {
	f.Add("read 0x1f bytes from web-1/web-1", uint64(1))
	f.Add(`say \"look a1/a1 now\" ok, k1, k2`, uint64(2))
	f.Add("2024-01-02 10:00:01 INFO [p1, p2] 用户u1登录 /api/v1/x", uint64(3))
	f.Fuzz(func(t *testing.T, line string, seed uint64) {
		if len(line) > maxTemplateBytes {
			return
		}
		r := rand.New(rand.NewPCG(seed, 25))
		m := newTokenMemo()
		for _, l := range []string{line, digitVariant(r, line), digitVariant(r, line)} {
			if got, want := m.lineTokens(l, nil), lineTokens(l, nil); fmt.Sprint(got) != fmt.Sprint(want) {
				t.Fatalf("%q: memo gave %v, tokenize %v", l, got, want)
			}
		}
	})
}

// TestTokenMemoFieldValues: JSON-lines and logfmt records, whose field
// values go through the memo one by one, get the template tokens they
// get without it, on digit variants of generated records.
func TestTokenMemoFieldValues(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 27))
	keys := []string{"ts", "level", "msg", "user", "path", "trace_id", "dur", "attrs", "tags", "host"}
	var bases []string
	for n := range 200 {
		var pairs []string
		for range 2 + r.IntN(6) {
			k := keys[r.IntN(len(keys))]
			v := memoLinePieces[r.IntN(len(memoLinePieces))](r)
			if n%2 == 0 {
				pairs = append(pairs, fmt.Sprintf("%q:%q", k, v))
			} else {
				pairs = append(pairs, fmt.Sprintf("%s=%q", k, v))
			}
		}
		if n%2 == 0 {
			if r.IntN(3) == 0 {
				pairs = append(pairs, fmt.Sprintf(`"attrs":{"node":"n%d","n":%d}`, r.IntN(9), r.IntN(99)))
			}
			bases = append(bases, "{"+strings.Join(pairs, ",")+"}")
		} else {
			bases = append(bases, strings.Join(pairs, " "))
		}
	}
	memos := map[string]*tokenMemo{FieldsJSON: newTokenMemo(), FieldsLogfmt: newTokenMemo()}
	for n := range 10000 {
		i := r.IntN(len(bases))
		lay := Layout{Fields: FieldsJSON}
		if i%2 == 1 {
			lay.Fields = FieldsLogfmt
		}
		line := digitVariant(r, bases[i])
		got := lay.templateTokens(line, nil, memos[lay.Fields])
		want := lay.TemplateTokens(line, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("line %d %q: memo gave %v, without %v", n, line, got, want)
		}
	}
	if memos[FieldsJSON].hits == 0 || memos[FieldsLogfmt].hits == 0 {
		t.Fatalf("no hits: JSON %d, logfmt %d", memos[FieldsJSON].hits, memos[FieldsLogfmt].hits)
	}
}

// TestTokenMemoStaysOnRepeatingShapes: a service log of 40 templates,
// whose records differ in their numbers, keeps the memo on and hits on
// most lines after each template's first.
func TestTokenMemoStaysOnRepeatingShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(28, 29))
	var templates []string
	for i := range 40 {
		templates = append(templates, fmt.Sprintf("2024-03-01 10:00:00,000 INFO [worker-0] step%c request 0 took 00ms for user u000 on /api/v0/items/0000 #%d", 'a'+i%26, i))
	}
	m := newTokenMemo()
	for range 2000 {
		m.lineTokens(digitVariant(r, templates[r.IntN(len(templates))]), nil)
	}
	if m.off || m.hits < 1800 {
		t.Fatalf("memo off %v, %d hits in %d lines of 40 shapes", m.off, m.hits, m.lookups)
	}
}

// mineWrite mines text as log_dedup does and returns what it writes.
func mineWrite(t *testing.T, text string) string {
	t.Helper()
	x := textkit.NewLineIndex(text)
	m, err := Mine(context.Background(), x, Analyze(text), 3, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := m.Write(x)
	return out
}

// TestMineSameWithoutMemo: mining gives the same text with the memo and
// without it, on generated logs of three syntaxes whose records (and
// stack traces) repeat their shapes with other digits (value reads
// among them), and on the
// LogHub sample when ../shared is there.
func TestMineSameWithoutMemo(t *testing.T) {
	for i, doc := range mineTestDocs(t) {
		with := mineWrite(t, doc)
		useTokenMemo = false
		without := mineWrite(t, doc)
		useTokenMemo = true
		if with != without {
			t.Fatalf("document %d: mined text differs with the memo (%d bytes) and without (%d bytes)", i, len(with), len(without))
		}
	}
}

// TestMineSameWithPooledArenas: a document mined on the arenas another
// document left in the pool (larger and smaller ones, in turn) gives the
// text it gives on fresh ones.
func TestMineSameWithPooledArenas(t *testing.T) {
	docs := mineTestDocs(t)
	fresh := make([]string, len(docs))
	for i, doc := range docs {
		templatePool = sync.Pool{}
		fresh[i] = mineWrite(t, doc)
	}
	templatePool = sync.Pool{}
	order := rand.New(rand.NewPCG(5, 6)).Perm(len(docs))
	for _, i := range append(order, order...) {
		x := textkit.NewLineIndex(docs[i])
		m, err := Mine(context.Background(), x, Analyze(docs[i]), 3, nil)
		if err != nil {
			t.Fatal(err)
		}
		out, _ := m.Write(x)
		m.Release()
		if out != fresh[i] {
			t.Fatalf("document %d: mined text differs on pooled arenas (%d bytes) and fresh ones (%d bytes)", i, len(out), len(fresh[i]))
		}
	}
}

// mineTestDocs generates logs of three syntaxes whose records (and stack
// traces) repeat their shapes with other digits, and adds the LogHub
// sample when ../shared is there.
func mineTestDocs(t *testing.T) []string {
	r := rand.New(rand.NewPCG(30, 31))
	var docs []string
	for n := range 40 {
		var b strings.Builder
		var pieces []string
		for range 12 {
			pieces = append(pieces, memoLinePieces[r.IntN(len(memoLinePieces))](r))
		}
		for i := range 400 {
			p := digitVariant(r, pieces[r.IntN(len(pieces))]) + " " + digitVariant(r, pieces[r.IntN(len(pieces))])
			switch n % 4 {
			case 0:
				fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d,%03d INFO [w-%d] %s\n", i/60%60, i%60, r.IntN(1000), r.IntN(3), p)
			case 3:
				// Records with stack traces: continuation lines repeat
				// their shapes too.
				fmt.Fprintf(&b, "2024-03-01 10:%02d:%02d,%03d ERROR [w-%d] %s\n", i/60%60, i%60, r.IntN(1000), r.IntN(3), p)
				for range r.IntN(5) {
					fmt.Fprintf(&b, "\tat org.example.C%d.run(C%d.java:%d) %s\n", r.IntN(4), r.IntN(4), r.IntN(900), digitVariant(r, pieces[r.IntN(len(pieces))]))
				}
			case 1:
				fmt.Fprintf(&b, "{\"ts\":\"2024-03-01T10:%02d:%02dZ\",\"level\":\"info\",\"msg\":%q,\"n\":%d}\n", i/60%60, i%60, p, r.IntN(500))
			default:
				fmt.Fprintf(&b, "ts=2024-03-01T10:%02d:%02dZ level=info msg=%q n=%d\n", i/60%60, i%60, p, r.IntN(500))
			}
		}
		docs = append(docs, b.String())
	}
	files, _ := filepath.Glob("../../../shared/corpus/loghub/*/*_2k.log")
	if len(files) == 0 {
		t.Log("../shared/corpus/loghub absent: generated logs only")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		docs = append(docs, string(b))
	}
	return docs
}

// TestChunksKeepEveryRun: runs of every length, past the largest chunk
// too, read back as added, across resets and trims as the pool does them.
func TestChunksKeepEveryRun(t *testing.T) {
	var c chunks[byte]
	rng := rand.New(rand.NewPCG(7, 9))
	for round := range 4 {
		var refs []chunkRef
		var want [][]byte
		for range 2000 {
			run := make([]byte, rng.IntN(300))
			if rng.IntN(200) == 0 {
				run = make([]byte, 5000) // longer than a chunk
			}
			for i := range run {
				run[i] = byte(rng.Uint32())
			}
			refs = append(refs, c.add(run, 4096))
			want = append(want, run)
		}
		for i, r := range refs {
			if !bytes.Equal(c.at(r), want[i]) {
				t.Fatalf("round %d: run %d read back differs", round, i)
			}
		}
		c.keep(10000)
		c.reset()
		if c.held != 0 {
			t.Fatalf("round %d: %d held after reset", round, c.held)
		}
	}
}
