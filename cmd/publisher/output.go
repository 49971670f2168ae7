package main

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
)

// result is one compacted input, as --output json writes it.
type result struct {
	ID        string           `json:"id,omitempty"`
	File      string           `json:"file"`
	Kind      string           `json:"kind"`
	Mode      string           `json:"mode"`
	Ratio     float64          `json:"ratio"`
	CharsIn   int              `json:"chars_in"`
	CharsOut  int              `json:"chars_out"`
	Seconds   float64          `json:"seconds"`
	Text      string           `json:"text"`
	Error     string           `json:"error,omitempty"`
	Report    *pipeline.Report `json:"report"`
	multiFile bool
}

// emit writes one result: the text alone (after a "==> FILE <==" header
// when there are several inputs, and a blank line before every header but
// the first, as head does, unless --quiet), or one JSON object per line
// with --output json.
func (a *app) emit(r result) error {
	if a.o.output == "json" {
		return writeJSON(a.stdout, r)
	}
	if r.multiFile && !a.o.quiet {
		sep := "\n"
		if a.headers == 0 {
			sep = ""
		}
		a.headers++
		if _, err := fmt.Fprintf(a.stdout, "%s==> %s <==\n", sep, r.File); err != nil {
			return err
		}
	}
	_, err := fmt.Fprint(a.stdout, r.Text)
	if err == nil && r.multiFile && !a.o.quiet && r.Text != "" && r.Text[len(r.Text)-1] != '\n' {
		_, err = fmt.Fprintln(a.stdout)
	}
	return err
}

func newResult(name, id string, rep pipeline.Report, text string, took time.Duration, inputs int) result {
	return result{
		ID: id, File: name, Kind: string(rep.Kind), Mode: string(rep.Mode), Ratio: rep.Ratio(),
		CharsIn: rep.CharsIn, CharsOut: rep.CharsOut, Seconds: took.Seconds(), Text: text,
		Report: &rep, multiFile: inputs > 1,
	}
}

// deadLetter is one dead letter as dead --output json writes it.
type deadLetter struct {
	Sequence uint64 `json:"sequence"`
	DocID    string `json:"doc_id"`
	Stage    string `json:"stage"`
	Reason   string `json:"reason"`
}

// writeJSON writes v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
