// Package jsonfold folds a JSON document: it keeps its meaning and drops
// its bulk. A value that is kept is copied byte for byte: numbers and
// strings keep their literal.
//
//   - An array of similar items keeps its first and last items and its
//     outliers (an item with a key few others have, a status or error
//     value out of the ordinary, a number far from the rest), then one
//     meta object: {"_omitted": N, "_count": C, "_outliers": [...],
//     "_schema": S}. S is the union of the items' keys ("?" marks a key
//     some items lack); a scalar field shows its types, distinct count and
//     range ("int · 1000 distinct · 1–1000").
//   - An object is a map when its keys are data (ids, hashes, numbers,
//     dates, emails, paths), whatever its size: it keeps array_samples
//     entries, "_omitted_keys", the omitted names when they are few and
//     "_value_schema". Named keys are always kept.
//   - A long string is compacted by what it is: a diff or patch and code
//     are kept whole, a log or a stack trace goes to Options.CompactLog,
//     other multi-line output keeps its head, its tail and the lines that
//     report a failure, prose its head and tail; base64 becomes a marker.
//   - Containers deeper than max_depth become a marker string.
//
// The output is valid JSON laid out by one printer, and folding it again
// gives it back unchanged.
package jsonfold

import (
	"context"
	"errors"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/b64"
	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Kinds of JSON values, as a bit set in schemas.
const (
	kObject uint8 = 1 << iota
	kArray
	kString
	kInt
	kFloat
	kBool
	kNull
)

var kindNames = [...]struct {
	k    uint8
	name string
}{{kObject, "object"}, {kArray, "array"}, {kString, "string"}, {kInt, "int"}, {kFloat, "float"}, {kBool, "bool"}, {kNull, "null"}}

func kindString(kinds uint8) string {
	var b strings.Builder
	for _, kn := range kindNames {
		if kinds&kn.k != 0 {
			if b.Len() > 0 {
				b.WriteByte('|')
			}
			b.WriteString(kn.name)
		}
	}
	return b.String()
}

const (
	// truncSlack is how much longer than max_string_chars a string may be
	// before it is compacted; a compacted string stays within it, so a
	// second pass keeps it.
	truncSlack = 32
	// maxSchemaFields bounds the memory of all schemas of one document.
	maxSchemaFields = 1 << 17
	// jsonWrap is the width up to which a container is printed on one line.
	jsonWrap = 100
	// mapProbeKeys: an object is judged a map once this many of its keys
	// are read, 90% of them data.
	mapProbeKeys = 16
	// maxOutliers bounds the outlying items an array keeps.
	maxOutliers = 5
	// maxDistinct bounds the distinct values counted per field.
	maxDistinct = 1024
	// mapKeyListChars: omitted map keys are listed when all fit in this,
	// in 1/32 of the document or in 1/8 of the map's own text, whichever
	// is more: the paths of an API description are worth their room (each
	// names a large value), a million ids are not.
	mapKeyListChars = 16000
)

// jnode is one value of the folded output.
type jnode struct {
	kind uint8    // kinds bit
	lit  string   // scalars: the JSON literal
	deep bool     // a marker string standing for a container deeper than max_depth
	keys []string // objects: key literals
	kids []*jnode
	sch  *jschema // folded arrays: the schema of every item
}

func scalarNode(kind uint8, lit string) *jnode { return &jnode{kind: kind, lit: lit} }

func stringNode(s string) *jnode { return scalarNode(kString, string(appendJSONString(nil, s))) }

func keyLit(name string) string { return string(appendJSONString(nil, name)) }

func (nd *jnode) add(name string, kid *jnode) {
	nd.keys = append(nd.keys, keyLit(name))
	nd.kids = append(nd.kids, kid)
}

// jschema is the merged type of many values.
type jschema struct {
	kinds  uint8
	objs   int // objects merged, to tell optional keys
	names  []string
	fields []*jschema
	seen   []int // objects that had each key
	index  map[string]int
	more   bool     // keys were dropped: too many
	elem   *jschema // items of every array merged
	// moreNames are the dropped keys' names, while the document's
	// budget for them (jsonFolder.moreChars) lasts.
	moreNames []string
	moreSet   map[string]struct{}
	// walkStat is the arrayWalk statistics index of this field of an
	// array's items, once walkStatSet.
	walkStat    int32
	walkStatSet bool
}

type jsonFolder struct {
	opt       Options
	src       *jsonSource
	ctx       context.Context
	calls     int // check's counter
	fields    int
	keyChars  int // room for the names of omitted map keys
	moreChars int // room left for the names of keys a schema drops
}

// Options are the limits of one fold (see stages.StructuredOptions).
type Options struct {
	ArraySamples   int
	MaxStringChars int
	MaxDepth       int
	MaxObjectKeys  int
	Base64MinChars int
	// CompactLog shortens a long string value that is a log or a stack
	// trace (lines is v split on "\n"). isLog is false for other text;
	// out is "" for a log kept whole.
	CompactLog func(ctx context.Context, v string, lines []string) (out string, isLog bool, err error)
}

// Fold folds one JSON document. ok is false when text is not one valid
// JSON object or array. inline prints it on one line; otherwise every
// line after the first starts with prefix.
func Fold(ctx context.Context, text string, opt Options, inline bool, prefix string) (string, bool, error) {
	return FoldTape(ctx, text, nil, opt, inline, prefix)
}

// FoldTape is Fold reading text's tokens from tape when ValidTape made
// it from text (trailing space aside); otherwise, tape nil among them, it
// reads text itself. The output is the same either way.
func FoldTape(ctx context.Context, text string, tape *Tape, opt Options, inline bool, prefix string) (string, bool, error) {
	var src *jsonSource
	if tape.Fits(text) {
		src = tapeSource(text, tape)
	} else {
		src = newJSONSource(text)
	}
	root, err := foldJSON(ctx, src, opt)
	if err != nil {
		if errors.Is(err, errBadJSON) {
			return "", false, nil
		}
		return "", false, err
	}
	dedupTree(root)
	var b []byte
	switch {
	case inline:
		b = appendInline(make([]byte, 0, 1024), root)
	case prefix == "" && isMinifiedJSON(text):
		// Minified in, minified out: a one-line document printed with
		// indentation would grow where it is kept.
		b = appendMinified(make([]byte, 0, 4096), root)
	default:
		b = appendPretty(make([]byte, 0, 4096), root, 0, len(prefix), prefix)
	}
	return string(b), true, nil
}

func foldJSON(ctx context.Context, src *jsonSource, opt Options) (*jnode, error) {
	f := &jsonFolder{opt: opt, src: src, ctx: ctx, keyChars: max(mapKeyListChars, len(src.s)/32)}
	f.moreChars = f.keyChars
	t, err := src.next()
	if err != nil {
		return nil, err
	}
	if t != tokObjStart && t != tokArrStart {
		return nil, errBadJSON
	}
	root, err := f.fold(t, 0)
	if err != nil {
		return nil, err
	}
	if t, err := src.next(); err != nil || t != tokEnd {
		return nil, errBadJSON
	}
	return root, ctx.Err()
}

// fold builds the output node of the value that starts with t at depth.
func (f *jsonFolder) fold(t jsonTok, depth int) (*jnode, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	switch t {
	case tokObjStart, tokArrStart:
		if depth > f.opt.MaxDepth {
			kind, what := kObject, "object"
			if t == tokArrStart {
				kind, what = kArray, "array"
			}
			nd := stringNode("[" + what + " deeper than " + strconv.Itoa(f.opt.MaxDepth) + " levels]")
			nd.kind, nd.deep = kind, true
			return nd, f.src.skip()
		}
		if t == tokObjStart {
			return f.foldObject(depth)
		}
		return f.foldArray(depth)
	case tokString:
		return f.foldString()
	case tokInt:
		return scalarNode(kInt, f.src.text()), nil
	case tokFloat:
		return scalarNode(kFloat, f.src.text()), nil
	case tokTrue:
		return scalarNode(kBool, "true"), nil
	case tokFalse:
		return scalarNode(kBool, "false"), nil
	case tokNull:
		return scalarNode(kNull, "null"), nil
	}
	return nil, errBadJSON
}

// isDataKey reports a key that is data rather than a field name: a
// number, a hash or UUID, a date, an email, a path or URL, or an id that
// is mostly digits. The class: keys a program generated from values.
func isDataKey(k string) bool {
	if k == "" {
		return false
	}
	digits, hex := keyDigits(k)
	return isNumberKey(k, digits) || isPathKey(k) || isEmailKey(k) ||
		isIDKey(k, digits, hex) || isPhraseKey(k)
}

// keyDigits counts k's decimal digits and its hex digits (decimal ones
// included).
func keyDigits(k string) (digits, hex int) {
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case isDigit(c):
			digits++
			hex++
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
			hex++
		}
	}
	return digits, hex
}

