package transcripts

import (
	"errors"
	"fmt"
	"math"

	"github.com/jetcompact/jetcompact/stages"
)

// Config gathers the knobs of the four behaviours, one section each, as a
// config file would hold them (see testdata/config.yaml).
type Config struct {
	Debate   DebateConfig     `yaml:"debate" json:"debate"`
	Evidence EvidenceConfig   `yaml:"evidence" json:"evidence"`
	Meeting  MeetingConfig    `yaml:"meeting" json:"meeting"`
	Session  CompactionConfig `yaml:"session" json:"session"`
}

// DefaultConfig returns every section's defaults. Decode a file over it so
// that missing keys keep their defaults.
func DefaultConfig() Config {
	return Config{
		Debate:   DefaultDebateConfig(),
		Evidence: DefaultEvidenceConfig(),
		Meeting:  DefaultMeetingConfig(),
		Session:  DefaultCompactionConfig(),
	}
}

// Validate checks every section; errors name the field.
func (c Config) Validate() error {
	var errs []error
	for _, err := range []error{c.Debate.Validate(), c.Evidence.Validate(), c.Meeting.Validate(), c.Session.Validate()} {
		if err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("transcripts config: %w", errors.Join(errs...))
	}
	return nil
}

// DebateConfig holds the knobs of CompressDebate. Every default comes from
// design.md, Debate, and is set by DefaultDebateConfig.
type DebateConfig struct {
	// WindowChars is the chairman's context window in characters. Default 100000.
	WindowChars int `yaml:"window_chars" json:"window_chars"`
	// GateRatio is the share of the window the answers may fill before they
	// are compressed. Default 0.6, so the gate is 60,000 characters and 40%
	// of the window stays free for the chairman's own answer.
	GateRatio float64 `yaml:"gate_ratio" json:"gate_ratio"`
	// KeepVerbatim is how many best-seated answers are never compressed. Default 2.
	KeepVerbatim int `yaml:"keep_verbatim" json:"keep_verbatim"`
	// HeadLines and TailLines are kept around the folded middle. Defaults 15 and 10.
	HeadLines int `yaml:"head_lines" json:"head_lines"`
	TailLines int `yaml:"tail_lines" json:"tail_lines"`
	// KeyPoints is how many key lines of the middle go into the marker, each
	// cut to KeyPointChars characters. Defaults 3 and 60.
	KeyPoints     int `yaml:"key_points" json:"key_points"`
	KeyPointChars int `yaml:"key_point_chars" json:"key_point_chars"`
	// Mode and AllowLLM are the first two gates of the LLM path: the entry
	// point must allow a model call and the mode must be llm or hybrid. The
	// third gate is a model for the answer's name. Defaults: algorithmic, false.
	Mode     stages.Mode `yaml:"mode" json:"mode"`
	AllowLLM bool        `yaml:"allow_llm" json:"allow_llm"`
	// LLMMaxTokens bounds the model's summary; 0 derives it from the answer
	// with stages.MaxSummaryTokens. Default 0.
	LLMMaxTokens int `yaml:"llm_max_tokens" json:"llm_max_tokens"`
}

// DefaultDebateConfig returns the numbers of design.md, Debate.
func DefaultDebateConfig() DebateConfig {
	return DebateConfig{
		WindowChars:   100000,
		GateRatio:     0.6,
		KeepVerbatim:  2,
		HeadLines:     15,
		TailLines:     10,
		KeyPoints:     3,
		KeyPointChars: 60,
		Mode:          stages.ModeAlgorithmic,
	}
}

