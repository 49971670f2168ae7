package stages

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// JSON folding keeps a document's shape and drops its bulk:
//
//   - an array of more than array_samples+1 items keeps array_samples of
//     them, then one meta object: {"_omitted": N, "_schema": S}, where S is
//     the schema of every item: objects list the union of their keys
//     (a "?" marks a key some items lack), other values their types
//     ("string|null");
//   - an object of more than max_object_keys keys (a map keyed by data)
//     keeps array_samples entries, "_omitted_keys" and "_value_schema";
//   - strings longer than max_string_chars are cut, with their length;
//     base64 strings become a base64 marker;
//   - containers deeper than max_depth become a marker string.
//
// The output is valid JSON laid out by one printer, and folding it again
// gives it back unchanged: arrays of at most array_samples+1 items, objects
// of at most max_object_keys keys, strings within the cut's slack and
// containers within max_depth are all kept as they are.

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
	// before it is cut; a cut string (prefix plus marker) stays within it,
	// so a second pass does not cut it again.
	truncSlack = 32
	// maxSchemaFields bounds the memory of all schemas of one document.
	maxSchemaFields = 1 << 17
	// jsonWrap is the width up to which a container is printed on one line.
	jsonWrap = 100
)

// jnode is one value of the folded output.
type jnode struct {
	kind uint8  // kinds bit
	lit  string // scalars: the JSON literal
	deep bool   // a marker string standing for a container deeper than max_depth
	keys []string
	kids []*jnode
	sch  *jschema // folded arrays: the schema of every item
}

func scalarNode(kind uint8, lit string) *jnode { return &jnode{kind: kind, lit: lit} }

func stringNode(s string) *jnode { return scalarNode(kString, string(appendJSONString(nil, s))) }

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
}

type jsonFolder struct {
	opt    StructuredOptions
	src    jsonSource
	cc     canceled
	fields int
}

// foldJSONText folds one JSON document. ok is false when text is not one
// valid JSON object or array. inline prints it on one line; otherwise
// every line after the first starts with prefix.
func (n structuredNode) foldJSONText(ctx context.Context, text string, inline bool, prefix string) (string, bool, error) {
	src, release := newJSONSource(text, n.stdJSON)
	root, err := n.foldJSON(ctx, src)
	release()
	if err != nil {
		if errors.Is(err, errBadJSON) {
			return "", false, nil
		}
		return "", false, err
	}
	dedupTree(root)
	var b []byte
	if inline {
		b = appendInline(make([]byte, 0, 1024), root)
	} else {
		b = appendPretty(make([]byte, 0, 4096), root, 0, len(prefix), prefix)
	}
	return string(b), true, nil
}

func (n structuredNode) foldJSON(ctx context.Context, src jsonSource) (*jnode, error) {
	f := &jsonFolder{opt: n.opt, src: src, cc: canceled{ctx: ctx}}
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
	if err := f.cc.check(); err != nil {
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
		return stringNode(f.foldString(f.src.text())), nil
	case tokInt:
		return scalarNode(kInt, string(f.src.text())), nil
	case tokFloat:
		return scalarNode(kFloat, string(f.src.text())), nil
	case tokTrue:
		return scalarNode(kBool, "true"), nil
	case tokFalse:
		return scalarNode(kBool, "false"), nil
	case tokNull:
		return scalarNode(kNull, "null"), nil
	}
	return nil, errBadJSON
}

func (f *jsonFolder) foldObject(depth int) (*jnode, error) {
	nd := &jnode{kind: kObject}
	var values *jschema // once the object turns out to be a map
	n := 0
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
		var key string
		if n <= f.opt.MaxObjectKeys {
			key = string(f.src.text())
		}
		vt, err := f.src.next()
		if err != nil {
			return nil, err
		}
		if n <= f.opt.MaxObjectKeys {
			kid, err := f.fold(vt, depth+1)
			if err != nil {
				return nil, err
			}
			nd.keys = append(nd.keys, key)
			nd.kids = append(nd.kids, kid)
			continue
		}
		if values == nil {
			values = &jschema{}
			for _, kid := range nd.kids {
				f.mergeNode(values, kid)
			}
		}
		if err := f.scan(vt, depth+1, values); err != nil {
			return nil, err
		}
	}
	if values != nil {
		keep := f.opt.ArraySamples
		nd.keys, nd.kids = nd.keys[:keep:keep], nd.kids[:keep:keep]
		nd.keys = append(nd.keys, "_omitted_keys", "_value_schema")
		nd.kids = append(nd.kids, scalarNode(kInt, strconv.Itoa(n-keep)), f.render(values, depth+1))
	}
	return nd, nil
}

func (f *jsonFolder) foldArray(depth int) (*jnode, error) {
	nd := &jnode{kind: kArray}
	var items *jschema // once the array turns out to be long
	limit := f.opt.ArraySamples + 1
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
		if n <= limit {
			kid, err := f.fold(t, depth+1)
			if err != nil {
				return nil, err
			}
			nd.kids = append(nd.kids, kid)
			continue
		}
		if items == nil {
			items = &jschema{}
			for _, kid := range nd.kids {
				f.mergeNode(items, kid)
			}
		}
		if err := f.scan(t, depth+1, items); err != nil {
			return nil, err
		}
	}
	if items == nil {
		return nd, nil
	}
	keep := f.opt.ArraySamples
	nd.kids = nd.kids[:keep:keep]
	nd.sch = items
	omitted := n - keep
	if depth+1 > f.opt.MaxDepth {
		// A meta object here would itself be too deep on a second pass.
		nd.kids = append(nd.kids, stringNode("[… "+strconv.Itoa(omitted)+" more items]"))
		return nd, nil
	}
	meta := &jnode{kind: kObject, keys: []string{"_omitted", "_schema"}}
	meta.kids = []*jnode{scalarNode(kInt, strconv.Itoa(omitted)), f.render(items, depth+2)}
	nd.kids = append(nd.kids, meta)
	return nd, nil
}

