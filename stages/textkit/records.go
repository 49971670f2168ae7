package textkit

import (
	"strings"
	"unicode/utf8"
)

// Byte-level helpers shared by the log-oriented nodes. They avoid regular
// expressions on hot paths: each runs in one pass over its line.

// SkipANSI returns the offset past any ANSI escape sequences (CSI "ESC [ …
// final byte" and the two-byte ESC forms) starting at i.
func SkipANSI(s string, i int) int {
	for i < len(s) && s[i] == 0x1b {
		i++
		if i >= len(s) {
			return i
		}
		if s[i] != '[' {
			if s[i] < utf8.RuneSelf {
				i++ // a two-byte escape; a rune after a lone ESC stays whole
			}
			continue
		}
		i++
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x3f {
			i++
		}
		if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
			i++
		}
	}
	return i
}

// DigitRun returns the end of the run of ASCII digits starting at i.
func DigitRun(s string, i int) int {
	for i < len(s) && IsDigit(s[i]) {
		i++
	}
	return i
}

var monthNames = [...]string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
var dayNames = [...]string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}

// monthAt reports whether s starts with a month name and a blank.
func monthAt(s string) bool { return len(s) >= 4 && s[3] == ' ' && isMonthName(s[:3]) }

// dayAt reports whether s starts with a weekday name and a blank.
func dayAt(s string) bool { return len(s) >= 4 && s[3] == ' ' && isDayName(s[:3]) }

// nameIndex numbers a capital and two lower-case letters from 0 to
// 26*26*26-1, or returns -1 for any other three bytes.
func nameIndex(s string) int {
	c0, c1, c2 := s[0]-'A', s[1]-'a', s[2]-'a'
	if c0 >= 26 || c1 >= 26 || c2 >= 26 {
		return -1
	}
	return int(c0)*26*26 + int(c1)*26 + int(c2)
}

// nameSet holds three-letter names as bits, so that a name test is one
// lookup.
type nameSet [26 * 26 * 26 / 8]byte

func newNameSet(names ...[]string) *nameSet {
	var set nameSet
	for _, list := range names {
		for _, n := range list {
			k := nameIndex(n)
			set[k/8] |= 1 << (k % 8)
		}
	}
	return &set
}

// has reports whether the set holds s, 3 bytes long. Not inlined, so
// that its callers are.
//
//go:noinline
func (set *nameSet) has(s string) bool {
	_ = s[2] // one bounds check for the three bytes
	c0, c1, c2 := uint(s[0]-'A'), uint(s[1]-'a'), uint(s[2]-'a')
	if c0 >= 26 || c1 >= 26 || c2 >= 26 {
		return false
	}
	k := c0*26*26 + c1*26 + c2 // nameIndex, unsigned: shifts, no sign fix
	return set[k/8]>>(k%8)&1 != 0
}

var monthSet, daySet, calendarSet = newNameSet(monthNames[:]), newNameSet(dayNames[:]), newNameSet(monthNames[:], dayNames[:])

// isMonthName reports one of monthNames. s must be 3 bytes long.
func isMonthName(s string) bool { return monthSet.has(s) }

// isDayName reports one of dayNames. s must be 3 bytes long.
func isDayName(s string) bool { return daySet.has(s) }

// timeAt reports whether s starts with a clock time such as 7:04 or 16:49:06.
func timeAt(s string) bool {
	e := DigitRun(s, 0)
	if e < 1 || e > 2 || e+2 >= len(s) || s[e] != ':' {
		return false
	}
	return DigitRun(s, e+1) == e+3
}

// stampAt reports whether s starts with a date, a time or an epoch: the
// usual first field of a log record.
func stampAt(s string) bool {
	if s != "" && s[0] == '<' && IsPlaceholderAt(s) {
		// A stamp that number_normalize already replaced: <N>, <*>, <TS>.
		return true
	}
	if s != "" && (s[0] == '[' || s[0] == '<' || s[0] == '(') {
		s = s[1:]
	}
	switch {
	case s == "":
		return false
	case IsDigit(s[0]):
		return numericStampAt(s)
	case monthAt(s):
		i := 4
		for i < len(s) && s[i] == ' ' {
			i++
		}
		return i < len(s) && IsDigit(s[i])
	case dayAt(s):
		return monthAt(s[4:])
	}
	// glog: I0607 12:34:56.789
	return len(s) > 6 && strings.IndexByte("IWEF", s[0]) >= 0 && DigitRun(s, 1) == 5 && s[5] == ' '
}

