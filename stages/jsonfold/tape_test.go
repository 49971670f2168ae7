package jsonfold

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// tapeDocClasses name the kinds of documents tapeDoc writes.
var tapeDocClasses = []string{"records", "pretty", "deep", "long-strings", "escapes", "unicode", "numbers", "mixed"}

// tapeNumbers are number literals of every shape JSON allows.
var tapeNumbers = []string{"0", "-0", "7", "-12", "1.5", "-0.0", "0.000", "1.10", "-1.25e-7", "12e3", "1E+400", "-1e400",
	"18446744073709551616", "3.141592653589793238", "5e-324", "1.0E2"}

// tapeStrings are string literals with escapes, raw Unicode and the odd
// control escape.
var tapeStrings = []string{`""`, `"plain"`, `"q\"uote"`, `"back\\slash"`, `"sl\/ash"`, `"\b\f\n\r\t"`, `"caf\u00e9"`,
	`"\ud83d\ude00 smile"`, `"\ud800 lone"`, `"\uDC00\u0041"`, `"café"`, `"日本語のテキスト"`, `"emoji 😀 here"`, `"\u0000nul"`,
	`"line one\nline two\nline three"`, `"tab\there"`}

// tapeDoc writes a valid JSON document of the given class.
func tapeDoc(r *rand.Rand, class string) string {
	g := tapeGen{r: r, class: class}
	switch class {
	case "records":
		g.b.WriteString(`{"data":[`)
		for i := range 5 + r.IntN(200) {
			if i > 0 {
				g.b.WriteByte(',')
			}
			fmt.Fprintf(&g.b, `{"id":%d,"login":"user%d","site_admin":%v,"score":%d.5,"tags":["a","b"],"profile":{"bio":"text %d","n":%d}}`,
				i, i, r.IntN(9) == 0, r.IntN(100), i, r.IntN(1000))
		}
		g.b.WriteString(`],"total":1}`)
	case "deep":
		d := 1 + r.IntN(60)
		for i := range d {
			if i%2 == 0 {
				g.b.WriteString(`{"k":`)
			} else {
				g.b.WriteString(`[1,`)
			}
		}
		g.value(3)
		for i := d - 1; i >= 0; i-- {
			if i%2 == 0 {
				g.b.WriteString(`}`)
			} else {
				g.b.WriteString(`]`)
			}
		}
	default:
		if r.IntN(2) == 0 {
			g.array(0)
		} else {
			g.object(0)
		}
	}
	return g.b.String()
}

type tapeGen struct {
	r     *rand.Rand
	class string
	b     strings.Builder
}

// space writes the layout between tokens: none in minified classes, any
// JSON space in pretty ones.
func (g *tapeGen) space() {
	if g.class != "pretty" && g.class != "mixed" {
		return
	}
	g.b.WriteString([...]string{"", " ", "\n  ", "\t", "\r\n", "", "\n    "}[g.r.IntN(7)])
}

func (g *tapeGen) scalar() {
	r := g.r
	switch g.class {
	case "numbers":
		g.b.WriteString(tapeNumbers[r.IntN(len(tapeNumbers))])
		return
	case "escapes", "unicode":
		g.b.WriteString(tapeStrings[r.IntN(len(tapeStrings))])
		return
	case "long-strings":
		words := []string{"alpha", "beta", "ERROR", "\\n", "é", "x\\\"y", "2024-01-01", "\\u00e9"}
		g.b.WriteByte('"')
		for range 20 + r.IntN(400) {
			g.b.WriteString(words[r.IntN(len(words))])
			g.b.WriteByte(' ')
		}
		g.b.WriteByte('"')
		return
	}
	switch r.IntN(6) {
	case 0:
		g.b.WriteString(tapeNumbers[r.IntN(len(tapeNumbers))])
	case 1:
		g.b.WriteString(tapeStrings[r.IntN(len(tapeStrings))])
	case 2:
		g.b.WriteString([...]string{"true", "false", "null"}[r.IntN(3)])
	default:
		fmt.Fprintf(&g.b, `"v%d"`, r.IntN(8))
	}
}

func (g *tapeGen) value(depth int) {
	switch n := g.r.IntN(8); {
	case depth < 5 && n == 0:
		g.object(depth + 1)
	case depth < 5 && n == 1:
		g.array(depth + 1)
	default:
		g.scalar()
	}
}

