package jsonfold

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// testOptions are stages' default limits, without the log path.
func testOptions() Options {
	return Options{ArraySamples: 2, MaxStringChars: 160, MaxDepth: 32, MaxObjectKeys: 200, Base64MinChars: 200}
}

// randomArrayDoc writes a JSON document whose arrays are long enough to
// fold: items of mixed kinds, rare keys, rare status values, far numbers,
// escaped and duplicate keys, nested containers, and (with wide) more
// fields than max_object_keys.
func randomArrayDoc(r *rand.Rand, wide bool) string {
	var b strings.Builder
	scalar := func() {
		switch r.IntN(9) {
		case 0:
			fmt.Fprintf(&b, "%d", r.IntN(100))
		case 1:
			fmt.Fprintf(&b, "%d.%d", r.IntN(50), r.IntN(10))
		case 2:
			fmt.Fprintf(&b, "%d", 1000000+r.IntN(1000000)) // far
		case 3:
			b.WriteString([...]string{"true", "false", "null"}[r.IntN(3)])
		case 4:
			fmt.Fprintf(&b, `"v%d"`, r.IntN(5))
		case 5:
			b.WriteString(`"caf\u00e9 \"q\""`)
		case 6:
			b.WriteString("1e400")
		default:
			fmt.Fprintf(&b, `"%s"`, strings.Repeat("word ", r.IntN(50)))
		}
	}
	var value func(depth int)
	object := func(depth int) {
		b.WriteString("{")
		keys := 1 + r.IntN(6)
		if wide && r.IntN(4) == 0 {
			keys = 50 + r.IntN(100)
		}
		for k := range keys {
			if k > 0 {
				b.WriteString(", ")
			}
			switch r.IntN(12) {
			case 0:
				fmt.Fprintf(&b, `"rare_%d": `, r.IntN(40)) // a key few items have
			case 1:
				b.WriteString(`"st\u0061tus": `) // escaped, same name as status
			case 2:
				b.WriteString(`"": `)
			default:
				fmt.Fprintf(&b, `"%s": `, [...]string{"id", "status", "ms", "node", "level", "tags", "meta"}[r.IntN(7)])
			}
			value(depth + 1)
		}
		b.WriteString("}")
	}
	value = func(depth int) {
		switch n := r.IntN(10); {
		case depth < 4 && n == 0:
			object(depth)
		case depth < 4 && n == 1:
			b.WriteString("[")
			for i := range r.IntN(20) {
				if i > 0 {
					b.WriteString(",")
				}
				value(depth + 1)
			}
			b.WriteString("]")
		case n == 2:
			b.WriteString(`"` + [...]string{"ok", "ok", "ok", "failed", "error"}[r.IntN(5)] + `"`)
		default:
			scalar()
		}
	}
	b.WriteString(`{"items": [`)
	items := 3 + r.IntN(300)
	for i := range items {
		if i > 0 {
			b.WriteString(",\n ")
		}
		switch r.IntN(20) {
		case 0:
			scalar()
		case 1:
			value(3)
		default:
			object(1)
		}
	}
	b.WriteString(`], "nums": [`)
	for i := range r.IntN(60) {
		if i > 0 {
			b.WriteString(", ")
		}
		if r.IntN(30) == 0 {
			b.WriteString("99999999")
		} else {
			fmt.Fprintf(&b, "%d", 100+r.IntN(10))
		}
	}
	b.WriteString(`], "nested": [[`)
	for i := range 5 + r.IntN(30) {
		if i > 0 {
			b.WriteString(", ")
		}
		object(2)
	}
	b.WriteString(`]]}`)
	return b.String()
}

// TestArrayWalkMatchesArrayItems folds generated documents with the
// one-pass array walk and with arrayItems' two extra passes, under
// default and narrow options (few samples, few keys, shallow depth).
func TestArrayWalkMatchesArrayItems(t *testing.T) {
	defer func() { slowArrayItems = false }()
	r := rand.New(rand.NewPCG(19, 20))
	narrow := testOptions()
	narrow.ArraySamples, narrow.MaxObjectKeys, narrow.MaxDepth = 1, 3, 3
	docs := 150
	if testing.Short() {
		docs = 50
	}
	for i := range docs {
		doc := randomArrayDoc(r, i%3 == 0)
		for _, o := range []Options{testOptions(), narrow} {
			slowArrayItems = false
			fast, okFast, errFast := Fold(context.Background(), doc, o, false, "")
			slowArrayItems = true
			slow, okSlow, errSlow := Fold(context.Background(), doc, o, false, "")
			if !okFast || errFast != nil || !okSlow || errSlow != nil {
				t.Fatalf("doc %d: fold failed: %v %v %v %v", i, okFast, errFast, okSlow, errSlow)
			}
			if fast != slow {
				t.Fatalf("doc %d (options %+v): one-pass walk differs from arrayItems\nfast:\n%s\nslow:\n%s\ndoc:\n%s", i, o, fast, slow, doc)
			}
		}
	}
}

