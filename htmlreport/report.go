// Package htmlreport writes a self-contained HTML report of compaction
// runs: per input a header, a per-node chart of characters in and out,
// the compacted text whose fold markers open onto the original lines they
// stand for, and the kept failures with jump links. One file, inline CSS
// and JS, no network: it works from file://. All text is escaped by
// html/template; the original travels once, as base64 (of gzip when
// large), and is put into the page with textContent only.
package htmlreport

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// DefaultMaxOriginal is the original size (bytes) above which only the
// lines nearest to kept lines are embedded.
const DefaultMaxOriginal = 20 << 20

// gzipAbove is the payload size from which the original is gzipped.
const gzipAbove = 64 << 10

// Input is one compacted document.
type Input struct {
	File string
	// DocID is the document id; fold references must be prefixes of it.
	DocID string
	// Original is the text before compaction; "" when not at hand (folds
	// then do not open).
	Original string
	// Text is the compacted text as emitted.
	Text   string
	Report pipeline.Report
	Took   time.Duration
}

// Options shape a report.
type Options struct {
	// MaxOriginal is the original size in bytes above which only the
	// lines nearest to kept lines are embedded (0: DefaultMaxOriginal).
	MaxOriginal int
	// Title heads the page (default "jetcompact report").
	Title string
}

//go:embed report.tmpl
var pageSource string

//go:embed report.css
var pageCSS string

//go:embed report.js
var pageJS string

// scriptHash lets the page's own script run and no other (the
// Content-Security-Policy names it): defence in depth behind escaping.
var scriptHash = func() string {
	sum := sha256.Sum256([]byte(pageJS))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}()

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"css":        func() template.CSS { return template.CSS(pageCSS) },
	"js":         func() template.JS { return template.JS(pageJS) },
	"scriptHash": func() string { return scriptHash },
	"add":        func(a, b int) int { return b + a },
	"sub":        func(a, b int) int { return b - a },
}).Parse(pageSource))

// Write writes one report of inputs to w.
func Write(w io.Writer, inputs []Input, opt Options) error {
	opt.MaxOriginal = cmp.Or(opt.MaxOriginal, DefaultMaxOriginal)
	opt.Title = cmp.Or(opt.Title, "jetcompact report")
	v := view{Title: opt.Title}
	for i, in := range inputs {
		d, err := newDoc(i, in, opt.MaxOriginal)
		if err != nil {
			return fmt.Errorf("%s: %w", in.File, err)
		}
		v.Docs = append(v.Docs, d)
	}
	return page.Execute(w, v)
}

type view struct {
	Title string
	Docs  []*doc
}

// doc is one input as the template shows it.
type doc struct {
	Index            int
	File, Kind, Mode string
	DocID            string
	CharsIn          int
	CharsOut         int
	TokensIn         int
	TokensOut        int
	Ratio            string
	Took             string
	Guard            string
	Budget           string
	Chart            chart
	Lines            []line
	Alerts           []alert
	AlertsMore       int
	Folds            int
	Payload          string // base64 of the JSON segments, "" without original
	PayloadEnc       string // "gzip" or "plain"
	CapNote          string // why some folds open only in part
	NoOriginal       bool
}

// line is one line of the compacted text.
type line struct {
	ID    string // anchor
	Text  string
	Class string // "fail", "warn" or ""
	Fold  *fold
	// Marker: a fold marker that carries no usable reference.
	Marker  bool
	Partial bool // some of the fold's lines are not embedded
}

// alert is a run of kept failure lines, for the jump list.
type alert struct {
	ID, Text string
	Lines    int
}

// maxAlerts caps the jump list.
const maxAlerts = 50