// isNumberKey: numbers, versions, dates, times.
func isNumberKey(k string, digits int) bool {
	return digits == len(k) || (digits > 0 && strings.Trim(k, "0123456789.-+:eE") == "")
}

// isPathKey: paths and URLs.
func isPathKey(k string) bool {
	return k[0] == '/' || strings.Contains(k, "://") || strings.Contains(k, "\\") ||
		(strings.Count(k, "/") >= 1 && !strings.Contains(k, " "))
}

// isEmailKey: emails.
func isEmailKey(k string) bool {
	return strings.Contains(k, "@") && strings.Contains(k[strings.IndexByte(k, '@'):], ".")
}

// isIDKey: hashes, UUIDs, dates with words after, ids of mostly digits.
func isIDKey(k string, digits, hex int) bool {
	switch {
	case len(k) >= 7 && digits > 0 && hex+strings.Count(k, "-") == len(k):
		return true // hashes, UUIDs
	case len(k) >= 4 && isDigit(k[0]) && isDigit(k[1]) && isDigit(k[2]) && isDigit(k[3]):
		return true // dates with words after
	}
	return digits*2 >= len(k) && digits >= 3 // ids: mostly digits
}

// isPhraseKey: phrases, a dictionary's entries, not field names. A name
// ending in one '?' is a name (a schema's optional field, as the fold
// writes it; "enabled?").
func isPhraseKey(k string) bool {
	return strings.ContainsAny(strings.TrimSuffix(k, "?"), " \t?!,;")
}

// keySkeleton is k with each run of digits as one '#': numbered keys
// ("k17", "item_3") share one. ok is false when k has no digits.
func keySkeleton(k string, buf []byte) ([]byte, bool) {
	buf = buf[:0]
	digits := false
	for i := 0; i < len(k); i++ {
		if isDigit(k[i]) {
			if !digits || buf[len(buf)-1] != '#' {
				buf = append(buf, '#')
			}
			digits = true
			continue
		}
		buf = append(buf, k[i])
	}
	return buf, digits
}

func (f *jsonFolder) foldObject(depth int) (*jnode, error) {
	nd := &jnode{kind: kObject}
	m := &objectMap{listCap: max(f.keyChars, len(f.src.s)/8)}
	start, n := f.src.pos, 0
	foldedMap := false // this object is the output of a map fold: "_keys" stays as it is
	for {
		t, err := f.src.next()
		if err != nil {
			return nil, err
		}
		if t == tokObjEnd {
			break
		}
		if t != tokString {
			return nil, errBadJSON
		}
		n++
		lit, name := f.src.text(), f.src.str()
		if n <= mapProbeKeys {
			m.probe = append(m.probe, name)
		}
		vt, err := f.src.next()
		if err != nil {
			return nil, err
		}
		if m.values == nil && n == mapProbeKeys {
			f.mapVerdict(m, nd)
		}
		keyIsData := m.values != nil && m.isData(name)
		if keyIsData && m.keptData >= f.opt.ArraySamples {
			m.omit(name)
			if err := f.scan(vt, depth+1, m.values, nil); err != nil {
				return nil, err
			}
			continue
		}
		kid, err := f.fieldValue(vt, name, foldedMap, depth)
		if err != nil {
			return nil, err
		}
		if name == "_omitted_keys" {
			foldedMap = true
		}
		if keyIsData {
			m.keptData++
			f.mergeNode(m.values, kid)
		}
		nd.keys = append(nd.keys, lit)
		nd.kids = append(nd.kids, kid)
	}
	if m.values != nil {
		f.addMapMeta(m, nd, start, depth)
	}
	return nd, nil
}

// objectMap is what foldObject knows of an object that may be a map: one
// whose keys are data. A map keeps array_samples data entries; the
// values of the rest merge into one schema and their names are listed.
type objectMap struct {
	values            *jschema // once the object turns out to be a map
	probe             []string // the first key names, for the verdict
	skeleton          string   // a map of numbered keys: their shared skeleton
	buf               []byte
	keptData, omitted int
	list              []string // the omitted names, while they fit listCap
	listChars         int
	listFull          bool
	listCap           int
}

func (m *objectMap) isData(name string) bool {
	if isDataKey(name) {
		return true
	}
	if m.skeleton == "" {
		return false
	}
	var ok bool
	m.buf, ok = keySkeleton(name, m.buf)
	return ok && string(m.buf) == m.skeleton
}

func (m *objectMap) omit(name string) {
	m.omitted++
	if !m.listFull && m.listChars+len(name)+2 <= m.listCap {
		m.list = append(m.list, name)
		m.listChars += len(name) + 2
	} else {
		m.listFull = true
	}
}

// mapVerdict decides, at the last probe key, whether the object is a
// map. If it is, the data entries of nd past array_samples leave it for
// m.values.
func (f *jsonFolder) mapVerdict(m *objectMap, nd *jnode) {
	m.skeleton = sharedSkeleton(m.probe)
	dataKeys := 0
	for _, k := range m.probe {
		if m.isData(k) {
			dataKeys++
		}
	}
	if dataKeys*10 < len(m.probe)*9 {
		m.skeleton = ""
		return
	}
	m.values = &jschema{}
	keys, kids := nd.keys, nd.kids
	nd.keys, nd.kids = nil, nil
	for i := range keys {
		if m.isData(m.probe[i]) {
			f.mergeNode(m.values, kids[i])
			if m.keptData >= f.opt.ArraySamples {
				m.omit(m.probe[i])
				continue
			}
			m.keptData++
		}
		nd.keys, nd.kids = append(nd.keys, keys[i]), append(nd.kids, kids[i])
	}
}

// fieldValue folds the value (token vt) of the field name. A folded
// map's key list stays as it is.
func (f *jsonFolder) fieldValue(vt jsonTok, name string, foldedMap bool, depth int) (*jnode, error) {
	if (foldedMap && name == "_keys" || name == "_more_keys") && vt == tokString {
		return scalarNode(kString, f.src.text()), nil
	}
	return f.fold(vt, depth+1)
}

// addMapMeta closes a map's object (read from start): how many keys it
// omitted, their names when they are cheap, and their values' schema.
func (f *jsonFolder) addMapMeta(m *objectMap, nd *jnode, start, depth int) {
	nd.add("_omitted_keys", scalarNode(kInt, strconv.Itoa(m.omitted)))
	if len(m.list) > 0 && !m.listFull && m.listChars <= max(f.keyChars, (f.src.pos-start)/8) {
		// All the omitted names, when they are few or small beside
		// the values they name: the paths of an API, say.
		nd.add("_keys", stringNode(strings.Join(m.list, ", ")))
	}
	nd.add("_value_schema", f.render(m.values, depth+1, nil))
}

// sharedSkeleton returns the skeleton of numbered keys that 90% of keys
// share, or "".
func sharedSkeleton(keys []string) string {
	count := map[string]int{}
	var buf []byte
	for _, k := range keys {
		var ok bool
		if buf, ok = keySkeleton(k, buf); ok {
			count[string(buf)]++
		}
	}
	for sk, c := range count {
		if c*10 >= len(keys)*9 {
			return sk
		}
	}
	return ""
}

