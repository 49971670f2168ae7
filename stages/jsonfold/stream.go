package jsonfold

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
)

// StreamLines rewrites a stream of pretty-printed JSON objects (jq's
// output over a log, loggers that indent their JSON records) as JSON
// lines, one compact object a line, so that the stream is read as the
// structured log it is. ok is false, and text untouched, unless text is
// two or more objects and nothing else, the first opening on a line of
// its own.
func StreamLines(text string) (lines string, ok bool) {
	trimmed := strings.TrimLeft(text, " \t\r\n\ufeff")
	if !braceLineFirst(trimmed) {
		return text, false
	}
	// One object closes at the start of a line where the next opens: an
	// indented document (one object) is not decoded twice.
	if !hasObjectBoundary(trimmed) {
		return text, false
	}
	dec := json.NewDecoder(strings.NewReader(trimmed))
	dec.UseNumber()
	var out bytes.Buffer
	out.Grow(len(trimmed) / 2)
	objects := 0
	for {
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if err == io.EOF {
			break
		}
		if err != nil || len(raw) == 0 || raw[0] != '{' {
			return text, false
		}
		if err := json.Compact(&out, raw); err != nil {
			return text, false
		}
		out.WriteByte('\n')
		objects++
	}
	if objects < 2 {
		return text, false
	}
	return out.String(), true
}

// hasObjectBoundary reports a line "}" followed, blank lines aside, by a
// line that opens with '{'.
func hasObjectBoundary(s string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], "\n}")
		if j < 0 {
			return false
		}
		i += j + 2
		if rest := strings.TrimLeft(s[i:], " \t\r\n"); strings.HasPrefix(rest, "{") && strings.IndexByte(strings.TrimRight(s[i:len(s)-len(rest)], " \t\r"), '\n') >= 0 {
			return true
		}
	}
}

// braceLineFirst reports a text whose first line is "{" alone, blanks
// after it aside. It reads no further than that line's brace and blanks:
// a minified document is one long line.
func braceLineFirst(s string) bool {
	if s == "" || s[0] != '{' {
		return false
	}
	i := 1
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
		i++
	}
	return i == len(s) || s[i] == '\n'
}
