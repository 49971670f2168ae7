package pipeline

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages"
)

// heartbeatLog is a log of n identical-shape lines and one error line, the
// shape of the repros' UTF-16 generator.
func heartbeatLog(n int, eol string) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "2025-01-01 10:00:%02d INFO hb %d ok%s", i%60, i, eol)
	}
	b.WriteString("2025-01-01 10:00:01 ERROR disk failure" + eol)
	return b.String()
}

func encodeUTF16(s string, littleEndian, bom bool) string {
	units := utf16.Encode([]rune(s))
	if bom {
		units = append([]uint16{0xfeff}, units...)
	}
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		if littleEndian {
			out = binary.LittleEndian.AppendUint16(out, u)
		} else {
			out = binary.BigEndian.AppendUint16(out, u)
		}
	}
	return string(out)
}

func encodeUTF32(s string, littleEndian bool) string {
	out := []byte{}
	for _, r := range append([]rune{0xfeff}, []rune(s)...) {
		if littleEndian {
			out = binary.LittleEndian.AppendUint32(out, uint32(r))
		} else {
			out = binary.BigEndian.AppendUint32(out, uint32(r))
		}
	}
	return string(out)
}

// TestDecodeWideEncodings: UTF-16 (with and without a BOM, both byte
// orders) and UTF-32 with a BOM decode to the exact text, astral
// characters included.
func TestDecodeWideEncodings(t *testing.T) {
	text := heartbeatLog(50, "\r\n") + "naïve café 😀 ünïcödé\n"
	cases := []struct {
		name, raw, enc string
	}{
		{"utf-16le bom", encodeUTF16(text, true, true), "utf-16le"},
		{"utf-16be bom", encodeUTF16(text, false, true), "utf-16be"},
		{"utf-16le no bom", encodeUTF16(text, true, false), "utf-16le"},
		{"utf-16be no bom", encodeUTF16(text, false, false), "utf-16be"},
		{"utf-32le bom", encodeUTF32(text, true), "utf-32le"},
		{"utf-32be bom", encodeUTF32(text, false), "utf-32be"},
	}
	for _, c := range cases {
		d := Decode(c.raw)
		if d.Binary != "" || d.Encoding != c.enc || d.Text != text || d.Replaced != 0 {
			t.Errorf("%s: encoding %q binary %q replaced %d, text equal %v", c.name, d.Encoding, d.Binary, d.Replaced, d.Text == text)
		}
	}
	// Broken code units: an unpaired surrogate and an odd trailing byte.
	body := strings.Repeat("abcdefghij", 30)
	d := Decode("\xff\xfe" + encodeUTF16(body, true, false) + "\x00\xd8" + "b\x00" + "c")
	if d.Text != body+"\uFFFDb\uFFFD" || d.Replaced != 2 {
		t.Errorf("broken UTF-16: %q, %d replaced", d.Text, d.Replaced)
	}
}

// TestUTF16LogIsCompacted is issue 15 item 6: the repros' UTF-16 log is
// decoded and compacted like its UTF-8 twin; the error line survives.
func TestUTF16LogIsCompacted(t *testing.T) {
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	text := heartbeatLog(20000, "\r\n")
	want, err := p.Run(context.Background(), Request{Text: text})
	if err != nil {
		t.Fatal(err)
	}
	for _, raw := range []string{encodeUTF16(text, true, true), encodeUTF16(text, false, true), encodeUTF16(text, true, false)} {
		res, err := p.Run(context.Background(), Request{Text: raw})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != want.Text {
			t.Errorf("UTF-16 result differs from the UTF-8 one (%d vs %d bytes)", len(res.Text), len(want.Text))
		}
		if !strings.Contains(res.Text, "ERROR disk failure") {
			t.Error("error line lost")
		}
		if !strings.HasPrefix(res.Report.Encoding, "utf-16") || res.Report.Guard != GuardKeptResult {
			t.Errorf("report: encoding %q guard %q", res.Report.Encoding, res.Report.Guard)
		}
	}
}