func (f *jsonFolder) foldArray(depth int) (*jnode, error) {
	nd := &jnode{kind: kArray}
	start := f.src.pos - 1
	var items *jschema // once the array turns out to be long
	limit := f.opt.ArraySamples + 1
	// The items' fields are gathered while the array is read, so it is
	// not read again for statistics; items past MaxDepth are not read
	// field by field, and arrayItems reads them again.
	var walk *arrayWalk
	var heads []itemRec // the first items, until the array is long
	fast := depth+1 <= f.opt.MaxDepth && len(f.src.s) <= walkLimit && !slowArrayItems
	n := 0
	for {
		t, err := f.src.next()
		if err != nil {
			return nil, err
		}
		if t == tokArrEnd {
			break
		}
		n++
		// Where the item starts: a container's bracket was just read, a
		// scalar's literal ends here.
		at, end := f.src.pos-1, f.src.pos
		container := t == tokObjStart || t == tokArrStart
		if !container {
			at = end - len(scalarLit(f.src, t))
		}
		if n <= limit {
			kid, err := f.fold(t, depth+1)
			if err != nil {
				return nil, err
			}
			nd.kids = append(nd.kids, kid)
			if fast {
				if container {
					end = f.src.pos
				}
				heads = append(heads, itemRec{tok: t, off: int32(at), end: int32(end)})
			}
			continue
		}
		if items == nil {
			items, walk, err = f.longArray(nd.kids, heads, fast)
			if walk != nil {
				defer walk.release()
			}
			if err != nil {
				return nil, err
			}
		}
		if err := f.scanItem(t, depth, items, walk, at, end); err != nil {
			return nil, err
		}
	}
	if items == nil {
		return nd, nil
	}
	return f.foldLongArray(nd, items, walk, f.src.s[start:f.src.pos], n, depth)
}

// longArray starts the statistics of an array found long: the schema of
// the items read so far (kids) and, when fast, their walk (heads).
func (f *jsonFolder) longArray(kids []*jnode, heads []itemRec, fast bool) (*jschema, *arrayWalk, error) {
	items := &jschema{}
	for _, kid := range kids {
		f.mergeNode(items, kid)
	}
	if !fast {
		return items, nil, nil
	}
	walk := newArrayWalk(f.src.s, f.opt.MaxObjectKeys)
	for _, h := range heads {
		if err := walk.readItem(h.tok, int(h.off), int(h.end)); err != nil {
			return nil, walk, err
		}
	}
	return items, walk, nil
}

// scanItem reads an item (token t, starting at at) of a long array into
// its schema and, when there is one, its walk. A scalar's text ends at
// end.
func (f *jsonFolder) scanItem(t jsonTok, depth int, items *jschema, walk *arrayWalk, at, end int) error {
	if walk == nil {
		return f.scan(t, depth+1, items, nil)
	}
	walk.beginItem()
	if err := f.scan(t, depth+1, items, walk); err != nil {
		return err
	}
	if t == tokObjStart || t == tokArrStart {
		end = f.src.pos
	}
	walk.endItem(t, at, end)
	return nil
}

// foldLongArray folds the long array arr (n items) whose first items nd
// holds: it keeps a head, the outliers and the last item, and a meta
// object with the items' schema.
func (f *jsonFolder) foldLongArray(nd *jnode, items *jschema, walk *arrayWalk, arr string, n, depth int) (*jnode, error) {
	if n <= f.opt.ArraySamples+1+maxOutliers+2 {
		// Maybe the output of an earlier fold: its last item is the meta object.
		if again, ok, err := f.refoldFolded(arr, depth); err != nil || ok {
			return again, err
		}
	}
	head := max(1, f.opt.ArraySamples-1)
	nd.kids = nd.kids[:head:head]
	nd.sch = items
	var stats map[string]*fieldStats
	var picks []itemPick
	nested := nestedRareKeys(items)
	if walk != nil {
		stats, picks = walk.stats, walk.picks(n, head, nested)
	} else {
		var err error
		if stats, picks, err = f.arrayItems(arr, n, head, nested); err != nil {
			return nil, err
		}
	}
	for _, p := range picks {
		kid, err := f.foldItem(p.text, p.tok, depth+1)
		if err != nil {
			return nil, err
		}
		nd.kids = append(nd.kids, kid)
	}
	omitted := n - head - len(picks)
	if depth+1 > f.opt.MaxDepth {
		// A meta object here would itself be too deep on a second pass.
		nd.kids = append(nd.kids, stringNode("[… "+strconv.Itoa(omitted)+" more items]"))
		return nd, nil
	}
	nd.kids = append(nd.kids, f.arrayMeta(items, stats, picks, n, omitted, depth))
	return nd, nil
}

// arrayMeta is a folded array's meta object: counts, the outliers'
// indexes, the items' schema.
func (f *jsonFolder) arrayMeta(items *jschema, stats map[string]*fieldStats, picks []itemPick, n, omitted, depth int) *jnode {
	meta := &jnode{kind: kObject}
	meta.add("_omitted", scalarNode(kInt, strconv.Itoa(omitted)))
	meta.add("_count", scalarNode(kInt, strconv.Itoa(n)))
	var at []*jnode
	for _, p := range picks[:len(picks)-1] {
		at = append(at, scalarNode(kInt, strconv.Itoa(p.index)))
	}
	if len(at) > 0 {
		meta.add("_outliers", &jnode{kind: kArray, kids: at})
	}
	meta.add("_schema", f.render(items, depth+2, stats))
	return meta
}

// refoldFolded folds again an array that an earlier fold wrote: every
// item is kept and its meta object stays the last item.
func (f *jsonFolder) refoldFolded(arr string, depth int) (*jnode, bool, error) {
	src := newJSONSource(arr)
	if t, err := src.next(); err != nil || t != tokArrStart {
		return nil, false, errBadJSON
	}
	var last string
	for {
		t, err := src.next()
		if err != nil {
			return nil, false, err
		}
		if t == tokArrEnd {
			break
		}
		at := src.pos
		if t == tokObjStart {
			at--
			if err := src.skip(); err != nil {
				return nil, false, err
			}
		} else if t == tokArrStart {
			if err := src.skip(); err != nil {
				return nil, false, err
			}
		}
		last = arr[at:src.pos]
	}
	if len(last) < 2 || !strings.HasPrefix(strings.TrimLeft(last[1:], " \t\r\n"), `"_omitted":`) {
		return nil, false, nil
	}
	saved := f.src
	defer func() { f.src = saved }()
	f.src = newJSONSource(arr)
	if _, err := f.src.next(); err != nil {
		return nil, false, err
	}
	nd := &jnode{kind: kArray}
	for {
		t, err := f.src.next()
		if err != nil {
			return nil, false, err
		}
		if t == tokArrEnd {
			return nd, true, nil
		}
		kid, err := f.fold(t, depth+1)
		if err != nil {
			return nil, false, err
		}
		nd.kids = append(nd.kids, kid)
	}
}

// foldItem folds one array item read again from its text.
func (f *jsonFolder) foldItem(text string, t jsonTok, depth int) (*jnode, error) {
	switch t {
	case tokObjStart, tokArrStart:
		saved := f.src
		defer func() { f.src = saved }()
		f.src = newJSONSource(text)
		t0, err := f.src.next()
		if err != nil {
			return nil, err
		}
		return f.fold(t0, depth)
	case tokString:
		saved := f.src
		defer func() { f.src = saved }()
		f.src = &jsonSource{s: text, litTo: len(text), esc: strings.IndexByte(text, '\\') >= 0}
		return f.foldString()
	case tokInt:
		return scalarNode(kInt, text), nil
	case tokFloat:
		return scalarNode(kFloat, text), nil
	}
	return f.fold(t, depth) // true, false, null
}

// fieldStats summarizes the values of one field of an array's items.
type fieldStats struct {
	present  int
	distinct map[string]int // literal → items, until overflow
	overflow bool           // more than maxDistinct literals: counts no longer kept
	nums     int
	mean, m2 float64 // Welford's running mean and squared deviations
	min, max float64
	minLit   string
	maxLit   string
	status   int8  // isStatusField of the field's name: 0 not asked yet, 1 no, 2 yes
	idx      int32 // its index in arrayWalk.list
}