// Validate reports every knob that is out of range.
func (c DebateConfig) Validate() error {
	var errs []error
	bad := func(field, why string, v any) {
		errs = append(errs, fmt.Errorf("%w: debate.%s %s, got %v", ErrInvalid, field, why, v))
	}
	if c.WindowChars <= 0 {
		bad("window_chars", "must be > 0", c.WindowChars)
	}
	if !(c.GateRatio > 0 && c.GateRatio <= 1) {
		bad("gate_ratio", "must be in (0, 1]", c.GateRatio)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"keep_verbatim", c.KeepVerbatim}, {"head_lines", c.HeadLines}, {"tail_lines", c.TailLines}, {"key_points", c.KeyPoints}, {"llm_max_tokens", c.LLMMaxTokens}} {
		if f.v < 0 {
			bad(f.name, "must be >= 0", f.v)
		}
	}
	if c.KeyPointChars <= 0 {
		bad("key_point_chars", "must be > 0", c.KeyPointChars)
	}
	if c.Mode != "" && !c.Mode.Valid() {
		bad("mode", "must be algorithmic, llm or hybrid", c.Mode)
	}
	return errors.Join(errs...)
}

// GateChars is the compression gate in characters: WindowChars × GateRatio,
// rounded to the nearest character (100000 × 0.6 = 60000).
func (c DebateConfig) GateChars() int {
	return int(math.Round(float64(c.WindowChars) * c.GateRatio))
}

// EvidenceConfig holds the summarizer's levers (design.md, Evidence).
type EvidenceConfig struct {
	// StrictInconvenientFacts strengthens the rule that facts against an
	// option weigh the same as facts for it. Use it for hiring, procurement
	// and legal decisions. Default false.
	StrictInconvenientFacts bool `yaml:"strict_inconvenient_facts" json:"strict_inconvenient_facts"`
	// Table asks for, and the validator requires, a closing
	// option | for | against table. Default true; drop it for simple tasks.
	Table bool `yaml:"table" json:"table"`
	// MaxSummaryChars limits the summary; 0 means no limit, which is what
	// critical decisions want: every cut risks losing a needed fact. Default 0.
	MaxSummaryChars int `yaml:"max_summary_chars" json:"max_summary_chars"`
	// Retries is how many more times a rejected or failed summary is asked
	// for before the extractive fallback. Default 2.
	Retries int `yaml:"retries" json:"retries"`
	// MaxTokens bounds the model's answer; 0 derives it from the transcript
	// with stages.MaxSummaryTokens. Default 0.
	MaxTokens int `yaml:"max_tokens" json:"max_tokens"`
}

// DefaultEvidenceConfig returns the shipped levers.
func DefaultEvidenceConfig() EvidenceConfig {
	return EvidenceConfig{Table: true, Retries: 2}
}

// Validate reports every lever that is out of range.
func (c EvidenceConfig) Validate() error {
	var errs []error
	if c.MaxSummaryChars < 0 {
		errs = append(errs, fmt.Errorf("%w: evidence.max_summary_chars must be >= 0, got %d", ErrInvalid, c.MaxSummaryChars))
	}
	if c.Retries < 0 {
		errs = append(errs, fmt.Errorf("%w: evidence.retries must be >= 0, got %d", ErrInvalid, c.Retries))
	}
	if c.MaxTokens < 0 {
		errs = append(errs, fmt.Errorf("%w: evidence.max_tokens must be >= 0, got %d", ErrInvalid, c.MaxTokens))
	}
	return errors.Join(errs...)
}

// MeetingConfig holds the context manager's knobs (design.md, Meetings).
type MeetingConfig struct {
	// BudgetTokens bounds the whiteboard. Default 6000.
	BudgetTokens int `yaml:"budget_tokens" json:"budget_tokens"`
	// RecentEntries stay whole at levels 1 and 2. Default 2; with that many
	// entries or fewer, only the last one does.
	RecentEntries int `yaml:"recent_entries" json:"recent_entries"`
	// TruncateChars is what level 1 keeps of each earlier entry. Default 200.
	TruncateChars int `yaml:"truncate_chars" json:"truncate_chars"`
	// BackgroundTokens: background material above it gets its own summary. Default 3000.
	BackgroundTokens int `yaml:"background_tokens" json:"background_tokens"`
	// ScratchpadSummaryTokens and BackgroundSummaryTokens bound the two
	// summaries. Defaults 800 and 1500.
	ScratchpadSummaryTokens int `yaml:"scratchpad_summary_tokens" json:"scratchpad_summary_tokens"`
	BackgroundSummaryTokens int `yaml:"background_summary_tokens" json:"background_summary_tokens"`
}

