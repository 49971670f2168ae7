package stages

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages/htmlpage"
	"github.com/jetcompact/jetcompact/stages/jsonfold"
)

// StructuredOptions are the structured-folding node's knobs.
type StructuredOptions struct {
	// MinChars: only texts, JSON values and HTML pages at least this many
	// characters long are folded.
	MinChars int `yaml:"min_chars"`
	// ArraySamples: a JSON array of more than ArraySamples+1 items is
	// folded to its first ArraySamples-1 items (at least one), its
	// outliers and its last item, then a count and a schema of every item
	// with per-field summaries. A map keeps this many data-keyed entries.
	ArraySamples int `yaml:"array_samples"`
	// MaxStringChars: longer JSON strings are compacted by what they hold:
	// patches and code stay whole, a log or a stack trace goes through the
	// log nodes (templates with counts, every failure, its last lines),
	// other output keeps head, failures and tail, prose keeps head and
	// tail within about this many characters.
	MaxStringChars int `yaml:"max_string_chars"`
	// MaxDepth: JSON containers nested deeper than this become a marker.
	MaxDepth int `yaml:"max_depth"`
	// MaxObjectKeys bounds the keys one schema lists. Whether an object
	// is a map (keys that are data) is decided by its keys, not its size.
	MaxObjectKeys int `yaml:"max_object_keys"`
	// Base64MinChars: runs of base64 at least this long (data: URIs
	// included) become a marker with their length and content kind.
	Base64MinChars int `yaml:"base64_min_chars"`
	// TableMaxRows: Markdown, CSV and TSV tables with more body rows keep
	// their header and TableEdgeRows rows at each end.
	TableMaxRows int `yaml:"table_max_rows"`
	// TableEdgeRows: rows kept at the top and at the bottom of a folded table.
	TableEdgeRows int `yaml:"table_edge_rows"`
	// HTMLTopClasses: how many recurring class names the HTML digest lists.
	HTMLTopClasses int `yaml:"html_top_classes"`
	// HTMLMaxProperties: how many CSS custom properties the HTML digest lists.
	HTMLMaxProperties int `yaml:"html_max_properties"`
	// HTML: "article" renders a page's main content as Markdown and adds
	// the digest in a few lines; "digest" gives the structural digest
	// alone (for pages that are not the one under edit).
	HTML string `yaml:"html"`
}

// The values of StructuredOptions.HTML.
const (
	HTMLArticle = "article"
	HTMLDigest  = "digest"
)

// DefaultStructuredOptions returns the shipped defaults.
func DefaultStructuredOptions() StructuredOptions {
	return StructuredOptions{
		MinChars:          1000,
		ArraySamples:      2,
		MaxStringChars:    160,
		MaxDepth:          32,
		MaxObjectKeys:     200,
		Base64MinChars:    200,
		TableMaxRows:      12,
		TableEdgeRows:     3,
		HTMLTopClasses:    15,
		HTMLMaxProperties: 20,
		HTML:              HTMLArticle,
	}
}

// structuredMaxDepth bounds max_depth: the JSON walk recurses once per level.
const structuredMaxDepth = 10000