// statusField is textkit.IsStatusField(name), asked once per field.
func (st *fieldStats) statusField(name string) bool {
	if st.status == 0 {
		st.status = 1
		if textkit.IsStatusField(name) {
			st.status = 2
		}
	}
	return st.status == 2
}

func (st *fieldStats) add(t jsonTok, lit string) {
	switch {
	case st.overflow:
		// Past maxDistinct only the count of literals is read: their
		// counts are no longer kept.
	case st.distinct == nil:
		st.distinct = map[string]int{lit: 1}
	case len(st.distinct) < maxDistinct:
		st.distinct[lit]++
	default:
		if c, ok := st.distinct[lit]; ok {
			st.distinct[lit] = c + 1
		} else {
			st.overflow = true
		}
	}
	if t != tokInt && t != tokFloat {
		return
	}
	x, err := numberValue(lit)
	if err != nil || math.IsInf(x, 0) {
		return
	}
	st.nums++
	if st.nums == 1 || x < st.min {
		st.min, st.minLit = x, lit
	}
	if st.nums == 1 || x > st.max {
		st.max, st.maxLit = x, lit
	}
	d := x - st.mean
	st.mean += d / float64(st.nums)
	st.m2 += d * (x - st.mean)
}

// pow10Exact holds the powers of ten a float64 holds exactly.
var pow10Exact = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15}

// numberValue is strconv.ParseFloat(lit, 64) for a JSON number literal,
// with a fast path for short decimals (at most 15 digits, no exponent):
// their mantissa and power of ten are exact, so one division rounds
// correctly.
func numberValue(lit string) (float64, error) {
	i, neg := 0, false
	if lit != "" && lit[0] == '-' {
		i, neg = 1, true
	}
	var mant uint64
	digits, point := 0, -1
	for ; i < len(lit); i++ {
		switch c := lit[i]; {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			digits++
		case c == '.' && point < 0:
			point = i
		default:
			return strconv.ParseFloat(lit, 64)
		}
	}
	if digits == 0 || digits > 15 || (neg && mant == 0) {
		return strconv.ParseFloat(lit, 64)
	}
	x := float64(mant)
	if point >= 0 {
		x /= pow10Exact[len(lit)-point-1]
	}
	if neg {
		x = -x
	}
	return x, nil
}

// far reports a number more than four standard deviations from the mean.
func (st *fieldStats) far(lit string) bool {
	if st.nums < 10 {
		return false
	}
	x, err := numberValue(lit)
	if err != nil {
		return false
	}
	sd := math.Sqrt(st.m2 / float64(st.nums))
	return sd > 0 && math.Abs(x-st.mean) > 4*sd
}

// unusual reports a value of a status-like field that few items share
// while most share one value.
func (st *fieldStats) unusual(lit string, n int) bool {
	if st.overflow || n < 10 {
		return false
	}
	top := 0
	for _, k := range st.distinct {
		top = max(top, k)
	}
	return textkit.RareValue(st.distinct[lit], top, n)
}

type itemPick struct {
	index int
	text  string
	tok   jsonTok
}

// arrayItems reads the array arr (n items) twice more: once for per-field
// statistics, once to pick the outliers past the head and the last item.
func (f *jsonFolder) arrayItems(arr string, n, head int, nested rareKeys) (map[string]*fieldStats, []itemPick, error) {
	stats, err := f.itemStats(arr)
	if err != nil {
		return nil, nil, err
	}
	odd := outlierSet()
	var last itemPick
	err = walkItems(arr, f.check, func(i int, t jsonTok, text string, fields []itemField) error {
		if i == n-1 {
			last = itemPick{i, text, t}
			return nil
		}
		if i < head {
			return nil
		}
		if r := rarer(itemRarity(stats, t, text, fields, n), nested.rarity(text)); r > 0 {
			odd.Offer(itemPick{i, text, t}, r)
		}
		return nil
	})
	return stats, append(odd.Items, last), err
}

// rareKeys are the keys that few of an array's items carry inside an
// object field ("profile": {..., "nickname_override": ...} on one item
// of 500), quoted as they open a member, with how many items have them.
type rareKeys []rareKey

type rareKey struct {
	member string // "name":
	seen   int
}

// maxNestedRareKeys bounds the nested keys an item's text is searched for.
const maxNestedRareKeys = 8

// nestedRareKeys returns the keys of the object fields of items (an
// array's items merged) that fewer than one in ten of those objects
// have, at most maxNestedRareKeys. A field with many more keys than an
// object of it holds, or mostly rare ones, is a map keyed by data
// (speakers, ids), whose every item would be odd: it has none.
func nestedRareKeys(items *jschema) rareKeys {
	var out rareKeys
	for _, fs := range items.fields {
		if fs == nil || fs.objs < 10 || fs.more {
			continue
		}
		rare, members := 0, 0
		for k := range fs.names {
			members += fs.seen[k]
			if fs.seen[k]*10 < fs.objs {
				rare++
			}
		}
		if rare*2 > len(fs.names) || len(fs.names)*fs.objs > 2*members+fs.objs {
			continue
		}
		for k, name := range fs.names {
			if fs.seen[k]*10 < fs.objs && len(out) < maxNestedRareKeys {
				out = append(out, rareKey{keyLit(name) + ":", fs.seen[k]})
			}
		}
	}
	return out
}

// rarity is the least count of the keys in r whose member item (an
// item's text) holds, or 0. A key's name met in a string value counts
// too: the item is shown, which loses nothing.
func (r rareKeys) rarity(item string) int {
	rarest := 0
	for _, k := range r {
		if strings.Contains(item, k.member) {
			rarest = rarer(rarest, k.seen)
		}
	}
	return rarest
}

// outlierSet keeps the maxOutliers rarest odd items of an array, in
// their order: an item that stands alone (the one record with an error
// key) is shown before items that share their oddity with many others
// (a key ten items carry), whichever comes first.
func outlierSet() textkit.Rarest[itemPick] { return textkit.Rarest[itemPick]{Max: maxOutliers} }

// itemStats is arrayItems' first pass: statistics per field of the
// items, "" for scalar items, for at most max_object_keys names.
func (f *jsonFolder) itemStats(arr string) (map[string]*fieldStats, error) {
	stats := map[string]*fieldStats{}
	stat := func(name string) *fieldStats {
		st := stats[name]
		if st == nil {
			if len(stats) >= f.opt.MaxObjectKeys {
				return nil
			}
			st = &fieldStats{}
			stats[name] = st
		}
		return st
	}
	err := walkItems(arr, f.check, func(i int, t jsonTok, text string, fields []itemField) error {
		if t != tokObjStart {
			if t != tokArrStart {
				if st := stat(""); st != nil {
					st.present++
					st.add(t, text)
				}
			}
			return nil
		}
		for _, fl := range fields {
			if st := stat(fl.name); st != nil {
				st.present++
				if fl.tok != tokObjStart && fl.tok != tokArrStart {
					st.add(fl.tok, fl.lit)
				}
			}
		}
		return nil
	})
	return stats, err
}

// itemRarity returns how many items share the oddity of an item (of n,
// token t) that stands apart, at least 1, or 0 for an item that does
// not: a field of it is odd (see fieldRarity), or a number item is far
// from the others.
func itemRarity(stats map[string]*fieldStats, t jsonTok, text string, fields []itemField, n int) int {
	if t != tokObjStart {
		if st := stats[""]; st != nil && (t == tokInt || t == tokFloat) && st.far(text) {
			return 1
		}
		return 0
	}
	rarest := 0
	for _, fl := range fields {
		if st := stats[fl.name]; st != nil {
			rarest = rarer(rarest, fieldRarity(st, fl, n))
		}
	}
	return rarest
}

// rarer is the lesser of two rarities, 0 (not odd) aside.
func rarer(a, b int) int {
	if a == 0 || b > 0 && b < a {
		return b
	}
	return a
}

