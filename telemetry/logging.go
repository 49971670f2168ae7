package telemetry

import (
	"fmt"
	"io"
	"log/slog"
	"strings"

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
