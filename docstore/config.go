package docstore

import (
	"errors"
	"fmt"
	"time"
)

// Config is the retention of the originals store (config section
// "retention").
type Config struct {
	// MaxBytes bounds the store; the oldest originals go first. Default 1 GiB.
	MaxBytes int64 `yaml:"max_bytes"`
	// MaxAge is how long an original is kept. Default 7 days.
	MaxAge time.Duration `yaml:"max_age"`
}

// DefaultConfig is the retention code ships.
func DefaultConfig() Config { return Config{MaxBytes: DefaultMaxBytes, MaxAge: DefaultMaxAge} }

// Validate names the field it rejects.
func (c Config) Validate() error {
	var errs []error
	if c.MaxBytes <= 0 {
		errs = append(errs, fmt.Errorf("retention.max_bytes: %d is not positive", c.MaxBytes))
	}
	if c.MaxAge <= 0 {
		errs = append(errs, fmt.Errorf("retention.max_age: %s is not positive", c.MaxAge))
	}
	return errors.Join(errs...)
}