// fieldRarity returns how many items share what makes a field odd, or 0:
// a key few items have (as many as have it), a number far from its mean
// (1), a rare value of a status-like field (as many as hold it).
func fieldRarity(st *fieldStats, fl itemField, n int) int {
	switch {
	case n >= 10 && st.present*10 < n:
		return st.present // a key few items have
	case fl.tok == tokInt || fl.tok == tokFloat:
		if st.far(fl.lit) {
			return 1
		}
		if st.statusField(fl.name) && st.unusual(fl.lit, n) {
			return st.distinct[fl.lit]
		}
	case fl.tok == tokString || fl.tok == tokTrue || fl.tok == tokFalse || fl.tok == tokNull:
		if st.statusField(fl.name) && st.unusual(fl.lit, n) {
			return st.distinct[fl.lit]
		}
	}
	return 0
}

// slowArrayItems makes foldArray read a long array's items again with
// arrayItems; tests compare both paths.
var slowArrayItems = false

// scalarLit is the literal of the scalar token t that src just read, and
// "" for a container's start.
func scalarLit(src *jsonSource, t jsonTok) string {
	switch t {
	case tokString, tokInt, tokFloat:
		return src.text()
	case tokTrue:
		return "true"
	case tokFalse:
		return "false"
	case tokNull:
		return "null"
	}
	return ""
}

// arrayWalk is arrayItems in one pass: foldArray hands it each item's
// fields as it reads them, and picks looks at the items it keeps. Items
// and fields are kept as offsets into the document, in pooled slices
// without pointers: a long array costs no garbage to scan.
type arrayWalk struct {
	s       string // the document
	maxKeys int
	stats   map[string]*fieldStats
	list    []*fieldStats // stats by index
	names   []string      // their names
	items   []itemRec
	fields  []walkField
	from    int32 // where the current item's fields start
}

// itemRec is one item: its token and text, and its fields (an object's).
type itemRec struct {
	tok      jsonTok
	off, end int32
	from, to int32 // its fields in arrayWalk.fields
}

// walkField is one field of an item: its statistics (-1: none, past
// maxKeys names) and its value's literal, a scalar's.
type walkField struct {
	stat   int32
	off, n int32
	tok    jsonTok
}

type walkBufs struct {
	items  []itemRec
	fields []walkField
}

var walkPool sync.Pool

func newArrayWalk(s string, maxKeys int) *arrayWalk {
	w := &arrayWalk{s: s, maxKeys: maxKeys, stats: map[string]*fieldStats{}}
	if b, ok := walkPool.Get().(*walkBufs); ok {
		w.items, w.fields = b.items[:0], b.fields[:0]
	}
	return w
}

// release returns the walk's buffers to the pool; w is not used again.
func (w *arrayWalk) release() {
	if cap(w.fields) <= 1<<20 && cap(w.items) <= 1<<18 {
		walkPool.Put(&walkBufs{w.items, w.fields})
	}
	w.items, w.fields = nil, nil
}

// walkLimit bounds the documents whose offsets fit the walk's int32s.
const walkLimit = 1<<31 - 1

func (w *arrayWalk) stat(name string) int32 {
	st, ok := w.stats[name]
	if !ok {
		if len(w.stats) >= w.maxKeys {
			return -1
		}
		st = &fieldStats{idx: int32(len(w.list))}
		w.stats[name] = st
		w.list = append(w.list, st)
		w.names = append(w.names, name)
	}
	return st.idx
}

// lit is the literal of a scalar of token t at off, n bytes long.
func (w *arrayWalk) lit(t jsonTok, off, n int32) string {
	switch t {
	case tokTrue:
		return "true"
	case tokFalse:
		return "false"
	case tokNull:
		return "null"
	case tokObjStart, tokArrStart:
		return ""
	}
	return w.s[off : off+n]
}

func (w *arrayWalk) beginItem() { w.from = int32(len(w.fields)) }

// field records one field of the current item, an object: its value has
// token t and, a scalar, ends at end in the document. fld is the items'
// schema of the field, or nil.
func (w *arrayWalk) field(fld *jschema, name string, t jsonTok, lit string, end int) {
	off, n := int32(end-len(lit)), int32(len(lit))
	var i int32
	switch {
	case fld == nil:
		i = w.stat(name)
	case fld.walkStatSet:
		i = fld.walkStat
	default:
		// The schema's field of the items is name's alone.
		i = w.stat(name)
		fld.walkStat, fld.walkStatSet = i, true
	}
	if i >= 0 {
		st := w.list[i]
		st.present++
		if t != tokObjStart && t != tokArrStart {
			st.add(t, lit)
		}
	}
	w.fields = append(w.fields, walkField{stat: i, off: off, n: n, tok: t})
}

// endItem closes the current item, the text s[off:end].
func (w *arrayWalk) endItem(t jsonTok, off, end int) {
	if t != tokObjStart && t != tokArrStart {
		if i := w.stat(""); i >= 0 {
			st := w.list[i]
			st.present++
			st.add(t, w.s[off:end])
		}
	}
	w.items = append(w.items, itemRec{tok: t, off: int32(off), end: int32(end), from: w.from, to: int32(len(w.fields))})
}

// readItem reads one item again, the text s[off:end], read once already.
func (w *arrayWalk) readItem(t jsonTok, off, end int) error {
	w.beginItem()
	if t == tokObjStart {
		src := newJSONSource(w.s[off:end])
		if _, err := src.next(); err != nil {
			return err
		}
		err := eachField(src, func(name string, vt jsonTok, lit string) {
			w.field(nil, name, vt, lit, off+src.pos)
		})
		if err != nil {
			return err
		}
	}
	w.endItem(t, off, end)
	return nil
}

// eachField reads the fields of the object whose '{' src just read and
// calls fn with each name, value token and literal (a scalar's; "" for a
// container, which is skipped by its brackets alone).
func eachField(src *jsonSource, fn func(name string, vt jsonTok, lit string)) error {
	for {
		kt, err := src.next()
		if err != nil {
			return err
		}
		if kt == tokObjEnd {
			return nil
		}
		name := src.str()
		vt, err := src.next()
		if err != nil {
			return err
		}
		if vt == tokObjStart || vt == tokArrStart {
			if err := src.skipValidated(); err != nil {
				return err
			}
		}
		fn(name, vt, scalarLit(src, vt))
	}
}

// statVerdict is what picks may ask of one field's statistics, worked
// out once per field rather than per item.
type statVerdict struct {
	rare     bool    // few items have the field: each that does is odd
	sd       float64 // far asks |x-mean| > 4 sd when sd > 0
	unusual  bool    // a status-like field whose rare values are odd
	topCount int     // its most common value's items
}

func (st *fieldStats) verdict(name string, n int) statVerdict {
	v := statVerdict{rare: n >= 10 && st.present*10 < n}
	if st.nums >= 10 {
		v.sd = math.Sqrt(st.m2 / float64(st.nums))
	}
	if st.statusField(name) && !st.overflow && n >= 10 {
		v.unusual = true
		for _, k := range st.distinct {
			v.topCount = max(v.topCount, k)
		}
	}
	return v
}

// farFrom is fieldStats.far with the verdict's standard deviation.
func (st *fieldStats) farFrom(v *statVerdict, lit string) bool {
	if v.sd <= 0 {
		return false
	}
	x, err := numberValue(lit)
	return err == nil && math.Abs(x-st.mean) > 4*v.sd
}

// unusualFrom is fieldStats.unusual with the verdict's counts.
func (st *fieldStats) unusualFrom(v *statVerdict, lit string, n int) bool {
	if !v.unusual {
		return false
	}
	return textkit.RareValue(st.distinct[lit], v.topCount, n)
}

// picks is arrayItems' second pass over the items walked (n of them).
func (w *arrayWalk) picks(n, head int, nested rareKeys) []itemPick {
	verdicts := make([]statVerdict, len(w.list))
	for i, st := range w.list {
		verdicts[i] = st.verdict(w.names[i], n)
	}
	odd := outlierSet()
	for i := head; i < n-1; i++ {
		it := w.items[i]
		rarest := 0
		if it.tok == tokObjStart {
			for _, fl := range w.fields[it.from:it.to] {
				if fl.stat >= 0 {
					rarest = rarer(rarest, w.fieldRarity(fl, &verdicts[fl.stat], n))
				}
			}
		} else if st := w.stats[""]; st != nil && (it.tok == tokInt || it.tok == tokFloat) && st.far(w.s[it.off:it.end]) {
			rarest = 1
		}
		if rarest = rarer(rarest, nested.rarity(w.s[it.off:it.end])); rarest > 0 {
			odd.Offer(itemPick{i, w.s[it.off:it.end], it.tok}, rarest)
		}
	}
	last := w.items[n-1]
	return append(odd.Items, itemPick{n - 1, w.s[last.off:last.end], last.tok})
}

