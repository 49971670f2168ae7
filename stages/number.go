package stages

import (
	"context"
	"strings"
)

// NumberNormalizeOptions are the number-normalization node's knobs.
type NumberNormalizeOptions struct {
	// MinChars: numbers shorter than this stay as they are ("<N>" is 3 runes).
	MinChars int `yaml:"min_chars"`
	// Kinds the node applies to. Prose and transcripts keep exact values by
	// default, since a changed number there changes a fact.
	Kinds []Kind `yaml:"kinds"`
	// Placeholder replaces each number.
	Placeholder string `yaml:"placeholder"`
}

// DefaultNumberNormalizeOptions returns the shipped defaults.
func DefaultNumberNormalizeOptions() NumberNormalizeOptions {
	return NumberNormalizeOptions{MinChars: 4, Kinds: []Kind{KindLog}, Placeholder: "<N>"}
}

// Validate reports a knob that is out of range.
func (o NumberNormalizeOptions) Validate() error {
	if err := mustBePositive("min_chars", o.MinChars); err != nil {
		return err
	}
	if o.Placeholder == "" || strings.ContainsAny(o.Placeholder, "0123456789\n") {
		return &fieldError{"placeholder", "must be non-empty, without digits or newlines"}
	}
	for _, k := range o.Kinds {
		if ParseKind(string(k)) == "" {
			return &fieldError{"kinds", "unknown kind " + string(k)}
		}
	}
	return nil
}

type numberNode struct{ opt NumberNormalizeOptions }

// NewNumberNormalize builds the node that replaces numbers (digit runs
// joined by . , : and hex or UUID ids) with a placeholder.
func NewNumberNormalize(o NumberNormalizeOptions) Node { return numberNode{o} }

func (numberNode) Key() Key { return KeyNumberNormalize }

func (n numberNode) Apply(ctx context.Context, in Input) (Outcome, error) {
	applies := false
	for _, k := range n.opt.Kinds {
		if k == in.Kind {
			applies = true
		}
	}
	if !applies {
		return skip(in, "kind "+string(in.Kind)+" keeps exact numbers"), nil
	}
	text := in.Text
	var b strings.Builder
	b.Grow(len(text))
	last := 0
	changed := false
	cc := canceled{ctx: ctx}
	for i := 0; i < len(text); {
		if err := cc.check(); err != nil {
			return Outcome{}, err
		}
		c := text[i]
		if !isHexDigit(c) || (i > 0 && isWordByte(text[i-1]) && !isDigit(c)) {
			i++
			continue
		}
		// Hex word boundary: a token of hex digits and dashes.
		if i == 0 || !isWordByte(text[i-1]) {
			if end := hexTokenEnd(text, i); end > 0 {
				b.WriteString(text[last:i])
				b.WriteString(n.opt.Placeholder)
				last, i, changed = end, end, true
				continue
			}
		}
		if !isDigit(c) {
			i++
			continue
		}
		end := numberEnd(text, i)
		if end-i >= n.opt.MinChars {
			b.WriteString(text[last:i])
			b.WriteString(n.opt.Placeholder)
			last, changed = end, true
		}
		i = end
	}
	if !changed {
		return done(text), nil
	}
	b.WriteString(text[last:])
	return done(b.String()), nil
}

// numberEnd returns the end of the digit run at i, joined by single . , : separators.
func numberEnd(s string, i int) int {
	for {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		if i+1 < len(s) && (s[i] == '.' || s[i] == ',' || s[i] == ':') && isDigit(s[i+1]) {
			i++
			continue
		}
		return i
	}
}

// hexTokenEnd returns the end of a hex id (8+ hex chars with a digit and a
// letter, optionally dashed like a UUID) starting at i, or 0.
func hexTokenEnd(s string, i int) int {
	j := i
	digits, letters, run := 0, 0, 0
	for j < len(s) {
		c := s[j]
		switch {
		case isDigit(c):
			digits++
			run++
		case (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'):
			letters++
			run++
		case c == '-' && run >= 4 && j+1 < len(s) && isHexDigit(s[j+1]):
			run = 0
		default:
			goto end
		}
		j++
	}
end:
	if j < len(s) && isWordByte(s[j]) {
		return 0
	}
	if digits+letters < 8 || digits == 0 || letters == 0 {
		return 0
	}
	return j
}

func isDigit(c byte) bool    { return c >= '0' && c <= '9' }
func isHexDigit(c byte) bool { return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F') }
func isWordByte(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'
}