// TestNumberValueMatchesParseFloat checks numberValue's fast path against
// strconv.ParseFloat on random JSON number literals: short and long
// decimals, negative zeros, exponents, values past float64.
func TestNumberValueMatchesParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	digits := func(n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte('0' + r.IntN(10))
		}
		if n > 1 && b[0] == '0' {
			b[0] = '1'
		}
		return string(b)
	}
	for range 300000 {
		lit := digits(1 + r.IntN(18))
		if r.IntN(2) == 0 {
			lit += "." + digits(1+r.IntN(17))
		}
		if r.IntN(8) == 0 {
			lit += "e" + []string{"", "+", "-"}[r.IntN(3)] + digits(1+r.IntN(3))
		}
		if r.IntN(3) == 0 {
			lit = "-" + lit
		}
		if r.IntN(50) == 0 {
			lit = []string{"0", "-0", "-0.0", "0.000", "1e400", "-1e400", "18446744073709551616"}[r.IntN(7)]
		}
		got, gotErr := numberValue(lit)
		want, wantErr := strconv.ParseFloat(lit, 64)
		if math.Float64bits(got) != math.Float64bits(want) || (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("numberValue(%q) = %v, %v; ParseFloat: %v, %v", lit, got, gotErr, want, wantErr)
		}
	}
}

// tokenTrace lists the tokens and literals of text read by next alone or,
// with members, by member for each object member; it ends with "error" if
// reading failed.
func tokenTrace(text string, members bool) []string {
	src := newJSONSource(text)
	var out []string
	var objs []bool // open containers: object or not
	emit := func(t jsonTok) {
		out = append(out, fmt.Sprint(t, " ", scalarLit(src, t)))
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
				out = append(out, fmt.Sprint(tokString, " ", key, " ", stringValue(key, esc)))
			}
			emit(t)
			continue
		}
		t, err := src.next()
		if err != nil {
			return append(out, "error")
		}
		if t == tokEnd {
			return out
		}
		if t == tokString && len(objs) > 0 && objs[len(objs)-1] {
			// A key: the next token is its value.
			out = append(out, fmt.Sprint(tokString, " ", src.text(), " ", src.str()))
			t, err = src.next()
			if err != nil {
				return append(out, "error")
			}
		}
		emit(t)
	}
}

// TestMemberMatchesNext reads generated documents, and copies broken by
// one edited byte, with member and with next alone: the same tokens, and
// the same verdict.
func TestMemberMatchesNext(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	edits := []byte{',', ':', '"', '}', ']', '{', '[', ' ', '\\', 'x', '1', '\n', 0x01}
	for i := range 400 {
		doc := randomArrayDoc(r, false)
		if len(doc) > 4000 {
			doc = doc[:4000] + "]}"
		}
		for k := range 6 {
			text := doc
			if k > 0 {
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
				text = string(b)
			}
			want, got := tokenTrace(text, false), tokenTrace(text, true)
			if len(want) >= 2 && want[len(want)-1] == "error" && strings.HasPrefix(want[len(want)-2], fmt.Sprint(tokString, " ")) && len(got) < len(want) {
				// member fails whole where next read the key first.
				want = append(want[:len(want)-2], "error")
			}
			if g, w := strings.Join(got, "\n"), strings.Join(want, "\n"); g != w {
				t.Fatalf("doc %d edit %d: member reads differently from next\nmember:\n%s\nnext:\n%s", i, k, g[max(0, len(g)-300):], w[max(0, len(w)-300):])
			}
		}
	}
}