// fieldRarity is fieldRarity for a walked field, its statistics' verdict v.
func (w *arrayWalk) fieldRarity(fl walkField, v *statVerdict, n int) int {
	st := w.list[fl.stat]
	switch {
	case v.rare:
		return st.present // a key few items have
	case fl.tok == tokInt || fl.tok == tokFloat:
		lit := w.lit(fl.tok, fl.off, fl.n)
		if st.farFrom(v, lit) {
			return 1
		}
		if st.unusualFrom(v, lit, n) {
			return st.distinct[lit]
		}
	case fl.tok == tokString || fl.tok == tokTrue || fl.tok == tokFalse || fl.tok == tokNull:
		if lit := w.lit(fl.tok, fl.off, fl.n); v.unusual && st.unusualFrom(v, lit, n) {
			return st.distinct[lit]
		}
	}
	return 0
}

type itemField struct {
	name string
	tok  jsonTok
	lit  string
}

// walkItems calls fn for each item of the array arr with its text and,
// for an object, its top-level fields (containers by their start token).
// arr has been read once already: nested containers are skipped by their
// brackets alone.
func walkItems(arr string, check func() error, fn func(i int, t jsonTok, text string, fields []itemField) error) error {
	src := newJSONSource(arr)
	if t, err := src.next(); err != nil || t != tokArrStart {
		return errBadJSON
	}
	var fields []itemField
	for i := 0; ; i++ {
		if err := check(); err != nil {
			return err
		}
		t, err := src.next()
		if err != nil {
			return err
		}
		if t == tokArrEnd {
			return nil
		}
		fields = fields[:0]
		switch t {
		case tokObjStart:
			at := src.pos - 1
			if err := eachField(src, func(name string, vt jsonTok, lit string) {
				fields = append(fields, itemField{name, vt, lit})
			}); err != nil {
				return err
			}
			err = fn(i, t, arr[at:src.pos], fields)
		case tokArrStart:
			at := src.pos - 1
			if err := src.skipValidated(); err != nil {
				return err
			}
			err = fn(i, t, arr[at:src.pos], nil)
		case tokString, tokInt, tokFloat:
			err = fn(i, t, src.text(), nil)
		case tokTrue:
			err = fn(i, t, "true", nil)
		case tokFalse:
			err = fn(i, t, "false", nil)
		default:
			err = fn(i, t, "null", nil)
		}
		if err != nil {
			return err
		}
	}
}

// summary describes a field's values: distinct count and range.
func (st *fieldStats) summary(kinds uint8) string {
	parts := []string{kindString(kinds)}
	d := strconv.Itoa(len(st.distinct)) + " distinct"
	if st.overflow {
		d = strconv.Itoa(maxDistinct) + "+ distinct"
	}
	parts = append(parts, d)
	if st.nums > 0 && st.minLit != st.maxLit {
		parts = append(parts, st.minLit+"–"+st.maxLit)
	} else if !st.overflow && len(st.distinct) <= 4 && len(st.distinct) > 1 {
		top, total := 0, 0
		for _, c := range st.distinct {
			top, total = max(top, c), total+c
		}
		var vals []string
		for lit, c := range st.distinct {
			if len(lit) > 40 {
				return strings.Join(parts, " · ")
			}
			v := lit
			if len(v) >= 2 && v[0] == '"' && !strings.Contains(v, "\\") {
				v = v[1 : len(v)-1]
			}
			if textkit.RareValue(c, top, total) {
				v += " ×" + strconv.Itoa(c) // how many of the items it sets apart
			}
			vals = append(vals, v)
		}
		slices.Sort(vals)
		parts = append(parts, strings.Join(vals, ", "))
	}
	return strings.Join(parts, " · ")
}

// scan merges the schema of the value that starts with t into acc without
// building output. An object's own fields go to w when it is not nil.
func (f *jsonFolder) scan(t jsonTok, depth int, acc *jschema, w *arrayWalk) error {
	if err := f.check(); err != nil {
		return err
	}
	switch t {
	case tokObjStart:
		acc.kinds |= kObject
		if depth > f.opt.MaxDepth {
			return f.src.skip()
		}
		acc.objs++
		for {
			key, esc, vt, err := f.src.member()
			if err != nil {
				return err
			}
			if vt == tokObjEnd {
				return nil
			}
			name := stringValue(key, esc)
			fld := f.field(acc, name)
			if w != nil {
				w.field(fld, name, vt, scalarLit(f.src, vt), f.src.pos)
			}
			if fld == nil {
				if vt == tokObjStart || vt == tokArrStart {
					if err := f.src.skip(); err != nil {
						return err
					}
				}
				continue
			}
			if err := f.scan(vt, depth+1, fld, nil); err != nil {
				return err
			}
		}
	case tokArrStart:
		acc.kinds |= kArray
		if depth > f.opt.MaxDepth {
			return f.src.skip()
		}
		if acc.elem == nil {
			acc.elem = &jschema{}
		}
		for {
			t, err := f.src.next()
			if err != nil {
				return err
			}
			if t == tokArrEnd {
				return nil
			}
			if err := f.scan(t, depth+1, acc.elem, nil); err != nil {
				return err
			}
		}
	case tokString:
		acc.kinds |= kString
	case tokInt:
		acc.kinds |= kInt
	case tokFloat:
		acc.kinds |= kFloat
	case tokTrue, tokFalse:
		acc.kinds |= kBool
	case tokNull:
		acc.kinds |= kNull
	default:
		return errBadJSON
	}
	return nil
}

// field returns acc's schema of key name, counting one more object that
// has it, or nil when acc holds as many keys as it may.
func (f *jsonFolder) field(acc *jschema, name string) *jschema {
	if acc.index != nil {
		if i, ok := acc.index[name]; ok {
			acc.seen[i]++
			return acc.fields[i]
		}
	} else {
		for i, have := range acc.names {
			if have == name {
				acc.seen[i]++
				return acc.fields[i]
			}
		}
	}
	return f.addField(acc, name)
}

// addMoreName records the name of a key acc drops, within the
// document's budget: an API's request fields under its paths keep their
// names when their schemas are too wide to draw.
func (f *jsonFolder) addMoreName(acc *jschema, name string) {
	if _, dup := acc.moreSet[name]; dup || f.moreChars < len(name)+2 {
		return
	}
	if acc.moreSet == nil {
		acc.moreSet = map[string]struct{}{}
	}
	name = strings.Clone(name)
	acc.moreSet[name] = struct{}{}
	acc.moreNames = append(acc.moreNames, name)
	f.moreChars -= len(name) + 2
}

func (f *jsonFolder) addField(acc *jschema, name string) *jschema {
	// Room for "_type", "_items" and "_more_keys" next to the keys.
	if len(acc.names) >= f.opt.MaxObjectKeys-3 || f.fields >= maxSchemaFields {
		acc.more = true
		f.addMoreName(acc, name)
		return nil
	}
	f.fields++
	fld := &jschema{}
	acc.names = append(acc.names, strings.Clone(name))
	acc.fields = append(acc.fields, fld)
	acc.seen = append(acc.seen, 1)
	if acc.index != nil {
		acc.index[acc.names[len(acc.names)-1]] = len(acc.names) - 1
	} else if len(acc.names) > 8 {
		acc.index = make(map[string]int, 2*len(acc.names))
		for i, k := range acc.names {
			if _, dup := acc.index[k]; !dup {
				acc.index[k] = i
			}
		}
	}
	return fld
}

