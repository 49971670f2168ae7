package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/jetcompact/jetcompact/htmlreport"
)

// htmlReportFlags: --html-report FILE writes one HTML report of the run's
// inputs (see package htmlreport).
type htmlReportFlags struct {
	path        string
	maxOriginal int
	inputs      []htmlreport.Input
}

func (f *htmlReportFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.path, "html-report", "", "write a self-contained HTML report (folds open onto the original lines, per-node chart) to this file")
	fs.IntVar(&f.maxOriginal, "html-report-max-original", htmlreport.DefaultMaxOriginal, "with --html-report: above this many bytes of original, embed only the lines nearest to kept lines")
}

// addToHTMLReport keeps one emitted result and its original for the report.
func (a *app) addToHTMLReport(r result, original string) {
	if a.o.html.path == "" {
		return
	}
	a.o.html.inputs = append(a.o.html.inputs, htmlreport.Input{
		File: r.File, DocID: r.ID, Original: original, Text: r.Text, Report: *r.Report,
		Took: time.Duration(r.Seconds * float64(time.Second)),
	})
}

// withHTMLReport runs compact, then writes the report of what it emitted.
func (a *app) withHTMLReport(compact func() error) error {
	err := compact()
	if a.o.html.path == "" || len(a.o.html.inputs) == 0 {
		return err
	}
	f, ferr := os.Create(a.o.html.path)
	if ferr != nil {
		return errors.Join(err, fmt.Errorf("--html-report: %w", ferr))
	}
	werr := htmlreport.Write(f, a.o.html.inputs, htmlreport.Options{MaxOriginal: a.o.html.maxOriginal})
	return errors.Join(err, werr, f.Close())
}
