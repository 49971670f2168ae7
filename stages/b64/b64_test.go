package b64

import (
	"bytes"
	"encoding/base64"
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
