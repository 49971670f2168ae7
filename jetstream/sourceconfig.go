package jetstream

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats.go"
)

// SourceConfig is one entry of the config's sources list: raw events on a
// user's existing stream, grouped by key into windows that become
// documents. jetcompact never creates, changes or purges that stream; it
// adds one durable consumer to it.
type SourceConfig struct {
	// Name names the source in consumer names, output subjects and metrics.
	Name string `yaml:"name"`
	// Stream is the user's existing stream.
	Stream string `yaml:"stream"`
	// Subjects filter the stream, such as "logs.>".
	Subjects []string `yaml:"subjects"`
	// Key groups events: "subject:N" takes the subject's token N (0-based:
	// subject:1 of logs.api is "api"), "header:NAME" a header's value.
	// Events without the token or header share the key "_".
	Key string `yaml:"key"`
	// Window says when a key's window closes and becomes a document.
	Window WindowConfig `yaml:"window"`
	// Kind is the documents' kind; "" detects it.
	Kind stages.Kind `yaml:"kind"`
	// Output is the subject template for results; {source} and {key} are
	// replaced ("" = <prefix>.compacted.{source}.{key}).
	Output string `yaml:"output"`
	// MaxHeldBytes bounds the event bytes held in open windows; above it
	// the oldest windows close early (reason "memory").
	MaxHeldBytes int64 `yaml:"max_held_bytes"`
	// MaxAckPending is the source consumer's bound on unacknowledged
	// events, which open windows hold; windows close early before it binds.
	MaxAckPending int `yaml:"max_ack_pending"`
}

// WindowConfig closes a window at whichever limit comes first.
type WindowConfig struct {
	MaxBytes  int           `yaml:"max_bytes"`  // default 256 KiB
	MaxEvents int           `yaml:"max_events"` // 0 = no count limit
	MaxAge    time.Duration `yaml:"max_age"`    // default 10s: the longest an event waits
}

// Source defaults.
const (
	DefaultWindowBytes   = 256 << 10
	DefaultWindowAge     = 10 * time.Second
	DefaultMaxHeldBytes  = 64 << 20
	DefaultSourcePending = 50000
)

// WithDefaults fills the fields left empty.
func (s SourceConfig) WithDefaults() SourceConfig {
	if s.Window.MaxBytes == 0 {
		s.Window.MaxBytes = DefaultWindowBytes
	}
	if s.Window.MaxAge == 0 {
		s.Window.MaxAge = DefaultWindowAge
	}
	if s.MaxHeldBytes == 0 {
		s.MaxHeldBytes = DefaultMaxHeldBytes
	}
	if s.MaxAckPending == 0 {
		s.MaxAckPending = DefaultSourcePending
	}
	return s
}

var sourceNameOK = docIDRe

// Validate names the first bad field of source i.
func (s SourceConfig) Validate(i int) error {
	bad := func(field, format string, args ...any) error {
		return fmt.Errorf("sources[%d].%s: %s", i, field, fmt.Sprintf(format, args...))
	}
	switch {
	case !sourceNameOK.MatchString(s.Name) || len(s.Name) > 32:
		return bad("name", "%q: want 1-32 of A-Z a-z 0-9 _ -", s.Name)
	case s.Stream == "" || strings.ContainsAny(s.Stream, ".*> \t"):
		return bad("stream", "%q: want the name of an existing stream", s.Stream)
	case len(s.Subjects) == 0:
		return bad("subjects", "give at least one subject filter, such as logs.>")
	case s.Window.MaxBytes < 0 || s.Window.MaxEvents < 0 || s.Window.MaxAge < 0:
		return bad("window", "limits must not be negative")
	case s.Window.MaxBytes > 64<<20:
		return bad("window.max_bytes", "%d: at most 64 MiB", s.Window.MaxBytes)
	case s.Kind != "" && stages.ParseKind(string(s.Kind)) == "":
		return bad("kind", "%q: want log, json, html, transcript or prose", s.Kind)
	case s.MaxHeldBytes < 0 || s.MaxAckPending < 0:
		return bad("max_held_bytes", "must not be negative")
	}
	for _, f := range s.Subjects {
		if f == "" || strings.ContainsAny(f, " \t") {
			return bad("subjects", "%q is not a subject filter", f)
		}
	}
	if _, err := parseSourceKey(s.Key); err != nil {
		return bad("key", "%v", err)
	}
	if s.Output != "" && (strings.ContainsAny(s.Output, "*> \t") || strings.HasPrefix(s.Output, ".") || strings.HasSuffix(s.Output, ".")) {
		return bad("output", "%q: want a subject template such as jc.compacted.{source}.{key}", s.Output)
	}
	return nil
}

