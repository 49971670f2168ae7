package stages

import (
	"regexp"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// normalizeReference is numberNode.normalize as first written: one byte
// a step, each token read again for its time stamp shape.
func normalizeReference(n numberNode, dst []byte, text string) (_ []byte, ok bool) {
	at := len(dst)
	last := 0
	changed := false
	tokEnd := -1   // end of the blank-separated token holding i
	whole := false // that token is a time stamp: it stays whole
	var stamp stampTailReference
	for i := 0; i < len(text); {
		c := text[i]
		if c == ' ' || c == '\t' {
			i++
			continue
		}
		if i >= tokEnd {
			tokEnd = i
			for tokEnd < len(text) && text[tokEnd] != ' ' && text[tokEnd] != '\t' {
				tokEnd++
			}
			whole = stamp.next(text[i:tokEnd])
		}
		if whole {
			i = tokEnd
			continue
		}
		if !startsValue(text, i) {
			i++
			continue
		}
		// Hex word boundary: a token of hex digits and dashes.
		if i == 0 || !isWordByte(text[i-1]) {
			if end := hexLiteralEnd(text, i); end > 0 {
				// 0x1f2e3d: keep the prefix, it says "an address".
				dst = append(append(dst, text[last:i+2]...), n.opt.Placeholder...)
				last, i, changed = end, end, true
				continue
			}
			if end := uuidEnd(text, i); end > 0 {
				i = end // a UUID names one thing: it stays
				continue
			}
			end, stop := hexTokenEnd(text, i)
			if end > 0 {
				dst = append(append(dst, text[last:i]...), n.opt.Placeholder...)
				last, i, changed = end, end, true
				continue
			}
			if !textkit.IsDigit(c) {
				// No start inside this run of hex and dashes opens an id
				// either: skip it, so a long run is read once.
				i = max(i+1, stop)
				continue
			}
		}
		if !textkit.IsDigit(c) {
			i++
			continue
		}
		end := numberEnd(text, i)
		if n.masksNumber(text, i, end) {
			dst = append(append(dst, text[last:i]...), n.opt.Placeholder...)
			last, changed = end, true
		}
		i = end
	}
	if !changed {
		return dst[:at], false
	}
	return append(dst, text[last:]...), true
}

type stampTailReference struct {
	afterClock, afterZone bool
	monthGap              int
}

// zoneOffsetReference is a numeric UTC offset: a sign, hours 00-14, an
// optional colon, a quarter hour, then perhaps one closing byte.
var zoneOffsetReference = regexp.MustCompile(`^[+-](0[0-9]|1[0-4]):?(00|15|30|45)[\]),;]?$`)

func (s *stampTailReference) next(t string) bool {
	year := (s.afterClock || s.afterZone || s.monthGap > 0) && isYearToken(t)
	month := false
	for _, m := range []string{"January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"} {
		if name := strings.TrimRight(t, ",."); name == m || name == m[:3] {
			month = true
		}
	}
	if month {
		s.monthGap = 2
	} else if s.monthGap > 0 {
		s.monthGap--
	}
	offset := s.afterClock && zoneOffsetReference.MatchString(t)
	s.afterZone = s.afterClock && (isZoneWord(t) || offset)
	stamp := isTimeToken(t)
	s.afterClock = stamp && strings.IndexByte(t, ':') >= 0
	return stamp || year || offset
}

func FuzzNormalize(f *testing.F) {
	for _, s := range []string{
		"081111 090031 19 INFO dfs.FSDataset: Deleting block blk_-8131422413299851907 size 67108864",
		"Sun Dec 04 04:51:08 2005 UTC 2005 x 0x1f2e3d4c 123e4567-e89b-12d3-a456-426614174000 deadbeef12",
		"10.0.0.1:8080 1440,900 v12abc x86_64k 2024-01-02 12:04:05 - 2005-06-03-15.42.50.363779 ab-cd-12345678",
		"\t12345\t\tabcdef0123 ffff-ffff-1234 1.2.3 12345.678",
		"0:0 +0000", "[01/Mar/2025:10:00:00 +05:30] Tue, 1 Mar 2025 10:00:00 -0700 September,. 1999",
	} {
		f.Add(s)
	}
	n := numberNode{DefaultNumberNormalizeOptions()}
	f.Fuzz(func(t *testing.T, line string) {
		got, gotOK := n.normalize([]byte("x"), line)
		want, wantOK := normalizeReference(n, []byte("x"), line)
		if gotOK != wantOK || string(got) != string(want) {
			t.Fatalf("normalize(%q) = %q %v, want %q %v", line, got, gotOK, want, wantOK)
		}
	})
}