// TestRarestOutliersShown: among more odd items than a fold shows, the
// rarest are shown, whatever their place. A generated array of records
// carries a key that many items share (more than the outliers a fold
// shows come first) and keys that one item alone carries, at random
// places, one of them inside an object field every item has; a map keyed
// by data (voters) makes no item odd. Each lone key's item is among the
// outliers, on both paths.
func TestRarestOutliersShown(t *testing.T) {
	defer func() { slowArrayItems = false }()
	r := rand.New(rand.NewPCG(23, 24))
	for doc := range 20 {
		n := 200 + r.IntN(600)
		lone := map[int]string{}
		for len(lone) < 3 {
			if i := 3 + r.IntN(n-4); i > 3*maxOutliers {
				lone[i] = fmt.Sprintf("lone_%d", len(lone))
			}
		}
		nested := -1 // the item whose lone key is inside its profile
		for i, k := range lone {
			if k == "lone_2" {
				nested = i
			}
		}
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"id":%d,"name":"user%d"`, i, i)
			if i%7 == 3 && i < n/10*7 {
				b.WriteString(`,"shared_flag":true`) // on about one item in seven of the first 70%: rare, but shared
			}
			if k, ok := lone[i]; ok && i != nested {
				fmt.Fprintf(&b, `,%q:{"code":"E%d"}`, k, r.IntN(99))
			}
			if i == nested {
				fmt.Fprintf(&b, `,"profile":{"age":%d,"lone_2":true}`, 18+r.IntN(60))
			} else {
				fmt.Fprintf(&b, `,"profile":{"age":%d}`, 18+r.IntN(60))
			}
			// A map keyed by data (a voter each, the first items alone
			// with theirs): its keys are rare, but no item is odd for them.
			if i < 40 {
				fmt.Fprintf(&b, `,"votes":{"voter%d":1}`, i)
			} else {
				fmt.Fprintf(&b, `,"votes":{"voter%d":1}`, 100+r.IntN(2))
			}
			b.WriteString("}")
		}
		b.WriteString("]")
		for slow, out := range foldBothPaths(t, doc, b.String()) {
			_, shown, _ := strings.Cut(out, `"_outliers":[`)
			shown, _, _ = strings.Cut(shown, "]")
			for i, k := range lone {
				if !slices.Contains(strings.Split(shown, ","), strconv.Itoa(i)) || !strings.Contains(out, fmt.Sprintf(`%q:`, k)) {
					t.Errorf("doc %d (slow path %v): item %d, the only one with %q, is not shown:\n%s", doc, slow, i, k, out)
				}
			}
		}
	}
}

// foldBothPaths folds the array text by the walk and by arrayItems,
// keyed by slowArrayItems.
func foldBothPaths(t *testing.T, doc int, text string) map[bool]string {
	t.Helper()
	outs := map[bool]string{}
	for _, slow := range []bool{false, true} {
		slowArrayItems = slow
		out, ok, err := Fold(context.Background(), text, testOptions(), false, "")
		if !ok || err != nil {
			t.Fatalf("doc %d: fold failed: %v %v", doc, ok, err)
		}
		outs[slow] = out
	}
	return outs
}

// TestRareStatusValueShown: a status value that few items share sets
// them apart however many share it (17 failures of 2000), both paths show
// the rarest of them, and the schema says how many hold it.
func TestRareStatusValueShown(t *testing.T) {
	defer func() { slowArrayItems = false }()
	r := rand.New(rand.NewPCG(25, 26))
	names := []string{"status", "state", "result", "conclusion", "outcome"}
	for doc := range 20 {
		n := 500 + r.IntN(2500)
		field := names[r.IntN(len(names))]
		failed := 4 + r.IntN(n/50-3) // more than three, at most one in fifty
		odd := map[int]bool{}
		for len(odd) < failed {
			odd[1+r.IntN(n-2)] = true
		}
		var b strings.Builder
		b.WriteString("[")
		for i := range n {
			if i > 0 {
				b.WriteString(",")
			}
			v := "ok"
			if odd[i] {
				v = "FAILED"
			}
			fmt.Fprintf(&b, `{"id":%d,"host":"web-%d",%q:%q}`, i, r.IntN(9), field, v)
		}
		b.WriteString("]")
		for slow, out := range foldBothPaths(t, doc, b.String()) {
			if got := strings.Count(out, `"FAILED"`); got != maxOutliers {
				t.Errorf("doc %d (slow path %v): %d of %d failed items shown, want %d:\n%s", doc, slow, got, failed, maxOutliers, out)
			}
			if want := fmt.Sprintf("FAILED ×%d, ok", failed); !strings.Contains(out, want) {
				t.Errorf("doc %d (slow path %v): the schema does not say %q:\n%s", doc, slow, want, out)
			}
		}
	}
}
