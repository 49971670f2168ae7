package stages

import "time"

// NodeReport is the accounting of one step of a run: a pipeline node, whose
// Key is its node key, or a step of a transcript job, whose Key is
// JobStepKey's.
type NodeReport struct {
	Key      Key           `json:"key"`
	CharsIn  int           `json:"chars_in"`
	CharsOut int           `json:"chars_out"`
	Duration time.Duration `json:"duration_ns"`
	Skipped  bool          `json:"skipped,omitempty"`
	Reason   string        `json:"reason,omitempty"`
	LLM      *LLMUsage     `json:"llm,omitempty"`
	// Redactions counts secrets replaced by kind, "kind=n ..." (by the
	// redact node, or before the LLM request); never the secrets.
	Redactions string `json:"redactions,omitempty"`
	// Spans is log_dedup's template spans (Outcome.Spans), kept when the
	// node's input had the lines of the segment's input.
	Spans map[int]int `json:"-"`
}

// JobStepKey names a step of a job that is not a pipeline node, as its
// report carries it: JobStepKey("debate", "seat3") is "debate.seat3".
func JobStepKey(job, step string) Key { return Key(job + "." + step) }
