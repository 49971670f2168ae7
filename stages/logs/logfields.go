package logs

import (
	"math/bits"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Records that carry fields (JSON lines, logfmt) have as template their
// keys, in order, the level, and the message (msg, message, log, event,
// …) and other values tokenized like free text: the message's words and
// a logger's or caller's name stay, numbers, ids, times and values that
// vary widely are variables. A prefix before a JSON object (a CRI or
// Compose header) is tokenized like free text.

// levelKeys name the level field: level (most), lvl (go-kit), severity
// (GCP, CRI loggers), levelname (Python), @l (Serilog).
var levelKeys = [...]string{"level", "lvl", "severity", "levelname", "loglevel", "@l", "LEVEL", "Level"}

func isLevelKey(k string) bool {
	for _, m := range levelKeys {
		if k == m {
			return true
		}
	}
	return false
}

// maxTemplateBytes bounds the bytes of a line that make its template.
const maxTemplateBytes = 16 << 10

// TemplateTokens appends to dst the tokens whose shapes make the template
// of a record's head line under layout l.
func (l Layout) TemplateTokens(head string, dst []Tok) []Tok {
	return l.templateTokens(head, dst, nil)
}

// templateTokens is TemplateTokens, a line's own tokens taken from memo
// when it is not nil.
func (l Layout) templateTokens(head string, dst []Tok, memo *tokenMemo) []Tok {
	if len(head) > maxTemplateBytes {
		// A line this long is told apart by its opening: memory stays
		// bounded whatever the line's length.
		head = head[:maxTemplateBytes]
	}
	if l.Fields != "" {
		at := len(dst)
		if out, ok := fieldTokens(l.Fields, head, dst, memo); ok {
			return out
		}
		dst = dst[:at]
	}
	at := len(dst)
	if memo != nil {
		dst = memo.lineTokens(head, dst)
	} else {
		dst = lineTokens(head, dst)
	}
	if len(l.StatusFields) > 0 {
		markErrorStatuses(head, l.StatusFields, dst, at)
	}
	return dropCorrelation(head, dst, at)
}

// memoRecords reports whether mining under l takes a record line's
// template tokens from tokenMemo.recordTokens: lines of free text,
// whose tokens each line of a digit shape shares, no error statuses
// marked by their values.
func (l *Layout) memoRecords() bool { return l.Fields == "" && len(l.StatusFields) == 0 }

// templateHead is the part of a head line that makes its template (see
// templateTokens).
func templateHead(head string) string {
	if len(head) > maxTemplateBytes {
		return head[:maxTemplateBytes]
	}
	return head
}

// joinLists joins in toks[at:], the tokens of s, each run of tokens
// separated by ", " into one: a list written out in a sentence (evicted
// keys alpha, beta, gamma; enabled features: a, b). Its items and their
// number vary from record to record, and one token lets variant merging
// weigh the lists at one position, as it weighs any value there: many
// different lists merge, a fixed phrase ("closed, retrying") is a
// constant. A list of variables only (ports 80, 443) is one variable, so
// its length does not split the template. Items are of one kind: a value
// then a word ("session 0x3f, timeout of") ends a clause, not a list.
func joinLists(s string, toks []Tok, at int) []Tok {
	if len(toks)-at < 2 || strings.IndexByte(s, ',') < 0 {
		return toks // one token (most field values), or no comma: nothing joins
	}
	out, k := at, at
	for k < len(toks) {
		g := commaGap(s, toks, k)
		if g < 0 {
			g = len(toks)
		}
		if out != k {
			copy(toks[out:], toks[k:g])
		}
		out += g - k
		if k = g; k == len(toks) {
			break
		}
		t, e := toks[k], k+1
		if t.variable() && toks[e].Start == t.End+1 {
			if g := groupedNumberEnd(s, toks, k); g > e {
				t.End, e = toks[g-1].End, g
			}
		}
		for e < len(toks) && toks[e].Start == toks[e-1].End+2 && s[toks[e-1].End] == ',' && s[toks[e-1].End+1] == ' ' &&
			toks[e].variable() == t.variable() {
			e++
		}
		if e-k > 1 {
			h, variable, valued := uint64(fnvOffset)^'L', true, false
			for _, x := range toks[k:e] {
				h = (h ^ TokenID(x)) * fnvPrime
				variable = variable && x.variable()
				valued = valued || x.digitValued()
			}
			t = Tok{h: h, Start: t.Start, End: toks[e-1].End, flags: flagIf(variable, tokVariable) | flagIf(valued, tokDigitValued)}
		}
		toks[out] = t
		out++
		k = e
	}
	return toks[:out]
}

// commaGap returns the first j >= k where a comma, maybe with a blank
// after it, stands between toks[j] and toks[j+1], or -1.
func commaGap(s string, toks []Tok, k int) int {
	for j := k; j+1 < len(toks); j++ {
		if e := toks[j].End; (toks[j+1].Start-e == 1 || toks[j+1].Start-e == 2) && s[e] == ',' {
			return j
		}
	}
	return -1
}

// dropCorrelation drops from toks[at:], the tokens of head, the pairs
// key=value that end it when their keys name correlation ids: a tracing
// bridge (OpenTelemetry, Datadog) appends trace_id=... span_id=... to the
// records logged inside a span only, and a template is the same event
// with or without them.
func dropCorrelation(head string, toks []Tok, at int) []Tok {
	for n := len(toks); n-at >= 3; n -= 2 {
		k, v := toks[n-2], toks[n-1]
		if v.Start != k.End+1 || head[k.End] != '=' || strings.TrimRight(head[v.End:], " \t") != "" ||
			!CorrelationKey(head[k.Start:k.End]) {
			return toks[:n]
		}
		head = head[:k.Start]
		toks = toks[:n-2]
	}
	return toks
}

// groupedNumberEnd returns the end of the number with thousands
// separators (1,234,567) whose first group is toks[k], or k+1. ',' splits
// tokens, so without it "processed 1,234 rows" and "processed 999 rows"
// would make two templates. The number stands alone between blanks: in a
// CSV row (12,143,INFO) the cells are not one number.
func groupedNumberEnd(s string, toks []Tok, k int) int {
	t := toks[k]
	if !digitGroup(s, t, 1) || (t.Start > 0 && s[t.Start-1] != ' ' && s[t.Start-1] != '(') {
		return k + 1
	}
	e := k + 1
	for e < len(toks) && toks[e].Start == toks[e-1].End+1 && s[toks[e-1].End] == ',' && digitGroup(s, toks[e], 3) {
		e++
	}
	if end := int(toks[e-1].End); end < len(s) && s[end] == ',' {
		return k + 1
	}
	return e
}

// digitGroup reports a token of min to three digits.
func digitGroup(s string, t Tok, min int) bool {
	n := int(t.End - t.Start)
	return n >= min && n <= 3 && textkit.DigitRun(s, int(t.Start)) == int(t.End)
}

// CorrelationKey reports a field key that names a correlation id: a
// trace, span or request id in any spelling (trace_id, traceId,
// dd.trace_id, otel.span_id, x-request-id, correlation_id). Its value
// ties a record to a request, not to an event.
func CorrelationKey(k string) bool {
	if len(k) < 6 || len(k) > 32 {
		return false
	}
	switch k[len(k)-2:] {
	case "id", "Id", "ID":
		// The letter before "id", separators skipped, picks the candidate.
		i := len(k) - 3
		for i > 0 && (k[i] == '_' || k[i] == '-' || k[i] == '.') {
			i--
		}
		switch textkit.Lower(k[i]) {
		case 'e':
			return foldedSuffix(k, "traceid")
		case 't':
			return foldedSuffix(k, "requestid")
		case 'n':
			return foldedSuffix(k, "spanid") || foldedSuffix(k, "correlationid")
		}
		return false
	case "gs", "GS":
		return foldedSuffix(k, "traceflags")
	}
	return false // neither an id nor trace flags: most keys
}

// foldedSuffix reports whether k ends in suf (lower case), letters
// compared without case and '_', '-' and '.' in k skipped.
func foldedSuffix(k, suf string) bool {
	i := len(k) - 1
	for j := len(suf) - 1; j >= 0; j-- {
		for i >= 0 && (k[i] == '_' || k[i] == '-' || k[i] == '.') {
			i--
		}
		if i < 0 || textkit.Lower(k[i]) != suf[j] {
			return false
		}
		i--
	}
	return true
}

// maxFieldDepth bounds the nesting of objects read as fields; deeper
// ones are read as text.
const maxFieldDepth = 4

// keyDomain sets a field key's hash apart from a word's of the same bytes.
const keyDomain = 0x4B65794B65794B65

// fieldTokens appends the template tokens of a structured record: its
// prefix as free text, then each field in order: its key, and its value,
// the level as it is, the message and other values tokenized like free
// text (so a logger or a caller name stays, and ids, times and numbers
// are variables). ok is false when the line does not parse as the syntax
// says.
func fieldTokens(syntax, line string, dst []Tok, memo *tokenMemo) (_ []Tok, ok bool) {
	at := len(dst)
	base := 0 // where the scanned text starts in line
	levelSeen := false
	depth := 0 // of the object whose members visit sees
	var visit func(k, v string, off int)
	visit = func(k, v string, off int) {
		if CorrelationKey(k) {
			return // see dropCorrelation: present on some records only
		}
		// A key: a word hash set apart from the value words' (keyDomain).
		dst = append(dst, Tok{h: wordHash(k) ^ keyDomain})
		if syntax == FieldsJSON && len(v) > 0 && v[0] == '[' {
			// An array (tags, ids, hosts) is one value, whatever its length.
			dst = append(dst, Tok{h: fnvOffset, Start: int32(base + off), End: int32(base + off + len(v)), flags: tokVariable})
			return
		}
		if syntax == FieldsJSON && len(v) > 0 && v[0] == '{' && depth < maxFieldDepth {
			// A nested object (properties, attributes, a request) holds
			// fields too: a host or an id in it is a field's value.
			n, outer := len(dst), base
			depth, base = depth+1, base+off
			ok := scanJSONObject(v, visit)
			depth, base = depth-1, outer
			if ok {
				return
			}
			dst = dst[:n]
		}
		if !levelSeen && depth == 0 && isLevelKey(k) {
			levelSeen = true
			h := uint64(fnvOffset) ^ 'L'
			for i := 0; i < len(v); i++ {
				h = (h ^ uint64(textkit.Lower(v[i]))) * fnvPrime
			}
			dst = append(dst, Tok{h: h})
			return
		}
		dst = memo.tokensAt(v, base+off, dst)
	}
	switch syntax {
	case FieldsJSON:
		p := jsonPayloadStart(line)
		if p < 0 {
			return dst, false
		}
		dst = tokenize(line[:p], dst)
		base = p
		if !scanJSONObject(trimLineEnd(line[p:]), visit) {
			return dst[:at], false
		}
	case FieldsLogfmt:
		if !scanLogfmt(line, visit) {
			return dst[:at], false
		}
	case FieldsAccess:
		return accessTokens(line, dst)
	default:
		return dst, false
	}
	return dst, true
}

// scanJSONObject calls visit with the key and value of every top-level
// member of the JSON object s, a string's quotes removed. It reports
// whether s is one well-formed object, nested values skipped by their
// brackets (strings respected).
func scanJSONObject(s string, visit func(k, v string, at int)) bool {
	i := skipJSONSpace(s, 0)
	if i >= len(s) || s[i] != '{' {
		return false
	}
	i = skipJSONSpace(s, i+1)
	if i < len(s) && s[i] == '}' {
		return skipJSONSpace(s, i+1) == len(s)
	}
	for {
		if i >= len(s) || s[i] != '"' {
			return false
		}
		e := jsonStringEnd(s, i)
		if e < 0 {
			return false
		}
		key := s[i+1 : e-1]
		i = skipJSONSpace(s, e)
		if i >= len(s) || s[i] != ':' {
			return false
		}
		i = skipJSONSpace(s, i+1)
		if i >= len(s) {
			return false
		}
		var val string
		at := i
		switch s[i] {
		case '"':
			e = jsonStringEnd(s, i)
			if e < 0 {
				return false
			}
			val, at = s[i+1:e-1], i+1
		case '{', '[':
			e = jsonNestedEnd(s, i)
			if e < 0 {
				return false
			}
			val = s[i:e]
		default:
			e = i
			for e < len(s) && s[e] != ',' && s[e] != '}' && s[e] != ' ' && s[e] != '\t' {
				e++
			}
			if e == i {
				return false
			}
			val = s[i:e]
		}
		visit(key, val, at)
		i = skipJSONSpace(s, e)
		if i >= len(s) {
			return false
		}
		switch s[i] {
		case ',':
			i = skipJSONSpace(s, i+1)
		case '}':
			return skipJSONSpace(s, i+1) == len(s)
		default:
			return false
		}
	}
}

func skipJSONSpace(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' || s[i] == '\n') {
		i++
	}
	return i
}

