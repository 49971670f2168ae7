package transcripts

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Turn is one contribution to a discussion.
type Turn struct {
	Speaker string `json:"speaker"`
	Text    string `json:"text"`
}

// Transcript is a discussion in turn order. In JSON it is either an array of
// turns or one string; a string is split into turns at lines that start with
// a speaker label ("Name: ..."), or at blank lines when it has none.
type Transcript []Turn

// UnmarshalJSON accepts a string or an array of turns.
func (t *Transcript) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*t = ParseTranscript(s)
		return nil
	}
	var turns []Turn
	if err := json.Unmarshal(b, &turns); err != nil {
		return fmt.Errorf("transcript must be a string or an array of {speaker, text}: %w", err)
	}
	*t = turns
	return nil
}

// speakerLabel is a line that opens a turn: up to four words, capitalised,
// optionally in bold or brackets, then a colon.
var speakerLabel = regexp.MustCompile(`^\s*(?:\*\*|\[)?([\p{Lu}][\p{L}\p{N}.'-]*(?: [\p{L}\p{N}.'-]+){0,3})(?:\*\*|\])?\s*:(?:\*\*)?\s+(.*)$`)

// ParseTranscript splits a plain-text discussion into turns.
func ParseTranscript(s string) Transcript {
	var turns Transcript
	labelled := false
	for _, line := range strings.Split(s, "\n") {
		if m := speakerLabel.FindStringSubmatch(line); m != nil {
			labelled = true
			turns = append(turns, Turn{Speaker: strings.TrimSpace(m[1]), Text: m[2]})
			continue
		}
		if labelled {
			turns[len(turns)-1].Text += "\n" + line
		}
	}
	if !labelled {
		turns = nil
		for _, para := range regexp.MustCompile(`\n\s*\n`).Split(s, -1) {
			if p := strings.TrimSpace(para); p != "" {
				turns = append(turns, Turn{Text: p})
			}
		}
	}
	for i := range turns {
		turns[i].Text = strings.TrimSpace(turns[i].Text)
	}
	return turns
}

// EvidenceRequest is what the evidence summarizer is asked to summarise.
// Its JSON form is documented in README.md.
type EvidenceRequest struct {
	Decision   string     `json:"decision"`
	Options    []string   `json:"options"`
	Criteria   []string   `json:"criteria"`
	Transcript Transcript `json:"transcript"`
}

// Validate reports what is missing from the request.
func (r EvidenceRequest) Validate() error {
	var errs []error
	if strings.TrimSpace(r.Decision) == "" {
		errs = append(errs, fmt.Errorf("%w: evidence request: decision is empty", ErrInvalid))
	}
	if len(r.Options) < 2 {
		errs = append(errs, fmt.Errorf("%w: evidence request: want at least 2 options, got %d", ErrInvalid, len(r.Options)))
	}
	for i, o := range r.Options {
		if strings.TrimSpace(o) == "" {
			errs = append(errs, fmt.Errorf("%w: evidence request: option %d is empty", ErrInvalid, i+1))
		}
	}
	if len(r.Transcript) == 0 {
		errs = append(errs, fmt.Errorf("%w: evidence request: transcript is empty", ErrInvalid))
	}
	return errors.Join(errs...)
}
