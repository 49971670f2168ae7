package telemetry

import (
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"

	"go.opentelemetry.io/otel"
)

// LogFlags are the logging flags both commands take.
type LogFlags struct {
	Format string // text or json
	Level  string // debug, info, warn or error
}

// RegisterFlags adds --log-format and --log-level to fs.
func (l *LogFlags) RegisterFlags(fs interface {
	StringVar(p *string, name, value, usage string)
}) {
	fs.StringVar(&l.Format, "log-format", "text", "log format on stderr: text or json (slog)")
	fs.StringVar(&l.Level, "log-level", "info", "least severe level logged: debug, info, warn or error")
}

// NewLogger returns the process's logger for the flags, writing to w, and
// makes it the slog default and the sink of OpenTelemetry's own errors
// (exporter failures), so every line has one format.
func (l LogFlags) NewLogger(w io.Writer) (*slog.Logger, error) {
	var level slog.Level
	if err := level.UnmarshalText([]byte(l.Level)); err != nil {
		return nil, fmt.Errorf("--log-level: %q is not debug, info, warn or error", l.Level)
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch strings.ToLower(l.Format) {
	case "", "text":
		h = slog.NewTextHandler(w, opts)
	case "json":
		h = slog.NewJSONHandler(w, opts)
	default:
		return nil, fmt.Errorf("--log-format: %q is neither text nor json", l.Format)
	}
	log := slog.New(h)
	slog.SetDefault(log)
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("telemetry export failed", "error", err.Error())
	}))
	return log, nil
}

// ScopedWriter passes writes to w until Close, then drops them. A command
// logs through one for the length of its run: callbacks that fire after
// it returns (a connection closing in the background) cannot write into a
// writer the caller has moved on from.
type ScopedWriter struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

// NewScopedWriter wraps w.
func NewScopedWriter(w io.Writer) *ScopedWriter { return &ScopedWriter{w: w} }

func (s *ScopedWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return len(p), nil
	}
	return s.w.Write(p)
}

// Close stops the writes.
func (s *ScopedWriter) Close() error {
	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()
	return nil
}