// jsonStringEnd returns the index past the closing quote of the string
// opening at i, or -1.
func jsonStringEnd(s string, i int) int {
	for j := i + 1; ; j += 2 { // past a backslash and the byte it escapes
		j = quoteOrBackslash(s, j)
		if j >= len(s) {
			return -1
		}
		if s[j] == '"' {
			return j + 1
		}
	}
}

// quoteOrBackslash returns the index of the first '"' or '\\' in s at or
// after j, or len(s) (or more when j is past the end), eight bytes a step.
func quoteOrBackslash(s string, j int) int {
	const ones = 0x0101010101010101
	for ; j+8 <= len(s); j += 8 {
		w := textkit.Load64(s[j:])
		if m := textkit.ZeroBytes(w^'"'*ones) | textkit.ZeroBytes(w^'\\'*ones); m != 0 {
			return j + bits.TrailingZeros64(m)/8
		}
	}
	for ; j < len(s); j++ {
		if s[j] == '"' || s[j] == '\\' {
			return j
		}
	}
	return j
}

// jsonNestedEnd returns the index past the bracket closing the object or
// array opening at i, or -1.
func jsonNestedEnd(s string, i int) int {
	depth := 0
	for j := i; j < len(s); j++ {
		switch s[j] {
		case '"':
			e := jsonStringEnd(s, j)
			if e < 0 {
				return -1
			}
			j = e - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth--; depth == 0 {
				return j + 1
			}
		}
	}
	return -1
}