// mergeNode merges the schema of an output node into acc.
func (f *jsonFolder) mergeNode(acc *jschema, nd *jnode) {
	acc.kinds |= nd.kind
	if nd.deep {
		return
	}
	switch nd.kind {
	case kObject:
		acc.objs++
		for i, k := range nd.keys {
			if fld := f.field(acc, unquoteJSON(k[1:len(k)-1])); fld != nil {
				f.mergeNode(fld, nd.kids[i])
			}
		}
	case kArray:
		if acc.elem == nil {
			acc.elem = &jschema{}
		}
		if nd.sch != nil {
			f.mergeSchema(acc.elem, nd.sch)
			return
		}
		for _, kid := range nd.kids {
			f.mergeNode(acc.elem, kid)
		}
	}
}

func (f *jsonFolder) mergeSchema(dst, src *jschema) {
	dst.kinds |= src.kinds
	dst.objs += src.objs
	dst.more = dst.more || src.more
	for _, name := range src.moreNames {
		f.addMoreName(dst, name)
	}
	for i, name := range src.names {
		fld := f.field(dst, name)
		if fld == nil {
			continue
		}
		// field counted one sighting; src knows how many there were.
		f.addSeen(dst, name, src.seen[i]-1)
		f.mergeSchema(fld, src.fields[i])
	}
	if src.elem != nil {
		if dst.elem == nil {
			dst.elem = &jschema{}
		}
		f.mergeSchema(dst.elem, src.elem)
	}
}

func (f *jsonFolder) addSeen(acc *jschema, name string, d int) {
	if acc.index != nil {
		if i, ok := acc.index[name]; ok {
			acc.seen[i] += d
		}
		return
	}
	for i, have := range acc.names {
		if have == name {
			acc.seen[i] += d
			return
		}
	}
}

// render turns a schema into an output node at output depth od; stats,
// when given, describe the scalar fields of s. Containers that would sit
// deeper than max_depth are named, not drawn. A schema whose keys are
// data (a map inside the items) shows their count and merged values, so
// a second pass does not take it for a map.
func (f *jsonFolder) render(s *jschema, od int, stats map[string]*fieldStats) *jnode {
	kinds := s.kinds
	drawObj := kinds&kObject != 0 && (s.objs > 0 || len(s.names) > 0)
	drawArr := kinds&kArray != 0 && s.elem != nil
	if od > f.opt.MaxDepth || (!drawObj && !drawArr) {
		if st := stats[""]; st != nil && kinds&(kObject|kArray) == 0 {
			return stringNode(st.summary(kinds))
		}
		return stringNode(kindString(kinds))
	}
	if kinds == kArray {
		nd := &jnode{kind: kArray}
		if s.elem.kinds != 0 {
			nd.kids = []*jnode{f.render(s.elem, od+1, nil)}
		}
		return nd
	}
	nd := &jnode{kind: kObject}
	if kinds != kObject {
		nd.add("_type", stringNode(kindString(kinds)))
	}
	if drawArr && s.elem.kinds != 0 {
		nd.add("_items", f.render(s.elem, od+1, nil))
	}
	if data := countDataKeys(s.names); len(s.names) >= mapProbeKeys && data*10 >= len(s.names)*9 {
		f.renderDataKeys(nd, s, od, data)
		return nd
	}
	f.renderFields(nd, s, od, stats)
	return nd
}

func countDataKeys(names []string) int {
	data := 0
	for _, name := range names {
		if isDataKey(name) {
			data++
		}
	}
	return data
}

// renderDataKeys adds to nd the fields of s, a map's schema: its named
// fields, then the count of its data keys and their merged values.
func (f *jsonFolder) renderDataKeys(nd *jnode, s *jschema, od, data int) {
	merged := &jschema{}
	for i, name := range s.names {
		if !isDataKey(name) {
			nd.add(name, f.render(s.fields[i], od+1, nil))
			continue
		}
		f.mergeSchema(merged, s.fields[i])
	}
	nd.add("_data_keys", scalarNode(kInt, strconv.Itoa(data)))
	nd.add("_values", f.render(merged, od+1, nil))
}

// renderFields adds to nd the fields of s, a name ending in '?' when
// some objects lack it, a scalar summed up by its stats when given.
func (f *jsonFolder) renderFields(nd *jnode, s *jschema, od int, stats map[string]*fieldStats) {
	for i, name := range s.names {
		kid := f.render(s.fields[i], od+1, nil)
		if st := stats[name]; st != nil && kid.lit != "" && s.fields[i].kinds&(kObject|kArray) == 0 {
			kid = stringNode(st.summary(s.fields[i].kinds))
		}
		if s.seen[i] < s.objs {
			name += "?"
		}
		nd.add(name, kid)
	}
	if s.more {
		more := "omitted"
		if len(s.moreNames) > 0 {
			more = strings.Join(s.moreNames, ", ")
		}
		nd.add("_more_keys", stringNode(more))
	}
}

// foldMark matches the marks compaction leaves in a string, so a second
// pass keeps a compacted string as it is.
func hasFoldMark(s string) bool {
	i := strings.Index(s, "…[")
	if i < 0 {
		return false
	}
	rest := s[i+len("…["):]
	j := 0
	for j < len(rest) && isDigit(rest[j]) {
		j++
	}
	return j > 0 && (strings.HasPrefix(rest[j:], " chars]…") || strings.HasPrefix(rest[j:], " lines]…"))
}

// foldString returns the last string token as it is, or compacted by what
// it holds when it is long.
func (f *jsonFolder) foldString() (*jnode, error) {
	lit := f.src.text()
	limit := f.opt.MaxStringChars + truncSlack
	if len(lit) <= limit+2 {
		return scalarNode(kString, lit), nil
	}
	v := f.src.str()
	n := utf8.RuneCountInString(v)
	if n <= limit {
		return scalarNode(kString, lit), nil
	}
	if n >= f.opt.Base64MinChars {
		if m, ok := b64.Value(v, f.opt.Base64MinChars); ok {
			return stringNode(m), nil
		}
	}
	out, ok, err := CompactString(f.ctx, v, f.opt)
	if err != nil {
		return nil, err
	}
	if ok {
		return stringNode(out), nil
	}
	return scalarNode(kString, lit), nil
}

// CompactString shortens a long string by what it is. ok is false for a
// string kept whole: a diff or patch, code, a log the log path cannot
// shorten, or one compacted before.
func CompactString(ctx context.Context, v string, opt Options) (string, bool, error) {
	if hasFoldMark(v) || textkit.IsPatch(v) {
		return "", false, nil
	}
	lines := strings.Split(v, "\n")
	if opt.CompactLog != nil {
		// A log or a stack trace: the log path folds its templates and
		// keeps its failures and its tail.
		if out, isLog, err := opt.CompactLog(ctx, v, lines); isLog || err != nil {
			return out, out != "" && err == nil, err
		}
	}
	if len(lines) >= 4 && textkit.IsCode(lines) {
		return "", false, nil
	}
	if len(lines) >= 12 {
		if out := textkit.HeadFailuresTail(lines); len(out) < len(v) {
			return out, true, nil
		}
	}
	// Prose: head and tail, cut at word boundaries.
	r := []rune(v)
	head, tail := opt.MaxStringChars*2/3, opt.MaxStringChars/3
	h := textkit.WordCut(r[:head], false)
	t := textkit.WordCut(r[len(r)-tail:], true)
	return string(h) + " …[" + strconv.Itoa(len(r)-len(h)-len(t)) + " chars]… " + string(t), true, nil
}

// appendJSONString appends s as a JSON string, escaping only what JSON
// requires, so key names stay searchable as they are.
func appendJSONString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == '"' || c == '\\':
				dst = append(dst, '\\', c)
			case c == '\n':
				dst = append(dst, '\\', 'n')
			case c == '\r':
				dst = append(dst, '\\', 'r')
			case c == '\t':
				dst = append(dst, '\\', 't')
			case c < 0x20:
				const hex = "0123456789abcdef"
				dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&15])
			default:
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = append(dst, "\uFFFD"...)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// inlineWidth is the width of nd on one line, or more than limit.
func inlineWidth(nd *jnode, limit int) int {
	switch nd.kind {
	case kObject, kArray:
		if nd.deep {
			return len(nd.lit)
		}
	default:
		return len(nd.lit)
	}
	w := 2
	for i, kid := range nd.kids {
		if i > 0 {
			w += 2
		}
		if nd.kind == kObject {
			w += len(nd.keys[i]) + 2
		}
		if w > limit {
			return w
		}
		w += inlineWidth(kid, limit-w)
		if w > limit {
			return w
		}
	}
	return w
}