// scan merges the schema of the value that starts with t into acc without
// building output.
func (f *jsonFolder) scan(t jsonTok, depth int, acc *jschema) error {
	if err := f.cc.check(); err != nil {
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
			t, err := f.src.next()
			if err != nil {
				return err
			}
			if t == tokObjEnd {
				return nil
			}
			if t != tokString {
				return errBadJSON
			}
			fld := f.fieldBytes(acc, f.src.text())
			vt, err := f.src.next()
			if err != nil {
				return err
			}
			if fld == nil {
				if vt == tokObjStart || vt == tokArrStart {
					if err := f.src.skip(); err != nil {
						return err
					}
				}
				continue
			}
			if err := f.scan(vt, depth+1, fld); err != nil {
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
			if err := f.scan(t, depth+1, acc.elem); err != nil {
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

// fieldBytes returns acc's schema of key name, counting one more object
// that has it, or nil when acc holds as many keys as it may.
func (f *jsonFolder) fieldBytes(acc *jschema, name []byte) *jschema {
	if acc.index != nil {
		if i, ok := acc.index[string(name)]; ok {
			acc.seen[i]++
			return acc.fields[i]
		}
	} else {
		for i, have := range acc.names {
			if have == string(name) {
				acc.seen[i]++
				return acc.fields[i]
			}
		}
	}
	return f.addField(acc, string(name))
}

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

func (f *jsonFolder) addField(acc *jschema, name string) *jschema {
	// Room for "_type", "_items" and "_more_keys" next to the keys, so the
	// rendered schema is not itself taken for a map on a second pass.
	if len(acc.names) >= f.opt.MaxObjectKeys-3 || f.fields >= maxSchemaFields {
		acc.more = true
		return nil
	}
	f.fields++
	fld := &jschema{}
	acc.names = append(acc.names, name)
	acc.fields = append(acc.fields, fld)
	acc.seen = append(acc.seen, 1)
	if acc.index != nil {
		acc.index[name] = len(acc.names) - 1
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
			if fld := f.field(acc, k); fld != nil {
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

// render turns a schema into an output node at output depth od.
// Containers that would sit deeper than max_depth are named, not drawn.
func (f *jsonFolder) render(s *jschema, od int) *jnode {
	kinds := s.kinds
	drawObj := kinds&kObject != 0 && (s.objs > 0 || len(s.names) > 0)
	drawArr := kinds&kArray != 0 && s.elem != nil
	if od > f.opt.MaxDepth || (!drawObj && !drawArr) {
		return stringNode(kindString(kinds))
	}
	if kinds == kArray {
		nd := &jnode{kind: kArray}
		if s.elem.kinds != 0 {
			nd.kids = []*jnode{f.render(s.elem, od+1)}
		}
		return nd
	}
	nd := &jnode{kind: kObject}
	if kinds != kObject {
		nd.keys = append(nd.keys, "_type")
		nd.kids = append(nd.kids, stringNode(kindString(kinds)))
	}
	if drawArr && s.elem.kinds != 0 {
		nd.keys = append(nd.keys, "_items")
		nd.kids = append(nd.kids, f.render(s.elem, od+1))
	}
	for i, name := range s.names {
		if s.seen[i] < s.objs {
			name += "?"
		}
		nd.keys = append(nd.keys, name)
		nd.kids = append(nd.kids, f.render(s.fields[i], od+1))
	}
	if s.more {
		nd.keys = append(nd.keys, "_more_keys")
		nd.kids = append(nd.kids, stringNode("omitted"))
	}
	return nd
}

// foldString returns s, a base64 marker or s cut with its length.
func (f *jsonFolder) foldString(b []byte) string {
	if len(b) <= f.opt.MaxStringChars+truncSlack {
		return string(b)
	}
	n := utf8.RuneCount(b)
	if n >= f.opt.Base64MinChars {
		if m, ok := base64Value(string(b), f.opt.Base64MinChars); ok {
			return m
		}
	}
	if n <= f.opt.MaxStringChars+truncSlack {
		return string(b)
	}
	cut, runes := 0, 0
	for cut < len(b) && runes < f.opt.MaxStringChars {
		_, size := utf8.DecodeRune(b[cut:])
		cut += size
		runes++
	}
	return string(b[:cut]) + "… [" + strconv.Itoa(n) + " chars]"
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
			w += len(nd.keys[i]) + 4
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
			dst = appendJSONString(dst, nd.keys[i])
			dst = append(dst, ':', ' ')
		}
		dst = appendInline(dst, kid)
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
			w += len(appendJSONString(nil, nd.keys[i])) + 2
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
			dst = appendJSONString(dst, nd.keys[i])
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
			w += len(appendJSONString(nil, nd.keys[i])) + 2
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
	k := nd.keys[i]
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
	return path + "[" + string(appendJSONString(nil, k)) + "]"
}