func (g *tapeGen) array(depth int) {
	g.b.WriteByte('[')
	n := g.r.IntN(6)
	if depth == 0 {
		n = 20 + g.r.IntN(60) // long enough to fold
	}
	for i := range n {
		if i > 0 {
			g.b.WriteByte(',')
		}
		g.space()
		if depth == 0 && g.r.IntN(4) > 0 {
			g.object(depth + 1)
		} else {
			g.value(depth)
		}
		g.space()
	}
	g.b.WriteByte(']')
}

func (g *tapeGen) object(depth int) {
	g.b.WriteByte('{')
	for i := range g.r.IntN(7) {
		if i > 0 {
			g.b.WriteByte(',')
		}
		g.space()
		if g.r.IntN(5) == 0 {
			g.b.WriteString(tapeStrings[g.r.IntN(len(tapeStrings))])
		} else {
			fmt.Fprintf(&g.b, `"%s"`, [...]string{"id", "status", "name", "ms", "level", "tags", "meta"}[g.r.IntN(7)])
		}
		g.space() // before the colon: the tape's third word
		g.b.WriteByte(':')
		g.space()
		g.value(depth)
	}
	g.space()
	g.b.WriteByte('}')
}

// breakJSON edits one byte of doc: an insertion, a deletion or a change.
func breakJSON(r *rand.Rand, doc string) string {
	edits := []byte{',', ':', '"', '}', ']', '{', '[', ' ', '\\', 'x', '1', '\n', 0x01, 0xff}
	b := []byte(doc)
	at := r.IntN(len(b))
	switch r.IntN(3) {
	case 0:
		b[at] = edits[r.IntN(len(edits))]
	case 1:
		b = append(b[:at], b[at+1:]...)
	default:
		b = append(b[:at], append([]byte{edits[r.IntN(len(edits))]}, b[at:]...)...)
	}
	return string(b)
}

// sourceTrace is what the folder may see of src after each token: the
// token, pos, and a string's or number's literal offsets (and a string's
// escape flag), read by next alone or, with members, by member for each
// object member. It ends with "error" if reading failed.
func sourceTrace(src *jsonSource, members bool) []string {
	var out []string
	var objs []bool // open containers: object or not
	emit := func(t jsonTok) {
		switch t {
		case tokString:
			out = append(out, fmt.Sprint(t, src.pos, src.litFrom, src.litTo, src.esc))
		case tokInt, tokFloat:
			out = append(out, fmt.Sprint(t, src.pos, src.litFrom, src.litTo))
		default:
			out = append(out, fmt.Sprint(t, src.pos))
		}
		switch t {
		case tokObjStart, tokArrStart:
			objs = append(objs, t == tokObjStart)
		case tokObjEnd, tokArrEnd:
			objs = objs[:len(objs)-1]
		}
	}
	for {
		if members && len(objs) > 0 && objs[len(objs)-1] {
			key, esc, t, err := src.member()
			if err != nil {
				return append(out, "error")
			}
			if t != tokObjEnd {
				out = append(out, fmt.Sprint("key", key, esc))
			}
			emit(t)
			continue
		}
		t, err := src.next()
		if err != nil {
			return append(out, "error")
		}
		emit(t)
		if t == tokEnd {
			return out
		}
	}
}

