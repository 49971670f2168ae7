package stages

import (
	"context"
	"math/rand/v2"
	"testing"
)

// FuzzWhitespacePlainLines compares the whitespace node, whose plain
// lines pass in one write each (see plainLine), with its reference on
// generated texts of every class and line ending, one byte of each
// changed to a blank, a line break or a letter where the fuzzer says.
func FuzzWhitespacePlainLines(f *testing.F) {
	f.Add(uint64(1), uint8(0), uint8(0), uint16(0), uint8(' '))
	f.Add(uint64(7), uint8(1), uint8(1), uint16(99), uint8('\n'))
	f.Add(uint64(3), uint8(4), uint8(2), uint16(7), uint8('\t'))
	f.Fuzz(func(t *testing.T, seed uint64, class, ending uint8, at uint16, c uint8) {
		r := rand.New(rand.NewPCG(seed, 5))
		text := genClassText(r, textClasses[int(class)%len(textClasses)], lineEndings[int(ending)%len(lineEndings)], 1+r.IntN(150))
		if len(text) > 0 {
			i := int(at) % len(text)
			text = text[:i] + string([]byte{" \t\n\r\fx"[int(c)%6]}) + text[i+1:]
		}
		for _, o := range []WhitespaceOptions{DefaultWhitespaceOptions(), {MaxBlankLines: 0}, {MaxBlankLines: 2, CollapseInnerSpaces: true}} {
			out, err := NewWhitespace(o).Apply(context.Background(), Input{Text: text, Kind: KindLog})
			if err != nil {
				t.Fatal(err)
			}
			if want := whitespaceReference(text, o, KindLog); out.Text != want {
				t.Fatalf("%+v on %q:\n got %q\nwant %q", o, text, out.Text, want)
			}
		}
	})
}
