package pipeline

import (
	"errors"
	"slices"
	"strconv"
	"strings"
)

// JSON fold markers (stages/structured_json.go) are values, not lines: a
// folded array's meta object {"_omitted": N, "_count": C, "_outliers":
// [...], ...}, a folded map's "_omitted_keys": N, an array's "[… N more
// items]" string at max_depth, and a "[array deeper than N levels]" string. addJSONRefs gives each a reference to what
// it stands for in original: the omitted items (or members) from the first
// to the last, kept outliers among them included, as lines when they start
// and end their lines, else as bytes (a minified document is one line).
// The meta object and the folded map get a "_ref" member after their
// count; the string gets " · ref R" before its "]". A marker whose
// container cannot be found in original keeps no reference.
func addJSONRefs(original, compacted, idPrefix string) string {
	out, err := parseJSONTree(compacted, func(string) bool { return true })
	if err != nil {
		return compacted
	}
	var sites []jsonRefSite
	collectJSONSites(compacted, out, "", &sites)
	if len(sites) == 0 {
		return compacted
	}
	// The original is walked once, keeping only the containers the
	// markers name and their members.
	prefixes := map[string]bool{"": true}
	for _, s := range sites {
		for p := s.path; p != ""; p = p[:strings.LastIndexByte(p, jsonPathSep)] {
			prefixes[p] = true
		}
	}
	orig, err := parseJSONTree(original, func(p string) bool { return prefixes[p] })
	if err != nil {
		return compacted
	}
	nl := newlineOffsets(original)
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	for _, s := range sites {
		c := orig.find(s.path)
		if c == nil {
			continue
		}
		from, to, ok := s.omittedSpan(c)
		if !ok {
			continue
		}
		ref := idPrefix + ":" + spanRef(original, nl, from, to)
		if s.inString {
			ins = append(ins, insert{s.at, RefSep + ref})
		} else {
			ins = append(ins, insert{s.at, `, "_ref": "` + ref + `"`})
		}
	}
	if len(ins) == 0 {
		return compacted
	}
	slices.SortFunc(ins, func(a, b insert) int { return a.at - b.at })
	var b strings.Builder
	b.Grow(len(compacted) + 40*len(ins))
	last := 0
	for _, in := range ins {
		b.WriteString(compacted[last:in.at])
		b.WriteString(in.text)
		last = in.at
	}
	b.WriteString(compacted[last:])
	return b.String()
}

// jsonPathSep separates the elements of a path: object keys as their
// literal (quotes included), array indexes as "#N".
const jsonPathSep = '\x00'

// jsonRefSite is one marker: where its reference goes in the compacted
// text, the path of its container in the original, and what of the
// container it keeps.
type jsonRefSite struct {
	at       int
	inString bool
	whole    bool // a container cut by depth: all of it
	path     string
	items    bool            // an array's items, else an object's members
	keptIdx  map[int]bool    // items kept, by index in the original; nil: none known, the whole container
	keptKeys map[string]bool // members kept, by key literal
	headOnly int             // items surely kept from the start when keptIdx is nil (an array cut by depth)
}