// checkTape checks ValidTape on text against the tokenizer: the same
// verdict as Valid; for a valid text, a tape within its bound that reads
// the tokens next reads, state for state, on text and on text without
// its trailing space; and Fold's output by the tape.
func checkTape(t *testing.T, text string) {
	t.Helper()
	// The walk's verdict and tokens are next's, whatever the bound.
	r := &tapeRec{max: 1 << 30}
	walked, _ := walkJSONTape(text)
	if pos := len(text) - len(strings.TrimLeft(text, " \t\r\n")); pos < len(text) && (text[pos] == '{' || text[pos] == '[') {
		walked, _ = walkTape(text, pos, r)
	}
	if walked != walkJSON(text) {
		t.Fatalf("walkTape says %v, walkJSON %v:\n%s", walked, !walked, text)
	} else if walked && !slices.Equal(r.toks, tapeByNext(text).toks) {
		t.Fatalf("walkTape records other tokens than next reads:\n%s", text)
	}
	valid, tp := ValidTape(text)
	if want := Valid(text); valid != want {
		t.Fatalf("ValidTape says %v, Valid %v:\n%s", valid, want, text)
	}
	if !valid {
		if tp != nil {
			t.Fatalf("a tape for invalid JSON:\n%s", text)
		}
		return
	}
	if tp == nil {
		if simdJSON && longASCIIStrings(text) {
			return // simdjson-go judged it
		}
		if len(tapeByNext(text).toks) <= tapeMaxToks(len(text)) {
			t.Fatalf("no tape for valid JSON within the bound:\n%s", text)
		}
		return
	}
	if len(tp.toks) > tapeMaxToks(len(text)) {
		t.Fatalf("tape of %d tokens for %d bytes: past its bound", len(tp.toks), len(text))
	}
	for _, s := range []string{text, strings.TrimRight(text, " \t\r\n")} {
		if !tp.Fits(s) {
			t.Fatalf("tape does not fit its own text:\n%s", s)
		}
		for _, members := range []bool{false, true} {
			want, got := sourceTrace(newJSONSource(s), members), sourceTrace(tapeSource(s, tp), members)
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("members %v: the tape reads differently from the tokenizer\ntape:\n%s\ntokenizer:\n%s\ndoc:\n%s", members, g, w, s)
			}
		}
		checkFoldTape(t, s, tp)
	}
}

// tapeByNext is the tape of text read by next, with no bound.
func tapeByNext(text string) *Tape {
	src := newJSONSource(text)
	tp := &Tape{text: text}
	for {
		tok, err := src.next()
		if err != nil || tok == tokEnd {
			return tp
		}
		tp.toks = append(tp.toks, src.tapeTok(tok))
	}
}

// checkFoldTape compares Fold and FoldTape on text under default and
// narrow options (few samples and keys, shallow: containers skipped),
// inline, minified and pretty.
func checkFoldTape(t *testing.T, text string, tp *Tape) {
	t.Helper()
	narrow := testOptions()
	narrow.ArraySamples, narrow.MaxObjectKeys, narrow.MaxDepth, narrow.MaxStringChars = 1, 4, 3, 32
	for _, o := range []Options{testOptions(), narrow} {
		for _, layout := range []struct {
			inline bool
			prefix string
		}{{false, ""}, {true, ""}, {false, "  "}} {
			want, okW, errW := Fold(context.Background(), text, o, layout.inline, layout.prefix)
			got, okG, errG := FoldTape(context.Background(), text, tp, o, layout.inline, layout.prefix)
			if want != got || okW != okG || (errW == nil) != (errG == nil) {
				t.Fatalf("options %+v inline %v prefix %q: the tape folds differently\ntape:\n%s\ntokenizer:\n%s\ndoc:\n%s", o, layout.inline, layout.prefix, got, want, text)
			}
		}
	}
}

// TestTapeMatchesTokenizer reads generated documents of every class, and
// copies broken by one edited byte, by the tape and by the tokenizer.
func TestTapeMatchesTokenizer(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 42))
	docs := 40
	if testing.Short() {
		docs = 10
	}
	for i := range docs {
		for _, class := range tapeDocClasses {
			doc := tapeDoc(r, class)
			if !walkJSON(doc) {
				t.Fatalf("class %s: generated invalid JSON:\n%s", class, doc)
			}
			checkTape(t, doc)
			checkTape(t, doc+" \n\t ")
			for range 3 {
				checkTape(t, breakJSON(r, doc))
			}
		}
		if i%4 == 0 {
			checkTape(t, randomArrayDoc(r, i%8 == 0)) // long arrays, wide items
		}
	}
}