// ValidateSources checks every source and that names are unique.
func ValidateSources(srcs []SourceConfig) error {
	seen := map[string]bool{}
	var errs []error
	for i, s := range srcs {
		if err := s.WithDefaults().Validate(i); err != nil {
			errs = append(errs, err)
		}
		if seen[s.Name] {
			errs = append(errs, fmt.Errorf("sources[%d].name: %q is used twice", i, s.Name))
		}
		seen[s.Name] = true
	}
	return errors.Join(errs...)
}

// sourceKey extracts an event's grouping key.
type sourceKey struct {
	token  int    // subject token index, or -1
	header string // header name
}

func parseSourceKey(spec string) (sourceKey, error) {
	switch {
	case spec == "":
		return sourceKey{token: -1}, nil // one window stream for the whole source
	case strings.HasPrefix(spec, "subject:"):
		n, err := strconv.Atoi(strings.TrimPrefix(spec, "subject:"))
		if err != nil || n < 0 || n > 31 {
			return sourceKey{}, fmt.Errorf("%q: want subject:N with N a token index from 0", spec)
		}
		return sourceKey{token: n}, nil
	case strings.HasPrefix(spec, "header:"):
		h := strings.TrimPrefix(spec, "header:")
		if h == "" {
			return sourceKey{}, fmt.Errorf("%q: name the header", spec)
		}
		return sourceKey{token: -1, header: h}, nil
	}
	return sourceKey{token: -1, header: spec}, nil // a bare header name
}

// of returns the key of an event with this subject and these headers.
func (k sourceKey) of(subject string, h nats.Header) string {
	if k.token >= 0 {
		for i, tok := 0, subject; ; i++ {
			cur, rest, more := strings.Cut(tok, ".")
			if i == k.token {
				return cur
			}
			if !more {
				return "_"
			}
			tok = rest
		}
	}
	if k.header != "" {
		if v := h.Get(k.header); v != "" {
			return v
		}
	}
	return "_"
}

// outputSubject is the result subject of a window of key.
func (s SourceConfig) outputSubject(prefix, key string) string {
	return strings.NewReplacer("{source}", s.Name, "{key}", subjectToken(key)).Replace(s.outputTemplate(prefix))
}

func (s SourceConfig) outputTemplate(prefix string) string {
	if s.Output == "" {
		return prefix + ".compacted.{source}.{key}"
	}
	return s.Output
}

// outputPattern is the output template as a subject pattern: a token
// holding {key} may be any token.
func (s SourceConfig) outputPattern(prefix string) string {
	toks := strings.Split(strings.ReplaceAll(s.outputTemplate(prefix), "{source}", s.Name), ".")
	for i, t := range toks {
		if strings.Contains(t, "{key}") {
			toks[i] = "*"
		}
	}
	return strings.Join(toks, ".")
}

// subjectsIntersect reports that some subject matches both patterns.
func subjectsIntersect(a, b string) bool {
	at, bt := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; ; i++ {
		if i == len(at) || i == len(bt) {
			return len(at) == len(bt)
		}
		if at[i] == ">" || bt[i] == ">" {
			return true
		}
		if at[i] != "*" && bt[i] != "*" && at[i] != bt[i] {
			return false
		}
	}
}

// subjectToken makes a key usable as one subject token: characters that
// would split or widen a subject become '_'.
func subjectToken(key string) string {
	if key == "" {
		return "_"
	}
	b := []byte(key)
	for i, c := range b {
		if c <= ' ' || c == '.' || c == '*' || c == '>' || c >= 0x7f {
			b[i] = '_'
		}
	}
	return string(b)
}