func newDoc(index int, in Input, maxOriginal int) (*doc, error) {
	r := in.Report
	d := &doc{
		Index: index, File: in.File, Kind: string(r.Kind), Mode: string(r.Mode), DocID: in.DocID,
		CharsIn: r.CharsIn, CharsOut: r.CharsOut, Ratio: fmt.Sprintf("%.4f", r.Ratio()),
		Took: in.Took.Round(time.Millisecond).String(), Guard: r.Guard,
		TokensIn: stages.EstimateTokens(in.Original), TokensOut: stages.EstimateTokens(in.Text),
		Chart: newChart(r), NoOriginal: in.Original == "",
	}
	if b := r.Budget; b != nil {
		d.Budget = fmt.Sprintf("budget %d tokens: %d in, %d out", b.Tokens, b.TokensIn, b.TokensOut)
		for _, k := range slices.Sorted(maps.Keys(b.Folded)) {
			d.Budget += fmt.Sprintf(", %s %d folded", k, b.Folded[k])
		}
	}
	shown := strings.Split(strings.TrimSuffix(in.Text, "\n"), "\n")
	compacted := shown
	if in.Original != "" && in.DocID != "" {
		// Markers and counts the run left without a reference (--no-store,
		// counts a budget kept short) get one for this page only: they open
		// too, and the page shows the text as emitted.
		text := pipeline.AddRefs(in.Original, in.Text, in.DocID[:min(len(in.DocID), 8)])
		if refd := strings.Split(strings.TrimSuffix(text, "\n"), "\n"); len(refd) == len(shown) {
			compacted = refd
		}
	}
	var orig []string
	if in.Original != "" {
		orig = strings.Split(strings.TrimSuffix(in.Original, "\n"), "\n")
	}
	src := newOriginal(orig, compacted)
	var folds []*fold
	run := -1 // index in d.Alerts of the failure run the previous line belongs to
	for i, l := range compacted {
		ln := line{ID: fmt.Sprintf("d%d-l%d", index, i+1), Text: shown[i]}
		if f, ok := parseFold(l, in.DocID, src); ok {
			ln.Fold = &f
			folds = append(folds, ln.Fold)
		} else if isMarker(l) {
			ln.Marker = true
		}
		if ln.Fold == nil || ln.Fold.Template {
			switch stages.LineSignal(shown[i]) {
			case 3:
				ln.Class = "fail"
			case 2:
				ln.Class = "warn"
			}
		}
		switch {
		case ln.Class == "":
			run = -1
		case run >= 0:
			d.Alerts[run].Lines++
		case ln.Class == "fail":
			d.Alerts = append(d.Alerts, alert{ID: ln.ID, Text: clip(shown[i], 160), Lines: 1})
			run = len(d.Alerts) - 1
		}
		d.Lines = append(d.Lines, ln)
	}
	d.Folds = len(folds)
	if len(d.Alerts) > maxAlerts {
		d.AlertsMore = len(d.Alerts) - maxAlerts
		d.Alerts = d.Alerts[:maxAlerts]
	}
	if in.Original == "" {
		return d, nil
	}
	covered, depth, capped := embedPlan(orig, folds, len(in.Original), maxOriginal)
	if capped {
		partial := 0
		for i := range d.Lines {
			if f := d.Lines[i].Fold; f != nil && !coveredAll(f, covered) {
				d.Lines[i].Partial = true
				partial++
			}
		}
		d.CapNote = fmt.Sprintf("The original (%d bytes) is over the %d-byte cap (--html-report-max-original): only the original lines the folds show are embedded; `publisher get REF` prints the rest.", len(in.Original), maxOriginal)
		switch {
		case depth == 0:
			d.CapNote = fmt.Sprintf("The original (%d bytes) is over the %d-byte cap (--html-report-max-original), and not one line from each fold fits: no original line is embedded; `publisher get REF` prints a fold's lines.", len(in.Original), maxOriginal)
		case partial > 0:
			d.CapNote = fmt.Sprintf("The original (%d bytes) is over the %d-byte cap (--html-report-max-original): %d of %d folds show only their first and last %d lines; `publisher get REF` prints the rest.", len(in.Original), maxOriginal, partial, len(folds), depth)
		}
	}
	var err error
	d.Payload, d.PayloadEnc, err = encodeOriginal(orig, covered)
	return d, err
}

// encodeOriginal is the embedded original: a JSON array of [from, text]
// segments (text: consecutive lines joined by "\n"), gzipped when large,
// in base64.
func encodeOriginal(lines []string, covered [][2]int) (payload, enc string, err error) {
	segs := make([][2]any, 0, len(covered))
	for _, r := range covered {
		segs = append(segs, [2]any{r[0], strings.Join(lines[r[0]-1:r[1]], "\n")})
	}
	raw, err := json.Marshal(segs)
	if err != nil {
		return "", "", err
	}
	if len(raw) < gzipAbove {
		return base64.StdEncoding.EncodeToString(raw), "plain", nil
	}
	var b bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
	if _, err := zw.Write(raw); err != nil {
		return "", "", err
	}
	if err := zw.Close(); err != nil {
		return "", "", err
	}
	return base64.StdEncoding.EncodeToString(b.Bytes()), "gzip", nil
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
