package stages

import (
	"encoding/json"
	"sort"
	"strings"
)

// Jupyter notebooks (nbformat 4, .ipynb): the class of JSON documents whose
// content is their cells. Folded as JSON, a notebook keeps its first and
// last cells and a schema, losing the code and prose a reader came for.
// Rendered instead as Markdown: markdown and raw cells as written, code
// cells fenced in the kernel's language and byte for byte, outputs
// compacted like tool output, errors with their whole traceback, and rich
// media (images, HTML, widgets) as a one-line marker.

type notebook struct {
	Nbformat int `json:"nbformat"`
	Cells    []struct {
		CellType string     `json:"cell_type"`
		Source   nbText     `json:"source"`
		Outputs  []nbOutput `json:"outputs"`
	} `json:"cells"`
	Metadata struct {
		KernelSpec struct {
			Language string `json:"language"`
		} `json:"kernelspec"`
		LanguageInfo struct {
			Name string `json:"name"`
		} `json:"language_info"`
	} `json:"metadata"`
}

type nbOutput struct {
	OutputType string                     `json:"output_type"`
	Text       nbText                     `json:"text"`
	Data       map[string]json.RawMessage `json:"data"`
	Ename      string                     `json:"ename"`
	Evalue     string                     `json:"evalue"`
	Traceback  []string                   `json:"traceback"`
}

// nbText is nbformat's multi-line string: one string, or a list of lines
// that each keep their newline.
type nbText string

func (t *nbText) UnmarshalJSON(b []byte) error {
	var lines []string
	if err := json.Unmarshal(b, &lines); err == nil {
		*t = nbText(strings.Join(lines, ""))
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*t = nbText(s)
	return nil
}

// looksNotebook is a cheap test before decoding: both keys nbformat
// requires at the top level.
func looksNotebook(text string) bool {
	return strings.HasPrefix(text, "{") && hasNbformatKey(text) && strings.Contains(text, `"cells"`)
}

// hasNbformatKey is strings.Contains(text, `"nbformat"`), searched from
// its 'b': quotes are everywhere in JSON, where strings.Index stops at
// each one, and a 'b' is rare enough for IndexByte to skip ahead.
func hasNbformatKey(text string) bool {
	const key = `"nbformat"`
	for i := 2; i < len(text); i++ {
		j := strings.Index(text[i:], key[2:])
		if j < 0 {
			return false
		}
		if i += j; text[i-2:i] == key[:2] {
			return true
		}
	}
	return false
}

// renderNotebook returns the notebook as Markdown, or false when text is
// not an nbformat 4 notebook with at least one cell.
func renderNotebook(text string) (string, bool) {
	if !looksNotebook(text) {
		return "", false
	}
	var nb notebook
	if err := json.Unmarshal([]byte(text), &nb); err != nil || nb.Nbformat < 4 || len(nb.Cells) == 0 {
		return "", false
	}
	lang := nb.Metadata.LanguageInfo.Name
	if lang == "" {
		lang = nb.Metadata.KernelSpec.Language
	}
	var b strings.Builder
	for _, c := range nb.Cells {
		src := strings.TrimRight(string(c.Source), " \t\r\n")
		switch c.CellType {
		case "code":
			if src != "" {
				writeFenced(&b, lang, src)
			}
			for _, o := range c.Outputs {
				writeNotebookOutput(&b, o)
			}
		default: // markdown, raw
			if src != "" {
				b.WriteString(src + "\n\n")
			}
		}
	}
	return strings.TrimRight(b.String(), "\n") + "\n", true
}

func writeNotebookOutput(b *strings.Builder, o nbOutput) {
	switch o.OutputType {
	case "stream":
		writeOutputText(b, string(o.Text))
	case "error":
		var tb []string
		for _, l := range o.Traceback {
			tb = append(tb, strings.TrimRight(stripANSI(l), "\n"))
		}
		body := strings.Join(tb, "\n")
		if body == "" {
			body = o.Ename + ": " + o.Evalue
		}
		writeFenced(b, "", body) // a failure: whole
	default: // execute_result, display_data
		var plain nbText
		var media []string
		for mime, raw := range o.Data {
			if mime == "text/plain" {
				_ = json.Unmarshal(raw, &plain)
				continue
			}
			media = append(media, mime)
		}
		if plain != "" {
			writeOutputText(b, string(plain))
		}
		if len(media) > 0 {
			sort.Strings(media)
			b.WriteString("[output: " + strings.Join(media, ", ") + "]\n\n")
		}
	}
}

func writeOutputText(b *strings.Builder, s string) {
	s = strings.TrimRight(stripANSI(s), " \t\r\n")
	if s != "" {
		writeFenced(b, "", compactOutput(s))
	}
}

// writeFenced writes body in a backtick fence longer than any backtick run
// inside it, so the fence cannot close early.
func writeFenced(b *strings.Builder, lang, body string) {
	longest, run := 0, 0
	for i := 0; i < len(body); i++ {
		if body[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	b.WriteString(fence + lang + "\n" + body + "\n" + fence + "\n\n")
}