// Validate reports a knob that is out of range.
func (o StructuredOptions) Validate() error {
	errs := []error{
		mustBePositive("min_chars", o.MinChars),
		mustBePositive("array_samples", o.ArraySamples),
		mustBePositive("max_string_chars", o.MaxStringChars),
		mustBePositive("max_depth", o.MaxDepth),
		mustBePositive("max_object_keys", o.MaxObjectKeys),
		mustBePositive("base64_min_chars", o.Base64MinChars),
		mustBePositive("table_max_rows", o.TableMaxRows),
		mustBePositive("table_edge_rows", o.TableEdgeRows),
		mustBePositive("html_top_classes", o.HTMLTopClasses),
		mustBeNonNegative("html_max_properties", o.HTMLMaxProperties),
	}
	if o.HTML != HTMLArticle && o.HTML != HTMLDigest {
		errs = append(errs, &fieldError{"html", fmt.Sprintf("must be %q or %q, got %q", HTMLArticle, HTMLDigest, o.HTML)})
	}
	if o.MaxDepth > structuredMaxDepth {
		errs = append(errs, &fieldError{"max_depth", fmt.Sprintf("must be <= %d, got %d", structuredMaxDepth, o.MaxDepth)})
	}
	if o.ArraySamples > 0 && o.MaxObjectKeys > 0 && o.MaxObjectKeys < o.ArraySamples+2 {
		errs = append(errs, &fieldError{"max_object_keys", fmt.Sprintf("must be >= array_samples+2 (%d), got %d", o.ArraySamples+2, o.MaxObjectKeys)})
	}
	if o.MaxStringChars > 0 && o.MaxStringChars < 32 {
		// A cut string must have room for the markers this node writes.
		errs = append(errs, &fieldError{"max_string_chars", fmt.Sprintf("must be >= 32, got %d", o.MaxStringChars)})
	}
	if o.Base64MinChars > 0 && o.Base64MinChars < 32 {
		errs = append(errs, &fieldError{"base64_min_chars", fmt.Sprintf("must be >= 32, got %d", o.Base64MinChars)})
	}
	if o.TableMaxRows > 0 && o.TableEdgeRows > 0 && 2*o.TableEdgeRows+1 > o.TableMaxRows {
		errs = append(errs, &fieldError{"table_edge_rows", fmt.Sprintf("must be <= (table_max_rows-1)/2 (%d), got %d", (o.TableMaxRows-1)/2, o.TableEdgeRows)})
	}
	return errors.Join(errs...)
}

type structuredNode struct {
	opt StructuredOptions
}

// NewStructured builds the structured-folding node. It folds long payloads
// by what they mean: a JSON document (or a large JSON value on its own
// lines) keeps its named fields and every kept value byte for byte, folds
// maps keyed by data, long arrays (first, last and outlying items, a count
// and a summarized schema) and long strings by kind; a JSON chat or agent
// trajectory becomes a readable transcript with its final patch whole; a
// Jupyter notebook becomes Markdown with its code cells whole; an
// HTML page becomes its article as Markdown plus a short digest (or the
// digest alone, html: digest); base64 runs and data: URIs become a marker;
// long Markdown, CSV and TSV tables keep their header, first and last
// rows; aider tool output keeps its head, failures and tail. Malformed
// JSON passes through. Running the node again on its output changes
// nothing.
func NewStructured(o StructuredOptions) Node { return structuredNode{opt: o} }

func (structuredNode) Key() Key { return KeyStructured }

func (n structuredNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	if len(in.Text) < n.opt.MinChars || (len(in.Text) < 4*n.opt.MinChars && Chars(in.Text) < n.opt.MinChars) {
		return skip(in, "shorter than min_chars"), nil
	}
	trimmed := strings.TrimSpace(in.Text)
	if in.Kind == KindTranscript && looksJSONText(trimmed) {
		// A chat or agent trajectory: a transcript to read, its final
		// patch kept byte for byte.
		if out, ok := renderChatJSON(trimmed); ok && shorter(out, in.Text) {
			return done(out), nil
		}
	}
	if out, ok := renderNotebook(trimmed); ok && shorter(out, in.Text) {
		return done(out), nil
	}
	if o, decided, err := n.applyJSON(ctx, in, trimmed); err != nil || decided {
		return o, err
	}
	if o, decided, err := n.applyHTML(ctx, in, trimmed); err != nil || decided {
		return o, err
	}
	return n.applyLines(ctx, in)
}

// applyJSON folds a whole JSON document; decided is false when the text
// is not one and the other foldings may try it.
func (n structuredNode) applyJSON(ctx context.Context, in Input, trimmed string) (o Outcome, decided bool, err error) {
	if !looksJSONText(trimmed) {
		if in.Kind == KindJSON {
			return skip(in, "malformed JSON: passed through"), true, nil
		}
		return Outcome{}, false, nil
	}
	out, ok, err := n.foldJSONTape(ctx, trimmed, in.JSON, false, "")
	if err != nil {
		return Outcome{}, true, err
	}
	if ok {
		if shorter(out, in.Text) {
			return done(out), true, nil
		}
		return skip(in, "JSON already compact"), true, nil
	}
	if isJSONLines(trimmed) {
		// Records, one a line: the log nodes know what to do with them.
		return skip(in, "JSON lines: left to the line nodes"), true, nil
	}
	if in.Kind == KindJSON {
		return skip(in, "malformed JSON: passed through"), true, nil
	}
	return Outcome{}, false, nil
}

