package textkit

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestCalendarNames(t *testing.T) {
	in := func(names []string, s string) bool { return slices.Contains(names, s) }
	b := []byte("aaa")
	for _, c0 := range "ADFJMNOSTWXadj@[`{\x00\x7f" {
		for _, c1 := range "aceiopruhXz" {
			for _, c2 := range "bcdeglnprtuvyiX" {
				b[0], b[1], b[2] = byte(c0), byte(c1), byte(c2)
				s := string(b)
				if got, want := isMonthName(s), in(monthNames[:], s); got != want {
					t.Errorf("isMonthName(%q) = %v", s, got)
				}
				if got, want := isDayName(s), in(dayNames[:], s); got != want {
					t.Errorf("isDayName(%q) = %v", s, got)
				}
				if got, want := IsCalendarName(s), in(monthNames[:], s) || in(dayNames[:], s); got != want {
					t.Errorf("IsCalendarName(%q) = %v", s, got)
				}
			}
		}
	}
	if !monthAt("Dec 4 10:00") || monthAt("Dec4") || !dayAt("Sun Dec 04") || dayAt("Sunday") {
		t.Error("monthAt/dayAt")
	}
}

// TestUpperLevelAtMatchesToUpper checks UpperLevelAt against levelAt on
// the upper-cased text, on random short texts around level words (cases
// mixed, brackets, ANSI escapes, non-ASCII letters that upper-case to
// ASCII such as ſ and ı).
func TestUpperLevelAtMatchesToUpper(t *testing.T) {
	parts := []string{"info", "WaRn", "error", "[", "<", "]", ">", "\x1b[31m", "ſ", "ı", "x", "_", "1", " ", "err", "crit", "verbose", "é"}
	r := rand.New(rand.NewPCG(15, 16))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(4); k >= 0; k-- {
			b.WriteString(parts[r.IntN(len(parts))])
		}
		s := b.String()
		if got, want := UpperLevelAt(s), levelAt(strings.ToUpper(s)); got != want {
			t.Fatalf("UpperLevelAt(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestLowerCaseLevelNeedsItsColon: a lower-case level opens a record only
// as "level: " (.NET's console logger); in a sentence it is a word, and
// the tags of compilers and git are build output.
func TestLowerCaseLevelNeedsItsColon(t *testing.T) {
	for line, want := range map[string]bool{
		"info: App.Worker[0]":           true,
		"dbug: Microsoft.Hosting[2]":    true,
		"warn: disk almost full":        true,
		"INFO starting":                 true,
		"FINE: pool resized":            true,
		"CONFIG: port 8080":             true,
		"[error] x.scala:12":            true,
		"info about the run":            false,
		"information: see below":        false,
		"info:no blank after the colon": false,
		"warnings: 3":                   false,
		"error: linker failed":          false,
		"fatal: not a git repository":   false,
		"warning: unused variable":      false,
	} {
		if _, got := RecordStart(line); got != want {
			t.Errorf("RecordStart(%q) level = %v, want %v", line, got, want)
		}
	}
}
