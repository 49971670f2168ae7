package stages

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Subtitles: caption files (SRT, WebVTT, auto-generated captions) are
// what was said, cut into cues of a few words, each with a number and a
// start and an end time. Their words are the content; the numbers and
// most of the times are not. Cues fold into paragraphs of up to
// subtitleParagraph seconds, each opening with its start time; a line a
// rolling caption repeats from the cue before is written once.

const (
	subtitleParagraph = 30000 // milliseconds a paragraph spans at most
	subtitlePause     = 4000  // milliseconds of silence that open a paragraph
	flashCue          = 100   // milliseconds of a rolling caption's step
	minSubtitleCues   = 5
)

// cueTiming reads a cue's timing line, "00:01:02,500 --> 00:01:04,000"
// (SRT) or "01:02.500 --> 01:04.000 align:start" (WebVTT), and returns
// its start and end in milliseconds.
func cueTiming(line string) (start, end int, ok bool) {
	line = strings.TrimLeft(line, " \t")
	// Both forms open with two digits and a colon.
	if len(line) < 23 || line[2] != ':' || !textkit.IsDigit(line[0]) || !textkit.IsDigit(line[1]) {
		return 0, 0, false
	}
	// The arrow follows a clock of 9 to 12 bytes.
	k := strings.Index(line[:min(len(line), 18)], " --> ")
	if k < 0 {
		return 0, 0, false
	}
	a, rest := line[:k], strings.TrimSpace(line[k+len(" --> "):])
	b, _, _ := strings.Cut(rest, " ")
	start, ok1 := cueClock(a)
	end, ok2 := cueClock(b)
	return start, end, ok1 && ok2
}

// cueClock reads [hh:]mm:ss[,.]mmm in milliseconds.
func cueClock(s string) (int, bool) {
	i := strings.LastIndexAny(s, ",.")
	if i <= 0 || len(s)-i != 4 {
		return 0, false
	}
	ms, ok := cueNumber(s[i+1:])
	if !ok {
		return 0, false
	}
	s = s[:i]
	secs := 0
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, false
	}
	for _, p := range parts {
		v, ok := cueNumber(p)
		if !ok {
			return 0, false
		}
		secs = secs*60 + v
	}
	return secs*1000 + ms, true
}

// cueNumber reads one to three digits.
func cueNumber(p string) (int, bool) {
	if len(p) == 0 || len(p) > 3 || textkit.DigitRun(p, 0) != len(p) {
		return 0, false
	}
	v, err := strconv.Atoi(p)
	return v, err == nil
}

// subtitleDocument reports a sample of lines one in four of which at
// least are cue timings.
func subtitleDocument(sample []string) bool {
	cues := 0
	for _, l := range sample {
		if _, _, ok := cueTiming(l); ok {
			cues++
		}
	}
	return cues >= minSubtitleCues && cues*4 >= len(sample)
}

// subtitleCue is one cue: its times and its lines of text.
type subtitleCue struct {
	start, end int
	lines      []string
}

// foldSubtitles folds a caption file's cues into timed paragraphs. It
// reports false, and folds nothing, unless nine lines in ten are cues'
// (numbers, timings, text) or blank.
func foldSubtitles(text string) (string, bool) {
	if !subtitleDocument(headLines(text)) {
		return text, false
	}
	lines := strings.Split(text, "\n")
	var head []string // before the first cue: a WEBVTT header, notes
	var cues []subtitleCue
	other := 0
	for i := 0; i < len(lines); i++ {
		start, end, ok := cueTiming(lines[i])
		if !ok {
			if len(cues) == 0 {
				head = append(head, lines[i])
			} else if l := strings.TrimSpace(lines[i]); l != "" && !isCueNumber(l) {
				other++
			}
			continue
		}
		if len(cues) == 0 && len(head) > 0 && isCueNumber(strings.TrimSpace(head[len(head)-1])) {
			head = head[:len(head)-1]
		}
		c := subtitleCue{start: start, end: end}
		for i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			i++
			if _, _, next := cueTiming(lines[i]); next {
				i--
				break
			}
			c.lines = append(c.lines, lines[i])
		}
		// The next cue's number, if any, is not text.
		if n := len(c.lines); n > 1 && isCueNumber(strings.TrimSpace(c.lines[n-1])) {
			c.lines = c.lines[:n-1]
		}
		cues = append(cues, c)
	}
	if len(cues) < minSubtitleCues || other*10 > len(lines) {
		return text, false
	}
	var b strings.Builder
	for _, h := range head {
		if strings.TrimSpace(h) != "" {
			b.WriteString(strings.TrimRight(h, "\r") + "\n")
		}
	}
	writeSubtitleParagraphs(&b, cues)
	return b.String(), true
}

// writeSubtitleParagraphs writes cues as paragraphs "[hh:mm:ss] words".
// Rolling captions show each line twice, the second time over the next
// one, and flash each step for a few milliseconds: the first line of a
// cue of two lines or more that ends the cue before, and a flash that
// shows nothing new, are written once. A cue of one line said again is
// said again.
func writeSubtitleParagraphs(b *strings.Builder, cues []subtitleCue) {
	var prev []string
	open, paraStart, lastEnd := false, 0, 0
	for _, c := range cues {
		lines := make([]string, 0, len(c.lines))
		for _, l := range c.lines {
			if l = strings.TrimSpace(stripCueTags(l)); l != "" {
				lines = append(lines, l)
			}
		}
		shown := lines
		switch {
		case c.end-c.start < flashCue && !slices.ContainsFunc(lines, func(l string) bool { return !slices.Contains(prev, l) }):
			lines = nil
		case len(lines) > 1 && len(prev) > 0 && lines[0] == prev[len(prev)-1]:
			lines = lines[1:]
		}
		if !open || c.start-paraStart >= subtitleParagraph || c.start-lastEnd >= subtitlePause {
			if open {
				b.WriteString("\n")
			}
			sec := c.start / 1000
			fmt.Fprintf(b, "[%02d:%02d:%02d]", sec/3600, sec/60%60, sec%60)
			open, paraStart = true, c.start
		}
		for _, l := range lines {
			b.WriteString(" " + l)
		}
		prev, lastEnd = shown, c.end
	}
	if open {
		b.WriteString("\n")
	}
}

// isCueNumber reports an SRT cue's number.
func isCueNumber(l string) bool {
	return l != "" && len(l) <= 7 && textkit.DigitRun(l, 0) == len(l)
}

// stripCueTags drops a WebVTT cue's inline tags (<c>, <i>, word timings
// <00:00:01.520>) and keeps their text; a voice tag <v Roger> names its
// speaker ("Roger: ").
func stripCueTags(l string) string {
	if strings.IndexByte(l, '<') < 0 {
		return l
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(l, '<')
		if i < 0 {
			break
		}
		j := strings.IndexByte(l[i:], '>')
		if j < 0 {
			break
		}
		b.WriteString(l[:i])
		if name, ok := strings.CutPrefix(l[i+1:i+j], "v "); ok {
			b.WriteString(strings.TrimSpace(name) + ": ")
		}
		l = l[i+j+1:]
	}
	b.WriteString(l)
	return b.String()
}

// timedParagraphs reports a text three lines in four of which are
// paragraphs foldSubtitles wrote ("[00:01:02] words").
func timedParagraphs(text string) bool {
	timed, lines := 0, 0
	for _, l := range headLines(text) {
		lines++
		if len(l) > 10 && l[0] == '[' && l[9] == ']' && l[10] == ' ' && strings.Count(l[1:9], ":") == 2 {
			timed++
		}
	}
	return lines > 0 && timed*4 >= lines*3
}