// DefaultMeetingConfig returns the numbers of design.md, Meetings.
func DefaultMeetingConfig() MeetingConfig {
	return MeetingConfig{
		BudgetTokens:            6000,
		RecentEntries:           2,
		TruncateChars:           200,
		BackgroundTokens:        3000,
		ScratchpadSummaryTokens: 800, BackgroundSummaryTokens: 1500,
	}
}

// Validate reports every knob that is out of range.
func (c MeetingConfig) Validate() error {
	var errs []error
	for _, f := range []struct {
		name string
		v    int
	}{
		{"budget_tokens", c.BudgetTokens}, {"truncate_chars", c.TruncateChars},
		{"background_tokens", c.BackgroundTokens}, {"scratchpad_summary_tokens", c.ScratchpadSummaryTokens},
		{"background_summary_tokens", c.BackgroundSummaryTokens},
	} {
		if f.v <= 0 {
			errs = append(errs, fmt.Errorf("%w: meeting.%s must be > 0, got %d", ErrInvalid, f.name, f.v))
		}
	}
	if c.RecentEntries < 0 {
		errs = append(errs, fmt.Errorf("%w: meeting.recent_entries must be >= 0, got %d", ErrInvalid, c.RecentEntries))
	}
	return errors.Join(errs...)
}

// CompactionConfig holds the session compactor's knobs (design.md, Sessions and Pipeline).
type CompactionConfig struct {
	// WindowTokens is the model's context window. Default 128000; set it to
	// the model's.
	WindowTokens int `yaml:"window_tokens" json:"window_tokens"`
	// AutoRatio: compaction starts when the history in the compacted view
	// (prose and summary; state is not counted) reaches this share of the
	// window. Default 0.8.
	AutoRatio float64 `yaml:"auto_ratio" json:"auto_ratio"`
	// KeepRecent messages are never summarised. Default 6.
	KeepRecent int `yaml:"keep_recent" json:"keep_recent"`
	// SummaryMaxTokens bounds the summary; 0 derives it from its input with
	// stages.MaxSummaryTokens. Default 0.
	SummaryMaxTokens int `yaml:"summary_max_tokens" json:"summary_max_tokens"`
}

// DefaultCompactionConfig returns the shipped knobs.
func DefaultCompactionConfig() CompactionConfig {
	return CompactionConfig{WindowTokens: 128000, AutoRatio: 0.8, KeepRecent: 6}
}

// Validate reports every knob that is out of range.
func (c CompactionConfig) Validate() error {
	var errs []error
	if c.WindowTokens <= 0 {
		errs = append(errs, fmt.Errorf("%w: session.window_tokens must be > 0, got %d", ErrInvalid, c.WindowTokens))
	}
	if !(c.AutoRatio > 0 && c.AutoRatio <= 1) {
		errs = append(errs, fmt.Errorf("%w: session.auto_ratio must be in (0, 1], got %v", ErrInvalid, c.AutoRatio))
	}
	if c.KeepRecent < 0 {
		errs = append(errs, fmt.Errorf("%w: session.keep_recent must be >= 0, got %d", ErrInvalid, c.KeepRecent))
	}
	if c.SummaryMaxTokens < 0 {
		errs = append(errs, fmt.Errorf("%w: session.summary_max_tokens must be >= 0, got %d", ErrInvalid, c.SummaryMaxTokens))
	}
	return errors.Join(errs...)
}

// ThresholdTokens is AutoRatio × WindowTokens, rounded up.
func (c CompactionConfig) ThresholdTokens() int {
	return int(math.Ceil(c.AutoRatio*float64(c.WindowTokens) - 1e-9))
}