// scanLogfmt calls visit with every key=value pair of a logfmt line, a
// quoted value's quotes removed. It reports whether the line holds at
// least two pairs and nothing else.
func scanLogfmt(line string, visit func(k, v string, at int)) bool {
	n := 0
	for i := 0; i < len(line); {
		k, eq, more := logfmtKeyAt(line, i)
		if !more {
			break
		}
		if eq < 0 {
			return false
		}
		i = eq
		key := line[k:i]
		e := logfmtValueEnd(line, i+1)
		val, at := line[i+1:e], i+1
		if len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			val, at = val[1:len(val)-1], at+1
		}
		visit(key, val, at)
		n++
		i = e
	}
	return n >= 2
}

// accessRecord finds the core of a record in the NCSA common or combined
// log format: a bracketed time, the quoted request line, a three-digit
// status and a size ("[01/Mar/2024:10:00:00 +0000] \"GET /x HTTP/1.1\" 200
// 512"), after a few fields (client, ident, user; a virtual host). status
// is where the status stands and end where the size ends; end is 0 when
// line holds no such record.
func accessRecord(line string) (status, end int) {
	// The line's first quote opens the request, right after the time's
	// closing bracket.
	rb := strings.IndexByte(line, '"') - 2
	if rb < 1 || rb > 600 || line[rb] != ']' || line[rb+1] != ' ' {
		return 0, 0
	}
	if lb := strings.LastIndexByte(line[:rb], '['); lb < 1 || line[lb-1] != ' ' {
		return 0, 0
	}
	i := rb + 1
	q := strings.IndexByte(line[i+2:], '"')
	if q < 0 {
		return 0, 0
	}
	i += 2 + q + 1 // past the request line's closing quote
	if i+4 > len(line) || line[i] != ' ' || !textkit.IsDigit(line[i+1]) || !textkit.IsDigit(line[i+2]) || !textkit.IsDigit(line[i+3]) ||
		i+4 < len(line) && line[i+4] != ' ' {
		return 0, 0
	}
	status = i + 1
	i += 4
	if i == len(line) {
		return status, i
	}
	j := i + 1
	for j < len(line) && line[j] != ' ' {
		j++
	}
	if size := line[i+1 : j]; size != "-" && (size == "" || textkit.DigitRun(size, 0) != len(size)) {
		return 0, 0
	}
	return status, j
}

