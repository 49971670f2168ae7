package stages

import (
	"context"
	"strings"
)

// WhitespaceOptions are the whitespace node's knobs.
type WhitespaceOptions struct {
	// MaxBlankLines is the longest run of blank lines kept.
	MaxBlankLines int `yaml:"max_blank_lines"`
	// CollapseInnerSpaces folds runs of spaces and tabs inside a line to one space.
	CollapseInnerSpaces bool `yaml:"collapse_inner_spaces"`
	// Dedent removes indentation common to every non-blank line.
	Dedent bool `yaml:"dedent"`
}

// DefaultWhitespaceOptions returns the shipped defaults.
func DefaultWhitespaceOptions() WhitespaceOptions {
	return WhitespaceOptions{MaxBlankLines: 1, CollapseInnerSpaces: true, Dedent: true}
}

// Validate reports a knob that is out of range.
func (o WhitespaceOptions) Validate() error {
	return mustBeNonNegative("max_blank_lines", o.MaxBlankLines)
}

type whitespaceNode struct{ opt WhitespaceOptions }

// NewWhitespace builds the whitespace node: it turns CRLF and lone CR into
// LF, trims trailing spaces, limits runs of blank lines, removes common
// indentation and folds runs of inner spaces.
func NewWhitespace(o WhitespaceOptions) Node { return whitespaceNode{o} }

func (whitespaceNode) Key() Key { return KeyWhitespace }

func (n whitespaceNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	if err := ctx.Err(); err != nil {
		return Outcome{}, err
	}
	text := in.Text
	if strings.IndexByte(text, '\r') >= 0 {
		text = strings.ReplaceAll(text, "\r\n", "\n")
		text = strings.ReplaceAll(text, "\r", "\n")
	}
	lines := splitLines(text)
	indent := -1
	if n.opt.Dedent && in.Kind != KindJSON {
		indent = commonIndent(lines)
	}
	out := lines[:0]
	blanks := 0
	cc := canceled{ctx: ctx}
	for _, line := range lines {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		line = strings.TrimRight(line, " \t\f\v")
		if line == "" {
			blanks++
			if blanks > n.opt.MaxBlankLines {
				continue
			}
			out = append(out, line)
			continue
		}
		blanks = 0
		if indent > 0 {
			line = line[indent:]
		}
		if n.opt.CollapseInnerSpaces && in.Kind != KindJSON {
			line = collapseInnerSpaces(line)
		}
		out = append(out, line)
	}
	// Leading and trailing blank lines carry nothing.
	for len(out) > 0 && out[0] == "" {
		out = out[1:]
	}
	for len(out) > 1 && out[len(out)-1] == "" && out[len(out)-2] == "" {
		out = out[:len(out)-1]
	}
	return done(joinLines(out)), nil
}

// commonIndent is the count of leading space bytes shared by all non-blank lines.
func commonIndent(lines []string) int {
	common := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := 0
		for n < len(l) && l[n] == ' ' {
			n++
		}
		if common < 0 || n < common {
			common = n
		}
		if common == 0 {
			return 0
		}
	}
	if common < 0 {
		return 0
	}
	return common
}

// collapseInnerSpaces keeps leading indentation and folds later runs of
// spaces and tabs to one space.
func collapseInnerSpaces(line string) string {
	lead := 0
	for lead < len(line) && (line[lead] == ' ' || line[lead] == '\t') {
		lead++
	}
	body := line[lead:]
	if !strings.Contains(body, "  ") && !strings.Contains(body, "\t") {
		return line
	}
	var b strings.Builder
	b.Grow(len(line))
	b.WriteString(line[:lead])
	space := false
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == ' ' || c == '\t' {
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		}
		space = false
		b.WriteByte(c)
	}
	return b.String()
}