// TestTapeFits: a tape serves only the text it was read from, trailing
// space aside; a copy of that text at another address is that text.
func TestTapeFits(t *testing.T) {
	text := `{"a": [1, "x", {"b": null}]}` + "  \n"
	valid, tp := ValidTape(text)
	if !valid || tp == nil {
		t.Fatal("no tape")
	}
	body := strings.TrimSpace(text)
	for _, c := range []struct {
		s    string
		fits bool
	}{
		{text, true},
		{body, true},
		{text[:len(body)+1], true},
		{strings.Clone(text), true},
		{body[:len(body)-1], false},                       // cut inside the root value
		{text + " ", false},                               // longer than the tape's text
		{strings.Replace(text, "x", "y", 1), false},       // same length, other bytes
		{strings.Replace(text, `"a"`, `"b"`, 1), false},   // a key changed
		{" " + body, false},                               // shifted
		{strings.Replace(text, "1,", "2,", 1)[:5], false}, // a prefix only
	} {
		if got := tp.Fits(c.s); got != c.fits {
			t.Errorf("Fits(%q) = %v, want %v", c.s, got, c.fits)
		}
	}
	var none *Tape
	if none.Fits(text) {
		t.Error("a nil tape fits")
	}
	// A tape that does not fit is not read: FoldTape tokenizes.
	other := strings.Replace(text, `"x"`, `"y"`, 1)
	want, _, _ := Fold(context.Background(), other, testOptions(), false, "")
	if got, _, _ := FoldTape(context.Background(), other, tp, testOptions(), false, ""); got != want {
		t.Errorf("FoldTape read a tape of another text: %s, want %s", got, want)
	}
}

// TestTapeBound: a document whose tape would pass its bound is valid
// with no tape (the fold tokenizes), and one just within keeps it.
func TestTapeBound(t *testing.T) {
	dense := "[" + strings.Repeat("1,", 5000) + "1]" // eight bytes of tape per two
	valid, tp := ValidTape(dense)
	if !valid || tp != nil {
		t.Fatalf("dense array: valid %v, tape %v; want valid, no tape", valid, tp != nil)
	}
	sparse := "[" + strings.Repeat("12345678,", 2000) + "1]" // eight per nine
	valid, tp = ValidTape(sparse)
	if !valid || tp == nil {
		t.Fatalf("sparse array: valid %v, tape %v; want both", valid, tp != nil)
	}
	if got, _, _ := FoldTape(context.Background(), dense, nil, testOptions(), false, ""); got == "" {
		t.Error("no fold without a tape")
	}
	for _, bad := range []string{"", " ", "1", `"s"`, "[1", "[1]x", "{}{}", "[\"\xff\"]"} {
		if valid, tp := ValidTape(bad); valid || tp != nil {
			t.Errorf("ValidTape(%q) = %v, %v", bad, valid, tp != nil)
		}
	}
}

// FuzzTapeFold: for any text, ValidTape agrees with Valid, and a tape it
// makes reads as the tokenizer does and folds to the same output.
func FuzzTapeFold(f *testing.F) {
	r := rand.New(rand.NewPCG(43, 44))
	for _, class := range tapeDocClasses {
		f.Add(tapeDoc(r, class))
	}
	for _, s := range []string{`{"a" : 1, "b":[true,false,null]}`, "[1,]", `{"a":"\ud800"}`, " [ ] ", "[1e400]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkTape(t, text)
	})
}

// TestFoldTapeReadsTheTape: FoldTape takes its tokens from a tape that
// fits, not from the text: a tape whose one number literal is moved to
// another number folds to that other number.
func TestFoldTapeReadsTheTape(t *testing.T) {
	text := `{"a": 111, "b": 222}`
	valid, tp := ValidTape(text)
	if !valid || tp == nil {
		t.Fatal("no tape")
	}
	moved := &Tape{text: tp.text, end: tp.end, toks: slices.Clone(tp.toks)}
	if n := moved.Reads(); n != 0 {
		t.Fatalf("a new tape read %d times", n)
	}
	var nums []int
	for i, e := range moved.toks {
		if jsonTok(e.end>>tapeOffBits) == tokInt {
			nums = append(nums, i)
		}
	}
	if len(nums) != 2 {
		t.Fatalf("%d number tokens, want 2", len(nums))
	}
	moved.toks[nums[0]] = moved.toks[nums[1]]
	got, ok, err := FoldTape(context.Background(), text, moved, testOptions(), true, "")
	if want := `{"a": 222, "b": 222}`; got != want || !ok || err != nil {
		t.Errorf("FoldTape with a moved literal = %q, %v, %v; want %q: the tape was not read", got, ok, err, want)
	}
	if n := moved.Reads(); n != 1 {
		t.Errorf("Reads = %d after one fold, want 1", n)
	}
}
