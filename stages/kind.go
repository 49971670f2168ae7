package stages

import (
	"regexp"
	"strings"
)

// Kind is the detected content type of a text. Nodes adapt to it.
type Kind string

// The content kinds.
const (
	KindLog        Kind = "log"
	KindJSON       Kind = "json"
	KindHTML       Kind = "html"
	KindTranscript Kind = "transcript"
	KindProse      Kind = "prose"
)

// ParseKind returns the kind named s, or "" when s names none.
func ParseKind(s string) Kind {
	switch k := Kind(s); k {
	case KindLog, KindJSON, KindHTML, KindTranscript, KindProse:
		return k
	}
	return ""
}

// IsTranscript reports whether counts and tallies must stay out of the text.
func (k Kind) IsTranscript() bool { return k == KindTranscript }

var (
	// A log line starts with a date, a time, a level, a bracketed tag or a
	// syslog month.
	logLineStart = regexp.MustCompile(`^(?:\[?\d{2,4}[-/.]\d{1,2}[-/.]\d{1,4}|\[?\d{1,2}:\d{2}:\d{2}|\d{6,}|(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2} |(?:\[|<)?(?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|FATAL|CRITICAL|NOTICE)\b|- \d+ |\[[A-Za-z]{3} [A-Za-z]{3} )`)
	// A transcript turn starts with a speaker or role label.
	turnStart = regexp.MustCompile(`^(?:#{1,4} +)?(?:\*\*)?\[?(?:[A-Z][\w .'-]{0,30}|user|assistant|system|tool|human|ai)\]?(?:\*\*)?(?: \([^)]{0,40}\))?:(?:\*\*)? `)
	htmlStart = regexp.MustCompile(`(?i)^\s*(?:<!doctype html|<html|<head|<body|<div|<!--)`)
)

// Detect guesses the kind of text from its start and a sample of its lines.
func Detect(text string) Kind {
	head := text
	if len(head) > 64<<10 {
		head = head[:64<<10]
	}
	trimmed := strings.TrimLeft(head, " \t\r\n\ufeff")
	if trimmed == "" {
		return KindProse
	}
	switch trimmed[0] {
	case '{', '[':
		if looksJSON(trimmed[0], text) {
			return KindJSON
		}
	case '<':
		if htmlStart.MatchString(trimmed) {
			return KindHTML
		}
	}
	var lines, logLines, turns int
	for _, line := range strings.Split(head, "\n") {
		line = strings.TrimRight(line, "\r")
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		if logLineStart.MatchString(line) {
			logLines++
		}
		if turnStart.MatchString(line) {
			turns++
		}
		if lines >= 400 {
			break
		}
	}
	if lines == 0 {
		return KindProse
	}
	switch {
	case logLines*2 >= lines:
		return KindLog
	case turns >= 2 && turns*8 >= lines:
		return KindTranscript
	}
	return KindProse
}

// looksJSON checks that a text starting with { or [ ends with the matching
// bracket. Full validation is the structured node's job.
func looksJSON(first byte, text string) bool {
	end := strings.TrimRight(text, " \t\r\n")
	if end == "" {
		return false
	}
	last := end[len(end)-1]
	return (first == '{' && last == '}') || (first == '[' && last == ']')
}
