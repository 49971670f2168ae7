package transcripts

import (
	"errors"
	"fmt"
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
