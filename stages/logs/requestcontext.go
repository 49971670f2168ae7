package logs

import (
	"cmp"
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Request context: in a log whose records carry the id of what they are
// about (a request or trace id from a tagged logger, a job, a block, a
// session), a failing record says what failed, while its request's first
// record, usually folded into a template, says which request: its route,
// its caller, its input. The failing template's kept record is written
// after that first record.
const (
	maxSearches      = 6   // failing templates searched per text, so contexts added at most
	contextNear      = 24  // events before a failing one where its request shows
	contextLookback  = 256 // events searched for the request's first record
	maxTagOccurrence = 32  // more records than this share a thread or host, not a request
	minTagBytes      = 6
	taggedSample     = 16 // records whose ids tell a request-tagged log
	rareFailure      = 20 // a failing template holds at most one record in this many
)

// requestContext is the event that opened a failing record's request,
// and the id they share.
type requestContext struct {
	event int
	tag   string
}

// line is the context event's head line, marked as context: a second
// pass reads it as a template of its own, not one more of its kind.
func (c requestContext) line(x textkit.LineIndex, events []logEvent) string {
	head, _ := SplitCount(x.Line(int(events[c.event].start)))
	return head + " [context: first record of " + c.tag + "]"
}

// requestContexts returns, by failing event, the earlier event that
// opened its request, for each template's first event that fails.
func (t *templates) requestContexts(x textkit.LineIndex, events []logEvent) map[int]requestContext {
	if !idTagged(x, events) {
		return nil
	}
	var tags []string
	var ctx map[int]requestContext
	searches := 0
	for ei := range events {
		root := t.find(int(events[ei].group))
		if t.groups[root].first != ei {
			continue
		}
		if t.groups[root].count*rareFailure > len(events) {
			continue // a failure of many requests, not of one
		}
		head, _ := SplitCount(x.Line(int(events[ei].start)))
		if !textkit.IsFailureLine(head) {
			continue
		}
		if tags = idTokens(head, tags[:0]); len(tags) == 0 {
			continue
		}
		if searches++; searches > maxSearches {
			break
		}
		if c, ok := t.requestOpener(x, events, ei, root, tags); ok && !opened(ctx, c.event) {
			if ctx == nil {
				ctx = map[int]requestContext{}
			}
			ctx[ei] = c
		}
	}
	return ctx
}

// idTagged reports a log half of whose first taggedSample records carry
// an id (see idTokens): records of requests, jobs or blocks.
func idTagged(x textkit.LineIndex, events []logEvent) bool {
	n, tagged := min(len(events), taggedSample), 0
	for _, e := range events[:n] {
		if line := x.Line(int(e.start)); nextIDToken(line, 0) < len(line) {
			tagged++
		}
	}
	return tagged*2 >= n && n > 0
}

// opened reports whether ctx writes event e already.
func opened(ctx map[int]requestContext, e int) bool {
	for _, c := range ctx {
		if c.event == e {
			return true
		}
	}
	return false
}

// requestOpener finds the earliest event before ei, within
// contextLookback events, that carries one of tags as a whole token, when
// that event is folded into another template and fails not itself. Of
// several tags it takes the one on the fewest lines: a request's id
// rather than its worker's. A request's records come close together, so
// only a tag found among the contextNear events before ei is searched
// further back.
func (t *templates) requestOpener(x textkit.LineIndex, events []logEvent, ei, root int, tags []string) (requestContext, bool) {
	end := int(x.Starts[events[ei].start])
	near := x.Text[x.Starts[events[max(ei-contextNear, 0)].start]:end]
	from := int(x.Starts[events[max(ei-contextLookback, 0)].start])
	best, fewest, at := requestContext{event: -1}, maxTagOccurrence+1, 0
	for _, tag := range tags {
		if first, _ := tagIn(near, tag, 1); first < 0 {
			continue
		}
		if first, seen := tagIn(x.Text[from:end], tag, fewest); first >= 0 && seen < fewest {
			best.tag, fewest, at = tag, seen, from+first
		}
	}
	if best.tag == "" {
		return best, false
	}
	// The event holding the line at byte at: the last to start at or
	// before that line, if it reaches it.
	next, _ := slices.BinarySearch(x.Starts, int32(at)+1)
	line := int32(next - 1)
	e, _ := slices.BinarySearchFunc(events, line+1, func(e logEvent, l int32) int { return cmp.Compare(e.start, l) })
	if best.event = e - 1; best.event < 0 || events[best.event].end <= line {
		return best, false // a line outside the records
	}
	r := t.find(int(events[best.event].group))
	if r == root || t.groups[r].first == best.event {
		return best, false // shown already
	}
	if textkit.IsFailureLine(x.Line(int(events[best.event].start))) {
		return best, false // an earlier failure, which its own template tells
	}
	return best, true
}

// tagIn returns the offset of tag's first whole occurrence in s (-1 for
// none) and the occurrences counted, up to limit.
func tagIn(s, tag string, limit int) (first, seen int) {
	first = -1
	for off := 0; seen < limit; {
		k := strings.Index(s[off:], tag)
		if k < 0 {
			break
		}
		k += off
		if !idByteAt(s, k-1) && !idByteAt(s, k+len(tag)) {
			if first < 0 {
				first = k
			}
			seen++
		}
		off = k + len(tag)
	}
	return first, seen
}

// idTokens appends to tags the tokens of line that read as generated ids: six
// or more letters, digits, '-' and '_', with both a digit and a letter,
// and a generated part (see generatedPart: 294315ea, a UUID,
// req-7f3a9c1, blk_-1608999687, attempt_1445144423722_0020_m_000002_1).
// Words, numbers, clocks, addresses, paths and names counted by a small
// number (pool-1-thread-3, http-nio-8080-exec-5, user_1008) are not.
func idTokens(line string, tags []string) []string {
	for i := nextIDToken(line, 0); i < len(line); i = nextIDToken(line, i) {
		j := idTokenEnd(line, i)
		tags = append(tags, line[i:j])
		i = j + 1
	}
	return tags
}

// nextIDToken returns the start of the first id (see idTokens) at or
// after i, which starts a token, or len(line).
func nextIDToken(line string, i int) int {
	for i < len(line) {
		j, seen := i, byte(0)
		for ; j < len(line) && idClass[line[j]] != 0; j++ {
			seen |= idClass[line[j]]
		}
		if j-i >= minTagBytes && seen&(idDigit|idLetter) == idDigit|idLetter && tokenEdge(line, i-1) && tokenEdge(line, j) && generatedPart(line[i:j]) {
			return i
		}
		i = j + 1
	}
	return len(line)
}

// idTokenEnd returns the end of the token that starts at i.
func idTokenEnd(line string, i int) int {
	for i < len(line) && idClass[line[i]] != 0 {
		i++
	}
	return i
}

// Classes of the bytes of an id: an ASCII digit or letter, '-' or '_'
// (idJoin); any other byte (0) ends one.
const (
	idDigit = 1 << iota
	idLetter
	idJoin
)

var idClass = func() (c [256]byte) {
	for b := '0'; b <= '9'; b++ {
		c[b] = idDigit
	}
	for b := 'a'; b <= 'z'; b++ {
		c[b], c[b-'a'+'A'] = idLetter, idLetter
	}
	c['-'], c['_'] = idJoin, idJoin
	return c
}()

// generatedPart reports whether a part of id, between '-' and '_', holds
// six digits or more, a letter after a digit (294315ea, 7f3a9c1e), or
// eight hex digits or more (abcca899): a word counted by a number
// (Stage0, worker12, Exception1) is a name.
func generatedPart(id string) bool {
	digits, n, mixed, hex := 0, 0, false, true
	for i := 0; i <= len(id); i++ {
		if i == len(id) || id[i] == '-' || id[i] == '_' {
			if digits >= 6 || mixed || hex && digits > 0 && n >= 8 {
				return true
			}
			digits, n, mixed, hex = 0, 0, false, true
			continue
		}
		n++
		switch c := id[i]; {
		case textkit.IsDigit(c):
			digits++
		case digits > 0:
			mixed = true
			fallthrough
		default:
			hex = hex && textkit.IsHexDigit(c)
		}
	}
	return false
}

// tokenEdge reports whether line[i] (or the line's end) bounds a token:
// not part of a dotted, slashed or colon-joined name either.
func tokenEdge(line string, i int) bool {
	if i < 0 || i >= len(line) {
		return true
	}
	switch line[i] {
	case '.', '/', ':', '\\', '@':
		// 10.0.0.1, a/b, host:port, user@host: part of a larger name,
		// unless the byte ends a sentence or a label.
		return i+1 >= len(line) || line[i+1] == ' '
	}
	return true
}

func idByteAt(line string, i int) bool {
	if i < 0 || i >= len(line) {
		return false
	}
	return idClass[line[i]] != 0
}
