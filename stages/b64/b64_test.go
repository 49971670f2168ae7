package b64

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
)

// foldReference visits every run of the alphabet in turn, as
// Fold did before it learned to skip.
func foldReference(text string, minChars int, transcript bool) string {
	var out strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if !b64Alphabet[text[i]] {
			i++
			continue
		}
		r := scanB64Run(text, i)
		if r.count >= minChars && looksBase64(text[r.start:r.end]) {
			from, mime := dataURIStart(text, r.start)
			if from < last {
				from, mime = r.start, ""
			}
			out.WriteString(text[last:from])
			out.WriteString(base64Marker(r.count, blobKind(mime, text[r.start:r.end]), transcript))
			last = r.end
		}
		i = max(r.end, i+1)
	}
	if last == 0 {
		return text
	}
	out.WriteString(text[last:])
	return out.String()
}

func FuzzFoldBase64(f *testing.F) {
	blob := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("\x89PNG\r\n\x1a\n binary payload"), 20))
	wrapped := ""
	for i := 0; i < len(blob); i += 64 {
		wrapped += blob[i:min(i+64, len(blob))] + "\n"
	}
	for _, s := range []string{"img=data:image/png;base64," + blob + " tail", "key: " + wrapped + "done", "short words only here", blob[:150] + "==" + " x"} {
		f.Add(s, uint8(200))
		f.Add(s, uint8(3))
	}
	// Lines of a log around a blob, a wrapped block and runs just under
	// and over the lengths that fold: Fold skips quiet lines.
	log := "2024-03-01 00:00:01 INFO [w-1] served /api/v1/items/12 in 5ms\n"
	f.Add(log+log+"payload "+blob+" end\n"+log, uint8(200))
	f.Add(log+wrapped+log+wrapped[:130]+"\n"+log, uint8(200))
	f.Add(log+blob[:40]+"\n"+blob[:197]+"\n x "+blob[:198]+"=="+blob[:50]+"\n"+log, uint8(200))
	f.Add(log+"\r\n"+blob[:64]+"\r\n"+blob[:64]+"\r\n"+blob[:10]+"==\r\n"+log, uint8(100))
	f.Fuzz(func(t *testing.T, text string, minChars uint8) {
		got, err := Fold(text, int(minChars), false, func() error { return nil })
		if err != nil {
			t.Fatal(err)
		}
		if want := foldReference(text, int(minChars), false); got != want {
			t.Fatalf("minChars %d on %q:\n got %q\nwant %q", minChars, text, got, want)
		}
	})
}

// TestValue: a string that is wholly a blob or a data: URI becomes its
// marker; words, paths and strings with padding inside stay.
func TestValue(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(append([]byte("\x89PNG\r\n\x1a\n"), make([]byte, 300)...))
	for _, c := range []struct {
		in, want string
	}{
		{png, "[base64 blob: 412 chars, image/png]"},
		{"data:image/svg+xml;charset=utf-8;base64," + png, "[base64 blob: 412 chars, image/svg+xml]"},
		{png[:100] + "=" + png[100:], ""},
		{png[:40], ""},
		{strings.Repeat("/usr/local/lib/", 20), ""},
		{"see " + png, ""},
	} {
		got, ok := Value(c.in, 200)
		if ok != (c.want != "") || got != c.want {
			t.Errorf("Value(%.30q…) = %q, %v; want %q", c.in, got, ok, c.want)
		}
	}
}

// TestFoldSkipsQuietLines compares Fold with foldReference on texts of
// log lines, blobs, wrapped blocks and runs near the lengths that fold.
func TestFoldSkipsQuietLines(t *testing.T) {
	blob := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte("GIF89a some bytes \x00\x01\x02"), 40))
	pieces := []string{
		"2024-03-01 00:00:01 INFO served /api/v1/items/12 in 5ms", " ", "\n", "\r\n", "=", "==", "data:image/png;base64,",
		blob[:39], blob[:40], blob[:41], blob[:64], blob[:120], blob[:121], blob[:196], blob[:197], blob[:198], blob[:300],
		"appattempt_1445144423722_0020_000001", "x",
	}
	r := rand.New(rand.NewPCG(7, 8))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		text := b.String()
		for _, minChars := range []int{32, 42, 43, 60, 200} {
			got, err := Fold(text, minChars, false, func() error { return nil })
			if err != nil {
				t.Fatal(err)
			}
			if want := foldReference(text, minChars, false); got != want {
				t.Fatalf("minChars %d on %q:\n got %q\nwant %q", minChars, text, got, want)
			}
		}
	}
}
