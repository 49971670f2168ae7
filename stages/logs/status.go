package logs

import (
	"slices"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// HTTP access records in formats other than NCSA's carry the status away
// from the request line. Load balancers write it before: "... 0.000 502
// - 34 366 \"GET http://host/api HTTP/1.1\" ..." (AWS ALB and ELB: the
// balancer's status, then its target's), "... 0/0/3/5/8 503 212 - - ----
// 1/1/1/1/0 0/0 \"GET /x HTTP/1.1\"" (HAProxy). Others write it after a
// few fields. As a number the status is a value, so a route's 502s fold
// into its 200s and the failures vanish. statusFields finds, from the
// records, the fields that hold a status: each at a fixed distance (in
// blank-separated fields) from the quoted request line, nearly always a
// three-digit code 100–599. Their error codes (4xx, 5xx) are then
// constants, as accessTokens makes them in the NCSA format.

// maxStatusDistance bounds how many fields away from the request line the
// status may stand (ALB: 4 before, HAProxy: 7 before).
const maxStatusDistance = 12

// httpMethods are the request methods a request line opens with.
var httpMethods = [...]string{"GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH", "CONNECT", "TRACE"}

// requestLine returns where the first HTTP request of line opens and
// closes: the quotes around a quoted request line ("GET /x HTTP/1.1"),
// or else the method and the path's last byte of an unquoted request
// (GET /x: IIS and the W3C extended format), or -1, -1.
func requestLine(line string) (open, close int) {
	if open, close = quotedRequest(line); open >= 0 {
		return open, close
	}
	return bareRequest(line)
}

func quotedRequest(line string) (open, close int) {
	for from := 0; from < len(line); {
		q := strings.IndexByte(line[from:], '"')
		if q < 0 {
			return -1, -1
		}
		open = from + q
		end := strings.IndexByte(line[open+1:], '"')
		if end < 0 {
			return -1, -1
		}
		close = open + 1 + end
		if isRequestLine(line[open+1 : close]) {
			return open, close
		}
		from = close + 1
	}
	return -1, -1
}

// bareRequest finds a method and a path or URL after it, one blank or tab
// between them ("... GET /api/orders - 443 ...": IIS; "GET
// http://host/x": Squid), or a host between them
// ("GET\td111.cloudfront.net\t/index.html": CloudFront). A path a
// sentence names ("reading /etc/hosts") has no method before it.
func bareRequest(line string) (open, close int) {
	for from := 0; ; {
		p := targetAfterBlank(line, from)
		if p < 0 {
			return -1, -1
		}
		m := lastFieldSep(line[:p-1]) + 1
		if !isHTTPMethod(line[m:p-1]) && m >= 2 && strings.IndexByte(line[m:p-1], '.') > 0 {
			host := m
			m = lastFieldSep(line[:host-1]) + 1
			if !isHTTPMethod(line[m : host-1]) {
				m = -1
			}
		} else if !isHTTPMethod(line[m : p-1]) {
			m = -1
		}
		if m >= 0 {
			end := nextFieldSep(line[p:])
			if end < 0 {
				return m, len(line) - 1
			}
			return m, p + end - 1
		}
		from = p + 1
	}
}

// targetAfterBlank returns where the first request target at or after
// from+1 starts, a blank or a tab before it: a path ('/'), or an
// absolute URL ("http://host/x", as proxies log it), or -1.
func targetAfterBlank(line string, from int) int {
	// Slashes are rarer than blanks: search for them.
	for i := from; i < len(line); i++ {
		j := strings.IndexByte(line[i:], '/')
		if j < 0 {
			return -1
		}
		i += j
		if i > from && isFieldSep(line[i-1]) {
			return i
		}
		if u := urlStart(line, i); u > from && isFieldSep(line[u-1]) {
			return u
		}
	}
	return -1
}

// urlStart returns where the scheme starts of an http or https URL whose
// "//" opens at line[i], or -1.
func urlStart(line string, i int) int {
	if i+1 >= len(line) || line[i+1] != '/' || i < 5 || line[i-1] != ':' {
		return -1
	}
	switch {
	case line[i-5:i-1] == "http":
		return i - 5
	case i >= 6 && line[i-6:i-1] == "https":
		return i - 6
	}
	return -1
}

func isFieldSep(c byte) bool { return c == ' ' || c == '\t' }

// lastFieldSep and nextFieldSep find the blank or tab that ends a field.
func lastFieldSep(s string) int { return strings.LastIndexAny(s, " \t") }

func nextFieldSep(s string) int { return strings.IndexAny(s, " \t") }

// isRequestLine reports "METHOD target HTTP/d.d".
func isRequestLine(s string) bool {
	sp := strings.IndexByte(s, ' ')
	if sp < 3 || !isHTTPMethod(s[:sp]) {
		return false
	}
	last := strings.LastIndexByte(s, ' ')
	return last > sp+1 && strings.HasPrefix(s[last+1:], "HTTP/")
}

func isHTTPMethod(s string) bool {
	for _, m := range httpMethods {
		if s == m {
			return true
		}
	}
	return false
}

// fieldsAround calls visit with each field (blank- or tab-separated) within
// maxStatusDistance of the request line quoted at line[open:close+1]: its
// distance d (< 0 before the opening quote, counted back from it; > 0
// after the closing one) and its bytes line[start:end]. side < 0 visits
// the fields before only, > 0 those after, 0 both. visit returns false
// to stop.
func fieldsAround(line string, open, close, side int, visit func(d, start, end int) bool) {
	end := open
	for d := -1; side <= 0 && d >= -maxStatusDistance; d-- {
		end = skipBlanksBack(line, end)
		start := lastFieldSep(line[:end]) + 1
		if start == end || !visit(d, start, end) {
			break
		}
		end = start
	}
	start := close + 1
	for d := 1; side >= 0 && d <= maxStatusDistance; d++ {
		start = skipBlanks(line, start)
		end := nextFieldSep(line[start:])
		if end < 0 {
			end = len(line)
		} else {
			end += start
		}
		if start == end || !visit(d, start, end) {
			return
		}
		start = end
	}
}

// fieldAt returns the start and end of the field d fields from the
// request line quoted at line[open:close+1] (see fieldsAround), or -1, -1.
func fieldAt(line string, open, close, d int) (start, end int) {
	start, end = -1, -1
	fieldsAround(line, open, close, d, func(k, s, e int) bool {
		if k == d {
			start, end = s, e
			return false
		}
		return true
	})
	return start, end
}

func skipBlanks(s string, i int) int {
	for i < len(s) && isFieldSep(s[i]) {
		i++
	}
	return i
}

func skipBlanksBack(s string, i int) int {
	for i > 0 && isFieldSep(s[i-1]) {
		i--
	}
	return i
}

// isStatusCode reports three digits, the first 1 to 5.
func isStatusCode(s string) bool {
	return len(s) == 3 && s[0] >= '1' && s[0] <= '5' && textkit.IsDigit(s[1]) && textkit.IsDigit(s[2])
}

// fieldStatus returns where the status code of a field starts: the field
// is the code, or a result word and the code ("TCP_MISS/503": Squid's
// native format and the proxies that copy it), or -1.
func fieldStatus(f string) int {
	if isStatusCode(f) {
		return 0
	}
	n := len(f) - 4
	if n < 1 || f[n] != '/' || !isStatusCode(f[n+1:]) {
		return -1
	}
	for i := 0; i < n; i++ {
		if c := f[i]; !(textkit.IsLetter(c) || c == '_' || c == '-') {
			return -1
		}
	}
	return n + 1
}

// statusProbe is how many heads statusFields reads before it gives up on
// a log where fewer than three in ten hold a request (most logs: their
// other heads are not read).
const statusProbe = 64

// maxStatusFields bounds the status fields a layout keeps: a balancer's
// own and its target's.
const maxStatusFields = 2

// statusFields returns the distances of the status fields from the
// request line of the records among heads, or nil: most heads (six in
// ten) hold a request line, and a status field holds a code in nine
// records in ten of those, not always the same one (a port, 443, is no
// status; a log whose every request succeeded needs none). Of more such fields (a balancer's status and
// its target's, which is "-" when the target never answered), the two
// that hold a code most often are kept, the nearer first of equals.
func statusFields(heads []string) []int {
	var codes [2*maxStatusDistance + 1]int
	var first [2*maxStatusDistance + 1]string // the first code seen at a distance
	var varies [2*maxStatusDistance + 1]bool  // another code was seen there
	requests := 0
	for k, h := range heads {
		if k == statusProbe && requests*10 < statusProbe*3 {
			return nil // an access log holds requests from its first records on
		}
		open, close := requestLine(h)
		if open < 0 {
			if (requests+len(heads)-k-1)*10 < len(heads)*6 {
				return nil // too few request lines, whatever the rest hold
			}
			continue
		}
		requests++
		fieldsAround(h, open, close, 0, func(d, s, e int) bool {
			if at := fieldStatus(h[s:e]); at >= 0 {
				c := h[s+at : e]
				k := d + maxStatusDistance
				codes[k]++
				if first[k] == "" {
					first[k] = c
				} else if c != first[k] {
					varies[k] = true
				}
			}
			return true
		})
	}
	if requests < 2 || requests*10 < len(heads)*6 {
		return nil
	}
	var found []int
	for dist := 1; dist <= maxStatusDistance; dist++ {
		for _, d := range [2]int{-dist, dist} {
			if k := d + maxStatusDistance; codes[k]*10 >= requests*9 && varies[k] {
				found = append(found, d)
			}
		}
	}
	slices.SortStableFunc(found, func(a, b int) int { return codes[b+maxStatusDistance] - codes[a+maxStatusDistance] })
	return found[:min(len(found), maxStatusFields)]
}

// markErrorStatuses makes the error status of head (a 4xx or 5xx code
// in one of the fields ds fields from its request line) a constant among
// its tokens toks[at:]: a route's failures are events of their own.
func markErrorStatuses(head string, ds []int, toks []Tok, at int) {
	s := errorStatusAt(head, ds)
	if s < 0 {
		return
	}
	for k := at; k < len(toks); k++ {
		if t := toks[k]; int(t.Start) <= s && s+3 <= int(t.End) {
			// The code, or the field it is part of (TCP_MISS/503).
			toks[k].h, toks[k].flags = wordHash(head[t.Start:t.End])^'S', toks[k].flags&^tokVariable
			return
		}
	}
}

// ErrorStatus returns the error status (4xx, 5xx) of an access record's
// head under l, or "": a code in one of its status fields.
func (l Layout) ErrorStatus(head string) string {
	if s := errorStatusAt(head, l.StatusFields); s >= 0 {
		return head[s : s+3]
	}
	return ""
}

// errorStatusAt returns where the first error status in the fields ds
// fields from head's request line starts, or -1.
func errorStatusAt(head string, ds []int) int {
	if len(ds) == 0 {
		return -1
	}
	open, close := requestLine(head)
	if open < 0 {
		return -1
	}
	for _, d := range ds {
		if s, e := fieldAt(head, open, close, d); s >= 0 {
			if at := fieldStatus(head[s:e]); at >= 0 && head[s+at] >= '4' {
				return s + at
			}
		}
	}
	return -1
}
