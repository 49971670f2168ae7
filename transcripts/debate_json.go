package transcripts

import (
	"encoding/json"
	"fmt"
	"io"
)

// DebateMode selects how answers are seated before compression.
type DebateMode string

// The two debate modes.
const (
	// ModeDebate seats answers by total review score, highest first.
	ModeDebate DebateMode = "debate"
	// ModeCompare seats answers by model priority, lowest number first.
	ModeCompare DebateMode = "compare"
)

// Debate is the input and output of CompressDebate. Its JSON form is
// documented in README.md; fields it does not know are kept as they came.
type Debate struct {
	Question string     `json:"question"`
	Mode     DebateMode `json:"mode"`
	Answers  []Answer   `json:"answers"`

	extra map[string]json.RawMessage
}

// Answer is one model's answer in a Debate.
type Answer struct {
	Model        string    `json:"model"`
	Priority     int       `json:"priority"`
	ReviewScores []float64 `json:"review_scores,omitempty"`
	// ResponseRaw is what the model said. Nothing in this package changes it.
	ResponseRaw string `json:"response_raw"`
	// ResponseCompressed is the chairman's view of the answer; empty means
	// "read ResponseRaw". It is output only: CompressDebate recomputes it.
	ResponseCompressed string `json:"response_compressed,omitempty"`

	extra map[string]json.RawMessage
}

var (
	debateKnown = []string{"question", "mode", "answers"}
	answerKnown = []string{"model", "priority", "review_scores", "response_raw", "response_compressed"}
)

// ParseDebate reads one Debate in JSON from r.
func ParseDebate(r io.Reader) (Debate, error) {
	var d Debate
	dec := json.NewDecoder(r)
	if err := dec.Decode(&d); err != nil {
		return Debate{}, fmt.Errorf("%w: debate JSON: %w", ErrInvalid, err)
	}
	return d, nil
}

// UnmarshalJSON decodes the known fields and keeps the others.
func (d *Debate) UnmarshalJSON(b []byte) error {
	type plain Debate
	p, extra, err := decodeKnown[plain](b, debateKnown)
	if err == nil {
		*d = Debate(p)
		d.extra = extra
	}
	return err
}

// MarshalJSON encodes the known fields and the unknown ones kept on input.
func (d Debate) MarshalJSON() ([]byte, error) {
	type plain Debate
	return withUnknownFields(plain(d), d.extra)
}

// UnmarshalJSON decodes the known fields and keeps the others.
func (a *Answer) UnmarshalJSON(b []byte) error {
	type plain Answer
	p, extra, err := decodeKnown[plain](b, answerKnown)
	if err == nil {
		*a = Answer(p)
		a.extra = extra
	}
	return err
}

// MarshalJSON encodes the known fields and the unknown ones kept on input.
func (a Answer) MarshalJSON() ([]byte, error) {
	type plain Answer
	return withUnknownFields(plain(a), a.extra)
}

// decodeKnown decodes b into a new T and returns, too, the fields of b
// that known does not name.
func decodeKnown[T any](b []byte, known []string) (T, map[string]json.RawMessage, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return v, nil, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return v, nil, err
	}
	for _, k := range known {
		delete(all, k)
	}
	if len(all) == 0 {
		return v, nil, nil
	}
	return v, all, nil
}

func withUnknownFields(v any, extra map[string]json.RawMessage) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil || len(extra) == 0 {
		return b, err
	}
	var all map[string]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return nil, err
	}
	for k, v := range extra {
		if _, ok := all[k]; !ok {
			all[k] = v
		}
	}
	return json.Marshal(all)
}

// clone returns a copy of d that shares no slice with it.
func (d Debate) clone() Debate {
	c := d
	c.Answers = make([]Answer, len(d.Answers))
	for i, a := range d.Answers {
		a.ReviewScores = append([]float64(nil), a.ReviewScores...)
		c.Answers[i] = a
	}
	return c
}