// accessTokens appends the template tokens of an access record: its
// client, time and request line as free text; an error status (4xx,
// 5xx) as a constant, since a route's 200s and 503s are different events,
// and a success or redirect as a value; and past the size, each quoted
// field (referrer, user agent) as one value, whatever its words: clients
// and referrers come with every request.
func accessTokens(line string, dst []Tok) (_ []Tok, ok bool) {
	status, end := accessRecord(line)
	if end == 0 {
		return dst, false
	}
	at := len(dst)
	dst = tokenize(line[:end], dst)
	if line[status] >= '4' {
		for k := at; k < len(dst); k++ {
			if int(dst[k].Start) == status {
				dst[k].h, dst[k].flags = wordHash(line[status:status+3])^'S', dst[k].flags&^tokVariable
			}
		}
	}
	for i := end; i < len(line); {
		q := strings.IndexByte(line[i:], '"')
		if q < 0 {
			return tokenizeAt(line[i:], i, dst), true
		}
		dst = tokenizeAt(line[i:i+q], i, dst)
		i += q
		e := len(line) // an unclosed quote runs to the end
		if c := strings.IndexByte(line[i+1:], '"'); c >= 0 {
			e = i + c + 2
		}
		dst = append(dst, Tok{h: fnvOffset, Start: int32(i), End: int32(e), flags: tokVariable})
		i = e
	}
	return dst, true
}

// tokenizeAt tokenizes s, which stands at off in its line, with the
// tokens' offsets in that line.
func tokenizeAt(s string, off int, dst []Tok) []Tok {
	from := len(dst)
	dst = joinLists(s, tokenize(s, dst), from)
	for k := from; k < len(dst); k++ {
		dst[k].Start += int32(off)
		dst[k].End += int32(off)
	}
	return dst
}