// applyHTML compacts an HTML page; decided is false when the text is
// not one.
func (n structuredNode) applyHTML(ctx context.Context, in Input, trimmed string) (o Outcome, decided bool, err error) {
	if in.Kind != KindHTML && !htmlpage.Sniff(trimmed) {
		return Outcome{}, false, nil
	}
	out, ok, err := n.htmlPage(ctx, in.Text)
	if err != nil {
		return Outcome{}, true, err
	}
	if ok && shorter(out, in.Text) {
		return done(out), true, nil
	}
	if ok {
		return skip(in, "HTML digest not shorter"), true, nil
	}
	return Outcome{}, false, nil
}

// applyLines folds the blocks within the text: embedded JSON, tables,
// base64 runs and, in a transcript, quoted tool output and older prose.
func (n structuredNode) applyLines(ctx context.Context, in Input) (Outcome, error) {
	orig := in
	if in.Kind == KindTranscript {
		// Tool output quoted in a Markdown chat ("> " lines, as aider
		// writes them) keeps its head, failures and tail.
		in.Text = foldOlderProse(foldToolRuns(ctx, in.Text))
	}
	if in.Kind == KindProse && mostlyEntries(in.Text) {
		in.Text = foldRecordBlocks(in.Text)
	}
	if in.Kind == KindProse {
		if folded, ok := foldSubtitles(in.Text); ok {
			in.Text = folded
		}
	}
	out, err := n.foldLines(ctx, in)
	if err != nil {
		return Outcome{}, err
	}
	if out == orig.Text || !shorter(out, orig.Text) {
		return skip(orig, "nothing to fold"), nil
	}
	return done(out), nil
}

// isJSONLines reports whether s holds two or more lines and each
// non-blank one is bracketed like a JSON object or array (NDJSON).
func isJSONLines(s string) bool {
	n := 0
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if !looksJSONText(line) {
			return false
		}
		n++
	}
	return n >= 2
}

// shorter reports whether a has fewer characters than b, without counting
// a long b when a is clearly short.
func shorter(a, b string) bool {
	if len(a) < len(b)/utf8.UTFMax {
		return true
	}
	return Chars(a) < Chars(b)
}

// looksJSONText reports whether s (trimmed) is bracketed like a JSON
// object or array.
func looksJSONText(s string) bool {
	if len(s) < 2 {
		return false
	}
	first, last := s[0], s[len(s)-1]
	return (first == '{' && last == '}') || (first == '[' && last == ']')
}

// foldJSONText folds one JSON document (jsonfold.Fold); ok is false when
// text is not one valid JSON object or array.
func (n structuredNode) foldJSONText(ctx context.Context, text string, inline bool, prefix string) (string, bool, error) {
	return n.foldJSONTape(ctx, text, nil, inline, prefix)
}

// foldJSONTape is foldJSONText reading text's tokens from tape when
// Detect recorded it from text (jsonfold.FoldTape).
func (n structuredNode) foldJSONTape(ctx context.Context, text string, tape *jsonfold.Tape, inline bool, prefix string) (string, bool, error) {
	return jsonfold.FoldTape(ctx, text, tape, jsonfold.Options{
		ArraySamples:   n.opt.ArraySamples,
		MaxStringChars: n.opt.MaxStringChars,
		MaxDepth:       n.opt.MaxDepth,
		MaxObjectKeys:  n.opt.MaxObjectKeys,
		Base64MinChars: n.opt.Base64MinChars,
		CompactLog:     compactLogValue,
	}, inline, prefix)
}

// htmlPage compacts an HTML page (htmlpage.Compact) and keeps text's
// protected placeholder lines, which stand for fenced blocks the pipeline
// puts back: the digest lists them all, an article those its text lost.
func (n structuredNode) htmlPage(ctx context.Context, text string) (string, bool, error) {
	digestOnly := n.opt.HTML == HTMLDigest
	page, ok, err := htmlpage.Compact(ctx, text, htmlpage.Options{
		DigestOnly:    digestOnly,
		TopClasses:    n.opt.HTMLTopClasses,
		MaxProperties: n.opt.HTMLMaxProperties,
	})
	if !ok || err != nil {
		return page, ok, err
	}
	var out strings.Builder
	out.WriteString(page)
	for _, line := range splitLines(text) {
		if IsProtectedLine(line) && (digestOnly || !strings.Contains(out.String(), line)) {
			out.WriteString("\n" + line)
		}
	}
	return out.String(), true, nil
}