// numericStampAt is stampAt for s that starts with a digit.
func numericStampAt(s string) bool {
	e := DigitRun(s, 0)
	switch {
	case e >= 6:
		// An epoch or a compact date (081109), ended by a separator.
		return e == len(s) || s[e] == ' ' || s[e] == ',' || s[e] == '.' || s[e] == ']' || s[e] == '|'
	case e <= 2 && e < len(s) && s[e] == ':':
		return timeAt(s)
	case (e == 2 || e == 4) && e+1 < len(s) && (s[e] == '-' || s[e] == '/' || s[e] == '.'):
		return dateAt(s, e)
	}
	return false
}

// dateAt reports a date whose first field is s[:e]: ISO 2005-06-03,
// day-first 17/06/09, dotted 2005.06.03; not a version such as 1.54.0.
// Other shapes are found by the analysis of the document (logs.Analyze),
// not listed here.
func dateAt(s string, e int) bool {
	// Two digits and the separator again, then two or four digits.
	d := e + 4
	if len(s) < d+2 || !IsDigit(s[e+1]) || !IsDigit(s[e+2]) || s[e+3] != s[e] || !IsDigit(s[d]) || !IsDigit(s[d+1]) {
		return false
	}
	if d+2 == len(s) || !IsDigit(s[d+2]) {
		return true
	}
	return d+3 < len(s) && IsDigit(s[d+3]) && (d+4 == len(s) || !IsDigit(s[d+4]))
}

// IsPlaceholderAt reports a placeholder token such as <N>, <NUM> or <*>
// followed by a blank, a bracket or a colon.
func IsPlaceholderAt(s string) bool {
	if len(s) < 3 || s[0] != '<' {
		return false
	}
	i := 1
	for i < len(s) && i <= 13 && (s[i] == '*' || (s[i] >= 'A' && s[i] <= 'Z') || s[i] == '_') {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != '>' {
		return false
	}
	i++
	return i == len(s) || strings.IndexByte(" \t]:,.-", s[i]) >= 0
}

// levelAt reports whether s starts with a log level: INFO, [WARN], <ERROR>,
// or a bracketed lower-case level such as [error].
func levelAt(s string) bool { return levelAtCase(s, false) }

// UpperLevelAt is levelAt(strings.ToUpper(s)), without building the
// upper-cased string when s is ASCII without escapes.
func UpperLevelAt(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 || s[i] == 0x1b {
			return levelAt(strings.ToUpper(s))
		}
	}
	return levelAtCase(s, true)
}

// levelAtCase is levelAt, reading lower-case letters as upper-case ones
// when folded.
func levelAtCase(s string, folded bool) bool {
	bracket := false
	if s != "" && (s[0] == '[' || s[0] == '<') {
		s = s[1:]
		bracket = true
	}
	s = s[SkipANSI(s, 0):]
	var up [9]byte
	e, lowerSeen := 0, false
	for e < len(s) && e < len(up) {
		c := s[e]
		switch {
		case c >= 'A' && c <= 'Z':
			up[e] = c
		case c >= 'a' && c <= 'z':
			up[e] = c - 'a' + 'A'
			lowerSeen = true
		default:
			goto word
		}
		e++
	}
word:
	if e < 3 || (e < len(s) && IsWordByte(s[e])) {
		return false
	}
	if lowerSeen && !bracket && !folded {
		// A lower-case level stands alone only as "level: " (.NET's
		// console logger: "info: App.Worker[0]"), and not as the tags
		// compilers and git print ("error: linker failed", "fatal: ..."):
		// those are build output.
		colon := e+1 < len(s) && s[e] == ':' && s[e+1] == ' '
		switch string(up[:e]) {
		case "INFO", "WARN", "DEBUG", "TRACE", "NOTICE", "CRIT", "DBUG", "TRCE":
			return colon
		}
		return false
	}
	switch string(up[:e]) {
	case "INFO", "WARN", "WARNING", "ERROR", "DEBUG", "TRACE", "FATAL", "CRITICAL", "NOTICE",
		"SEVERE", "ERR", "CRIT", "ALERT", "EMERG", "VERBOSE":
		return true
	case "DBUG", "TRCE": // .NET's abbreviations
		return true
	case "FINE", "FINER", "FINEST", "CONFIG": // java.util.logging's
		return true
	}
	return false
}