func appendInline(dst []byte, nd *jnode) []byte {
	if nd.lit != "" || nd.deep {
		return append(dst, nd.lit...)
	}
	open, end := byte('['), byte(']')
	if nd.kind == kObject {
		open, end = '{', '}'
	}
	dst = append(dst, open)
	for i, kid := range nd.kids {
		if i > 0 {
			dst = append(dst, ',', ' ')
		}
		if nd.kind == kObject {
			dst = append(dst, nd.keys[i]...)
			dst = append(dst, ':', ' ')
		}
		dst = appendInline(dst, kid)
	}
	return append(dst, end)
}

// isMinifiedJSON reports a document written without layout (API
// responses, generated specs): under one line break per 1000 bytes.
func isMinifiedJSON(text string) bool {
	return strings.Count(text, "\n")*1000 < len(text)
}

// appendMinified prints nd with no space between tokens.
func appendMinified(dst []byte, nd *jnode) []byte {
	if nd.lit != "" || nd.deep {
		return append(dst, nd.lit...)
	}
	open, end := byte('['), byte(']')
	if nd.kind == kObject {
		open, end = '{', '}'
	}
	dst = append(dst, open)
	for i, kid := range nd.kids {
		if i > 0 {
			dst = append(dst, ',')
		}
		if nd.kind == kObject {
			dst = append(dst, nd.keys[i]...)
			dst = append(dst, ':')
		}
		dst = appendMinified(dst, kid)
	}
	return append(dst, end)
}

// appendPretty prints nd at nesting level, its first character at column
// col; lines after the first start with prefix and two spaces a level.
// A container too wide for one line puts its entries on lines of their
// own, filling each line with as many short entries as fit.
func appendPretty(dst []byte, nd *jnode, level, col int, prefix string) []byte {
	if nd.lit != "" || nd.deep || len(nd.kids) == 0 {
		return appendInline(dst, nd)
	}
	if inlineWidth(nd, jsonWrap-col) <= jsonWrap-col {
		return appendInline(dst, nd)
	}
	open, end := byte('['), byte(']')
	if nd.kind == kObject {
		open, end = '{', '}'
	}
	dst = append(dst, open)
	margin := len(prefix) + 2*(level+1)
	lineCol := jsonWrap + 1 // column on the current line; past the wrap: start a new one
	for i, kid := range nd.kids {
		w := inlineWidth(kid, jsonWrap)
		if nd.kind == kObject {
			w += len(nd.keys[i]) + 2
		}
		last := i == len(nd.kids)-1
		if !last {
			w++ // the comma
		}
		fits := margin+w <= jsonWrap
		if fits && lineCol > margin && lineCol+1+w <= jsonWrap {
			dst = append(dst, ' ')
			lineCol++
		} else {
			dst = append(dst, '\n')
			dst = append(dst, prefix...)
			dst = appendSpaces(dst, 2*(level+1))
			lineCol = margin
		}
		start := len(dst)
		if nd.kind == kObject {
			dst = append(dst, nd.keys[i]...)
			dst = append(dst, ':', ' ')
		}
		if fits {
			dst = appendInline(dst, kid)
		} else {
			dst = appendPretty(dst, kid, level+1, lineCol+len(dst)-start, prefix)
		}
		if !last {
			dst = append(dst, ',')
		}
		if fits {
			lineCol += len(dst) - start
		} else {
			lineCol = jsonWrap + 1
		}
	}
	dst = append(dst, '\n')
	dst = append(dst, prefix...)
	dst = appendSpaces(dst, 2*level)
	return append(dst, end)
}

func appendSpaces(dst []byte, n int) []byte {
	for ; n > 0; n-- {
		dst = append(dst, ' ')
	}
	return dst
}

// Repeated subtrees: a container of the output that equals an earlier one
// (an owner that is also the organization, the same user on every issue)
// becomes a reference to the first: "[same as $[0].response.owner]".
// Folding the output again changes nothing: what is left holds no two
// equal subtrees that could be merged, and sizes only shrink.

// dedupMinWidth is the inline width from which a subtree is worth a
// reference.
const dedupMinWidth = 48

// treeInfo holds the hash and inline width of every container.
type treeInfo map[*jnode]struct {
	hash  uint64
	width int
}

func (ti treeInfo) measure(nd *jnode) (uint64, int) {
	if nd.lit != "" || nd.deep {
		return hashString(14695981039346656037, nd.lit), len(nd.lit)
	}
	h := uint64(14695981039346656037) ^ uint64(nd.kind)
	w := 2
	for i, kid := range nd.kids {
		if i > 0 {
			w += 2
		}
		if nd.kind == kObject {
			h = hashString(h, nd.keys[i])
			w += len(nd.keys[i]) + 2
		}
		kh, kw := ti.measure(kid)
		h = (h ^ kh) * 1099511628211
		w += kw
	}
	ti[nd] = struct {
		hash  uint64
		width int
	}{h, w}
	return h, w
}

func hashString(h uint64, s string) uint64 {
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * 1099511628211
	}
	return (h ^ 0xff) * 1099511628211
}

func equalTrees(a, b *jnode) bool {
	if a.kind != b.kind || a.lit != b.lit || a.deep != b.deep || len(a.kids) != len(b.kids) {
		return false
	}
	for i := range a.kids {
		if (a.kind == kObject && a.keys[i] != b.keys[i]) || !equalTrees(a.kids[i], b.kids[i]) {
			return false
		}
	}
	return true
}

type dedupSite struct {
	nd   *jnode
	path string
}

// dedupTree replaces repeated subtrees of root with references.
func dedupTree(root *jnode) {
	ti := treeInfo{}
	ti.measure(root)
	seen := map[uint64][]dedupSite{}
	type repl struct {
		parent *jnode
		i      int
		marker string
	}
	var repls []repl
	var walk func(nd *jnode, path string)
	walk = func(nd *jnode, path string) {
		for i, kid := range nd.kids {
			if kid.lit != "" || kid.deep || len(kid.kids) == 0 {
				continue
			}
			kp := childPath(path, nd, i)
			info := ti[kid]
			if info.width >= dedupMinWidth {
				if prev := findSite(seen[info.hash], kid); prev != nil {
					marker := "[same as " + prev.path + "]"
					if len(marker)+2 < info.width {
						repls = append(repls, repl{nd, i, marker})
						continue
					}
				} else {
					seen[info.hash] = append(seen[info.hash], dedupSite{kid, kp})
				}
			}
			walk(kid, kp)
		}
	}
	walk(root, "$")
	for _, r := range repls {
		r.parent.kids[r.i] = stringNode(r.marker)
	}
}

func findSite(sites []dedupSite, nd *jnode) *dedupSite {
	for i := range sites {
		if equalTrees(sites[i].nd, nd) {
			return &sites[i]
		}
	}
	return nil
}

// childPath names kid i of nd, whose path is path.
func childPath(path string, nd *jnode, i int) string {
	if nd.kind != kObject {
		return path + "[" + strconv.Itoa(i) + "]"
	}
	lit := nd.keys[i]
	k := unquoteJSON(lit[1 : len(lit)-1])
	ident := k != ""
	for j := 0; j < len(k); j++ {
		c := k[j]
		if !(c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (j > 0 && (c >= '0' && c <= '9' || c == '-'))) {
			ident = false
			break
		}
	}
	if ident {
		return path + "." + k
	}
	return path + "[" + lit + "]"
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// check reports ctx's error every 4096 calls, to keep hot loops cheap.
func (f *jsonFolder) check() error {
	if f.calls++; f.calls&4095 != 0 {
		return nil
	}
	return f.ctx.Err()
}