// TestBinaryPassesThrough is issue 15 item 6: NUL-dense or mostly invalid
// input is binary: it comes back byte for byte, with a reason naming it,
// never as U+FFFD soup. Inputs are generated at several densities.
func TestBinaryPassesThrough(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{})
	r := rand.New(rand.NewPCG(3, 4))
	random := func(n, nulEvery int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
			if nulEvery > 0 && i%nulEvery == 0 {
				b[i] = 0
			}
		}
		return string(b)
	}
	elf := "\x7fELF\x02\x01\x01" + strings.Repeat("\x00\x00\x00\x00\x01\x00\x3e\x00", 4000) + strings.Repeat("main.go\x00", 100)
	for name, raw := range map[string]string{
		"random":       random(1<<16, 0),
		"random-nul-7": random(1<<18, 7),
		"elf-like":     elf,
		"cp1251-like":  strings.Repeat("\xcf\xf0\xe8\xe2\xe5\xf2 \xec\xe8\xf0\n", 2000),
		// A byte-order mark does not make binary data text.
		"bom-then-random":   "\xff\xfe" + random(1<<16, 0),
		"bom32-then-random": "\xff\xfe\x00\x00" + random(1<<16, 0),
		// Valid UTF-8, but control characters throughout.
		"control-soup": strings.Repeat("\x01\x02ab\x03\x04cd\x05", 5000),
	} {
		res, err := p.Run(context.Background(), Request{Text: raw})
		if err != nil {
			t.Fatal(err)
		}
		if res.Text != raw {
			t.Errorf("%s: binary input changed", name)
		}
		if !strings.HasPrefix(res.Report.Guard, PassBinary) {
			t.Errorf("%s: guard %q, want binary pass-through", name, res.Report.Guard)
		}
	}
	// Text with NUL-separated records is not binary.
	print0 := strings.Repeat("/srv/app/data/file-name-long-enough.log\x00", 500)
	if d := Decode(print0); d.Binary != "" {
		t.Errorf("NUL-separated paths taken for binary: %s", d.Binary)
	}
}

// TestInvalidUTF8Rule is issue 15 item 7: one rule whether the guard keeps
// the result or the original. Every invalid byte becomes one U+FFFD, the
// report counts them, the character count is kept.
func TestInvalidUTF8Rule(t *testing.T) {
	p, _ := New(DefaultConfig(), stages.Deps{})
	bad := []string{"\xff", "\xc3\x28", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xe2\x82"}
	badBytes := 0
	for _, b := range bad {
		for i := 0; i < len(b); i++ {
			if r, size := utf8.DecodeRuneInString(b[i:]); r == utf8.RuneError && size == 1 {
				badBytes++
			}
		}
	}
	// Compactable (the result is kept) and not (the original is kept),
	// each inside and outside a fence.
	var compactable strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&compactable, "2025-01-01 10:00:%02d INFO request %d %s done\n", i%60, i, bad[i%len(bad)])
	}
	short := "one " + strings.Join(bad, " two words between ") + " end\n"
	fenced := "```\n" + short + "```\n"
	for name, raw := range map[string]string{
		"compactable": compactable.String(), "short": short, "fenced": fenced,
		"compactable-fenced": fenced + compactable.String() + fenced,
	} {
		res, err := p.Run(context.Background(), Request{Text: raw})
		if err != nil {
			t.Fatal(err)
		}
		if !utf8.ValidString(res.Text) {
			t.Errorf("%s: invalid UTF-8 out (guard %s)", name, res.Report.Guard)
		}
		if res.Report.Replaced == 0 {
			t.Errorf("%s: no replaced bytes reported", name)
		}
		if stages.Chars(res.Text) > stages.Chars(raw) {
			t.Errorf("%s: more characters out than in", name)
		}
		if name == "short" || name == "fenced" {
			want, n := replaceInvalid(raw)
			if res.Text != want || n != res.Report.Replaced {
				t.Errorf("%s: kept original = %q (%d replaced), want %q", name, res.Text, res.Report.Replaced, want)
			}
		}
	}
	if _, n := replaceInvalid(strings.Join(bad, "")); n != badBytes {
		t.Errorf("replaced %d, want %d (one per invalid byte)", n, badBytes)
	}
}

// TestDecodeCountsCharacters checks the count Decode makes while it
// validates: valid UTF-8 without control bytes is counted, and a count,
// when there is one, is the text's.
func TestDecodeCountsCharacters(t *testing.T) {
	for _, raw := range []string{"plain\n", "héllo wörld ✓\n", strings.Repeat("日本語 ", 40)} {
		if d := Decode(raw); d.Chars != stages.Chars(raw) {
			t.Errorf("Decode(%q).Chars = %d, want %d", raw, d.Chars, stages.Chars(raw))
		}
	}
	for _, raw := range []string{"bad \xff byte", "a bell\a rings", "nul\x00\x00\x00\x00\x00\x00\x00\x00", "\xff\xfeh\x00i\x00"} {
		if d := Decode(raw); d.Chars != 0 && d.Chars != stages.Chars(d.Text) {
			t.Errorf("Decode(%q).Chars = %d, but its text has %d", raw, d.Chars, stages.Chars(d.Text))
		}
	}
}