// IsLogRecord reports whether line starts like a log record: a timestamp,
// an epoch, a syslog date or a level, possibly after one short leading field
// (a label, a host or a dash).
func IsLogRecord(line string) bool {
	stamped, level := RecordStart(line)
	return stamped || level
}

// IsStamped reports a log record that opens with a time, a date or an
// epoch: an event of a service log. Lines that open with a level only
// ("[INFO] Compiling", "[error] x.scala:12") are the output of a build tool.
func IsStamped(line string) bool {
	stamped, _ := RecordStart(line)
	return stamped
}

// RecordStart reports whether line opens a log record with a stamp (a
// time, a date or an epoch) or with a level only.
func RecordStart(line string) (stamped, level bool) {
	if line == "" || line[0] == ' ' || line[0] == '\t' {
		return false, false
	}
	if IsDigit(line[0]) && numericStampAt(line) {
		return true, false // most records: stampAt's first case, at once
	}
	s := line
	if line[0] == 0x1b {
		s = line[SkipANSI(line, 0):]
	}
	if stampAt(s) {
		return true, false
	}
	if levelAt(s) {
		return false, true
	}
	lim := len(s)
	if lim > 24 {
		lim = 24
	}
	if i := strings.IndexByte(s[:lim], ' '); i > 0 {
		rest := s[i+1:]
		return stampAt(rest) || (s[0] == '-' && i == 1 && rest != "" && IsDigit(rest[0])), false
	}
	return false, false
}

// ParseFoldMarker reports the line count of a marker made by foldMarker
// (any "what"), or 0 when line is not one.
func ParseFoldMarker(line string) int {
	if !strings.HasPrefix(line, "[... ") || !strings.HasSuffix(line, " ...]") {
		return 0
	}
	rest := line[len("[... "):]
	e := DigitRun(rest, 0)
	if e == 0 || e > 12 {
		return 0
	}
	if !strings.HasPrefix(rest[e:], " line") {
		return 0
	}
	n := 0
	for j := 0; j < e; j++ {
		n = n*10 + int(rest[j]-'0')
	}
	return n
}

// IsTimeToken reports a token holding a clock time (digits, a colon,
// digits) or a date (three digit groups joined by - or /), whatever its
// shape around them: 10:00:01, 2024-11-30T10:00:00.247Z, 20240301-10:00:00:243,
// 2005-06-03-15.42.50.363779, [03/Dec/2024:10:00:00. IP addresses with a
// port (10.0.0.1:8080) read as one too, and stay whole as well.
func IsTimeToken(t string) bool {
	for i := 1; i+1 < len(t); i++ {
		switch t[i] {
		case ':':
			if IsDigit(t[i-1]) && IsDigit(t[i+1]) {
				return true
			}
		case '-', '/':
			// d-d-d: a date.
			if IsDigit(t[i-1]) && IsDigit(t[i+1]) {
				j := DigitRun(t, i+1)
				if j-i-1 <= 2 && j+1 < len(t) && t[j] == t[i] && IsDigit(t[j+1]) {
					return true
				}
			}
		}
	}
	return false
}

// DropPartialLine drops the text up to the first line break, so a window
// cut from the middle of a text starts on a whole line.
func DropPartialLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return ""
}

// IsDigit reports an ASCII digit.
func IsDigit(c byte) bool { return c >= '0' && c <= '9' }

// IsHexDigit reports an ASCII hex digit, either case.
func IsHexDigit(c byte) bool { return IsDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }

// IsWordByte reports an ASCII letter, digit or underscore.
func IsWordByte(c byte) bool {
	return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
}

// IsLetter reports an ASCII letter.
func IsLetter(c byte) bool { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') }

// Lower lower-cases an ASCII letter and returns any other byte as it is.
func Lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// IsCalendarName reports a month or weekday name (Jan, Mon). s must be
// 3 bytes long.
func IsCalendarName(s string) bool { return calendarSet.has(s) }