// omittedSpan is the byte range [from, to) of c's members this site's
// marker stands for.
func (s jsonRefSite) omittedSpan(c *jsonNode) (int, int, bool) {
	if s.whole && (c.kind == '[' || c.kind == '{') {
		return c.start, c.end, true
	}
	if s.whole || s.items != (c.kind == '[') || len(c.kids) == 0 {
		return 0, 0, false
	}
	first, last := -1, -1
	for i := range c.kids {
		kept := false
		switch {
		case s.items && s.keptIdx != nil:
			kept = s.keptIdx[i]
		case s.items:
			kept = i < s.headOnly || i == len(c.kids)-1 // the last item is always kept
		default:
			kept = s.keptKeys[c.keys[i]]
		}
		if !kept {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	if first < 0 {
		return 0, 0, false
	}
	from := c.kids[first].start
	if !s.items {
		from = c.keyAt[first] // a member starts at its key
	}
	return from, c.kids[last].end, true
}

// spanRef is "L<a>-<b>" for the lines of text[from:to] when the range
// starts and ends its lines (up to blanks and JSON punctuation), else
// "B<a>-<b>", its bytes, 1-based and inclusive.
func spanRef(text string, nl []int, from, to int) string {
	ls := strings.LastIndexByte(text[:from], '\n') + 1
	le := strings.IndexByte(text[to:], '\n')
	if le < 0 {
		le = len(text)
	} else {
		le += to
	}
	if strings.Trim(text[ls:from], " \t\r,[{") == "" && strings.Trim(text[to:le], " \t\r,]}") == "" {
		a, b := lineAt(nl, from), lineAt(nl, max(to-1, from))
		return "L" + strconv.Itoa(a) + "-" + strconv.Itoa(b)
	}
	return "B" + strconv.Itoa(from+1) + "-" + strconv.Itoa(to)
}

// newlineOffsets is the offset of every "\n" in text.
func newlineOffsets(text string) []int {
	var nl []int
	for i := 0; ; {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return nl
		}
		nl = append(nl, i+j)
		i += j + 1
	}
}

// lineAt is the 1-based line of the byte at offset.
func lineAt(nl []int, offset int) int {
	n, _ := slices.BinarySearch(nl, offset)
	return n + 1
}

// collectJSONSites finds the fold markers under n (at path, in the
// original's terms) and follows kept members down to theirs.
func collectJSONSites(text string, n *jsonNode, path string, sites *[]jsonRefSite) {
	switch n.kind {
	case '"':
		// "[array deeper than 32 levels]": the whole container.
		// Only the folder's own shape: the reference goes before its "]".
		if lit := text[n.start:n.end]; (strings.HasPrefix(lit, `"[array deeper than `) || strings.HasPrefix(lit, `"[object deeper than `)) && strings.HasSuffix(lit, ` levels]"`) {
			*sites = append(*sites, jsonRefSite{at: n.end - len(`]"`), inString: true, path: path, whole: true})
		}
	case '{':
		keep := map[string]bool{}
		at := -1
		for i, k := range n.keys {
			switch k {
			case `"_omitted_keys"`:
				at = n.kids[i].end
			case `"_keys"`, `"_value_schema"`, `"_ref"`:
			default:
				keep[k] = true
				collectJSONSites(text, n.kids[i], path+string(jsonPathSep)+k, sites)
			}
		}
		if at >= 0 && !n.has(`"_ref"`) {
			*sites = append(*sites, jsonRefSite{at: at, path: path, keptKeys: keep})
		}
	case '[':
		if len(n.kids) == 0 {
			return
		}
		last := n.kids[len(n.kids)-1]
		kept := n.kids[:len(n.kids)-1]
		switch {
		case last.kind == '{' && len(last.keys) > 0 && last.keys[0] == `"_omitted"`:
			if last.has(`"_ref"`) {
				return
			}
			idx, ok := foldedIndexes(text, last, len(kept))
			if !ok {
				return
			}
			keep := map[int]bool{}
			for i, k := range kept {
				keep[idx[i]] = true
				collectJSONSites(text, k, path+string(jsonPathSep)+"#"+strconv.Itoa(idx[i]), sites)
			}
			*sites = append(*sites, jsonRefSite{at: last.kids[0].end, path: path, items: true, keptIdx: keep})
		case last.kind == '"' && strings.HasPrefix(text[last.start:last.end], `"[… `) && strings.HasSuffix(text[last.start:last.end], ` more items]"`):
			// Cut by depth: head items, outliers the marker does not name,
			// the last item. The range runs from the second item to the
			// one before the last.
			*sites = append(*sites, jsonRefSite{at: last.end - len(`]"`), inString: true, path: path, items: true, headOnly: 1})
		default:
			for i, k := range n.kids {
				collectJSONSites(text, k, path+string(jsonPathSep)+"#"+strconv.Itoa(i), sites)
			}
		}
	}
}

// foldedIndexes maps the kept items of a folded array to their indexes in
// the original, from its meta object: the head, the outliers it lists,
// then the last item.
func foldedIndexes(text string, meta *jsonNode, kept int) ([]int, bool) {
	count := -1
	var outliers []int
	for i, k := range meta.keys {
		v := meta.kids[i]
		switch k {
		case `"_count"`:
			n, err := strconv.Atoi(text[v.start:v.end])
			if err != nil {
				return nil, false
			}
			count = n
		case `"_outliers"`:
			for _, o := range v.kids {
				n, err := strconv.Atoi(text[o.start:o.end])
				if err != nil {
					return nil, false
				}
				outliers = append(outliers, n)
			}
		}
	}
	head := kept - len(outliers) - 1
	if count < kept || head < 0 {
		return nil, false
	}
	idx := make([]int, 0, kept)
	for i := range head {
		idx = append(idx, i)
	}
	idx = append(idx, outliers...)
	idx = append(idx, count-1)
	for i := 1; i < len(idx); i++ {
		if idx[i] <= idx[i-1] || idx[i] >= count {
			return nil, false // not the layout the folder writes
		}
	}
	return idx, true
}

// jsonNode is a value's byte range [start, end) and, for a container its
// parse was asked to keep, its members (keys as literals, quotes included).
type jsonNode struct {
	kind       byte // '{', '[', '"', or '0' for any other scalar
	start, end int
	keys       []string
	keyAt      []int // where each key starts
	kids       []*jsonNode
}

func (n *jsonNode) has(key string) bool { return slices.Contains(n.keys, key) }

// find is the container at path, or nil.
func (n *jsonNode) find(path string) *jsonNode {
	if path == "" {
		return n
	}
	elem, rest, _ := strings.Cut(path[1:], string(jsonPathSep))
	var kid *jsonNode
	if i, ok := strings.CutPrefix(elem, "#"); ok && n.kind == '[' {
		if k, err := strconv.Atoi(i); err == nil && k < len(n.kids) {
			kid = n.kids[k]
		}
	} else if n.kind == '{' {
		if k := slices.Index(n.keys, elem); k >= 0 {
			kid = n.kids[k]
		}
	}
	if kid == nil {
		return nil
	}
	if rest == "" {
		return kid
	}
	return kid.find(string(jsonPathSep) + rest)
}

var errJSONSyntax = errors.New("not a JSON document")

// parseJSONTree reads text as one JSON value; the members of a container
// are kept when keep(its path) holds.
func parseJSONTree(text string, keep func(path string) bool) (*jsonNode, error) {
	p := jsonParser{s: text, keep: keep}
	n, err := p.value(p.ws(0), "", true)
	if err != nil {
		return nil, err
	}
	if p.ws(n.end) != len(text) {
		return nil, errJSONSyntax
	}
	return n, nil
}

type jsonParser struct {
	s     string
	keep  func(string) bool
	depth int
}

func (p *jsonParser) ws(i int) int {
	for i < len(p.s) && (p.s[i] == ' ' || p.s[i] == '\t' || p.s[i] == '\n' || p.s[i] == '\r') {
		i++
	}
	return i
}

func (p *jsonParser) value(i int, path string, kept bool) (*jsonNode, error) {
	if i >= len(p.s) {
		return nil, errJSONSyntax
	}
	switch c := p.s[i]; c {
	case '"':
		end, err := p.str(i)
		return &jsonNode{kind: '"', start: i, end: end}, err
	case '{', '[':
		if p.depth++; p.depth > 10000 {
			return nil, errJSONSyntax
		}
		defer func() { p.depth-- }()
		n := &jsonNode{kind: c, start: i}
		close := byte(']')
		if c == '{' {
			close = '}'
		}
		kids := kept && p.keep(path)
		i = p.ws(i + 1)
		if i < len(p.s) && p.s[i] == close {
			n.end = i + 1
			return n, nil
		}
		for idx := 0; ; idx++ {
			elem, at := "", i
			if c == '{' {
				end, err := p.str(i)
				if err != nil {
					return nil, err
				}
				elem = p.s[i:end]
				if i = p.ws(end); i >= len(p.s) || p.s[i] != ':' {
					return nil, errJSONSyntax
				}
				i = p.ws(i + 1)
			} else if kids {
				elem = "#" + strconv.Itoa(idx)
			}
			kidPath := "" // only a kept container's members can lead to one kept
			if kids {
				kidPath = path + string(jsonPathSep) + elem
			}
			kid, err := p.value(i, kidPath, kids)
			if err != nil {
				return nil, err
			}
			if kids {
				n.kids = append(n.kids, kid)
				if c == '{' {
					n.keys, n.keyAt = append(n.keys, elem), append(n.keyAt, at)
				}
			}
			if i = p.ws(kid.end); i >= len(p.s) {
				return nil, errJSONSyntax
			}
			if p.s[i] == close {
				n.end = i + 1
				return n, nil
			}
			if p.s[i] != ',' {
				return nil, errJSONSyntax
			}
			i = p.ws(i + 1)
		}
	default:
		j := i
		for j < len(p.s) && strings.IndexByte(",]} \t\r\n", p.s[j]) < 0 {
			j++
		}
		if j == i {
			return nil, errJSONSyntax
		}
		return &jsonNode{kind: '0', start: i, end: j}, nil
	}
}

// str is the end of the string literal at i.
func (p *jsonParser) str(i int) (int, error) {
	if i >= len(p.s) || p.s[i] != '"' {
		return 0, errJSONSyntax
	}
	for j := i + 1; j < len(p.s); j++ {
		switch p.s[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errJSONSyntax
}
