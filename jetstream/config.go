// Package jetstream binds compaction segments to NATS JetStream: topology,
// envelope, worker loop, publisher client, and the ack, retry and
// dead-letter policy, which live here and only here.
package jetstream

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// Config is the fleet section of the config file.
type Config struct {
	// Prefix namespaces subjects, streams and consumers (tenants, pipelines).
	Prefix string `yaml:"prefix"`
	// Storage is file (default) or memory.
	Storage string `yaml:"storage"`
	// Replicas is the stream replica count: 1, or 3 on a cluster.
	Replicas int `yaml:"replicas"`
	// MaxAge and MaxBytes bound the work stream between segments;
	// MaxBytes -1 = unlimited. When full, a segment's publish fails and is
	// retried (backpressure) instead of dropping work.
	MaxAge   time.Duration `yaml:"max_age"`
	MaxBytes int64         `yaml:"max_bytes"`
	// MaxBacklog bounds the documents stored but not yet taken by the first
	// segment; a client submitting more waits. 0 = unlimited.
	MaxBacklog int `yaml:"max_backlog"`
	// Originals are kept for audit and replay with their own retention.
	OriginalsMaxAge   time.Duration `yaml:"originals_max_age"`
	OriginalsMaxBytes int64         `yaml:"originals_max_bytes"`
	// Results are kept this long (one per document).
	ResultsMaxAge time.Duration `yaml:"results_max_age"`
	// DuplicateWindow: a republished message id inside it is dropped.
	DuplicateWindow time.Duration `yaml:"duplicate_window"`
	// AckWait, MaxDeliver and MaxAckPending shape every consumer.
	AckWait       time.Duration `yaml:"ack_wait"`
	MaxDeliver    int           `yaml:"max_deliver"`
	MaxAckPending int           `yaml:"max_ack_pending"`
	// PullBatch is how many messages one pull asks for.
	PullBatch int `yaml:"pull_batch"`
	// Concurrency is how many messages a worker processes at once per segment.
	Concurrency int `yaml:"concurrency"`
	// InlineMaxBytes: larger bodies move by reference through the object store.
	InlineMaxBytes int `yaml:"inline_max_bytes"`
	// MaxDocumentBytes: larger documents are refused with a clear error.
	MaxDocumentBytes int64 `yaml:"max_document_bytes"`
	// MaxInflightBytes bounds the original bytes of the documents one
	// worker processes at once, over all its segments; a document at least
	// this large runs alone. 0 = unbounded (only concurrency applies).
	MaxInflightBytes int64 `yaml:"max_inflight_bytes"`
	// Segments split the stages into consumers; each is a consecutive run
	// in code order, and together they cover every stage and the guard.
	Segments [][]stages.Key `yaml:"segments"`
	// SegmentNames name segments by their first stage, for the segment
	// label of metrics and span names (default: the first stage itself),
	// e.g. {structured: algorithmic}. Lower-case letters, digits, _ or -.
	SegmentNames map[stages.Key]string `yaml:"segment_names"`
	// Tasks are whole-document jobs (debate, evidence, session) that get a
	// consumer each; the worker must be given their functions (WithTasks).
	Tasks []string `yaml:"tasks"`
}

// DefaultConfig returns the fleet defaults.
func DefaultConfig() Config {
	return Config{
		Prefix:            "jc",
		Storage:           "file",
		Replicas:          1,
		MaxAge:            24 * time.Hour,
		MaxBytes:          -1,
		OriginalsMaxAge:   30 * 24 * time.Hour,
		OriginalsMaxBytes: -1,
		ResultsMaxAge:     7 * 24 * time.Hour,
		DuplicateWindow:   10 * time.Minute,
		AckWait:           60 * time.Second,
		MaxDeliver:        5,
		MaxAckPending:     256,
		PullBatch:         32,
		Concurrency:       4,
		InlineMaxBytes:    768 << 10,
		MaxDocumentBytes:  512 << 20,
		MaxInflightBytes:  64 << 20,
		Segments:          DefaultSegments(),
	}
}

// DefaultSegments: one fused algorithmic segment, the LLM stage, the guard.
func DefaultSegments() [][]stages.Key {
	var algo []stages.Key
	for _, s := range stages.Specs() {
		if s.Key != stages.KeyLLMSummary {
			algo = append(algo, s.Key)
		}
	}
	return [][]stages.Key{algo, {stages.KeyLLMSummary}, {stages.KeyGuard}}
}

// SplitSegments puts every stage and the guard in its own segment.
func SplitSegments() [][]stages.Key {
	var segs [][]stages.Key
	for _, k := range ChainKeys() {
		segs = append(segs, []stages.Key{k})
	}
	return segs
}

// FusedSegments runs everything, the guard included, in one segment.
func FusedSegments() [][]stages.Key { return [][]stages.Key{ChainKeys()} }

// ChainKeys is every stage key in code order followed by the guard.
func ChainKeys() []stages.Key {
	var keys []stages.Key
	for _, s := range stages.Specs() {
		keys = append(keys, s.Key)
	}
	return append(keys, stages.KeyGuard)
}

var taskNameRe = regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)

var prefixRe = regexp.MustCompile(`^[a-z][a-z0-9_-]{0,31}$`)

// Validate checks every field; errors name the field.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("fleet.%s: %s", field, fmt.Sprintf(format, args...)))
	}
	if !prefixRe.MatchString(c.Prefix) {
		bad("prefix", "%q must be lower-case letters, digits, - or _, starting with a letter", c.Prefix)
	}
	if c.Storage != "file" && c.Storage != "memory" {
		bad("storage", "%q must be file or memory", c.Storage)
	}
	if c.Replicas < 1 || c.Replicas > 5 {
		bad("replicas", "%d must be between 1 and 5", c.Replicas)
	}
	if c.AckWait < time.Second {
		bad("ack_wait", "%s must be at least 1s", c.AckWait)
	}
	if c.MaxBacklog < 0 {
		bad("max_backlog", "%d must be >= 0 (0 = unlimited)", c.MaxBacklog)
	}
	if c.MaxDeliver < 1 {
		bad("max_deliver", "%d must be >= 1", c.MaxDeliver)
	}
	if c.MaxAckPending < 1 {
		bad("max_ack_pending", "%d must be >= 1", c.MaxAckPending)
	}
	if c.PullBatch < 1 || c.PullBatch > c.MaxAckPending {
		bad("pull_batch", "%d must be between 1 and max_ack_pending", c.PullBatch)
	}
	if c.Concurrency < 1 {
		bad("concurrency", "%d must be >= 1", c.Concurrency)
	}
	if c.InlineMaxBytes < 1024 {
		bad("inline_max_bytes", "%d must be at least 1024", c.InlineMaxBytes)
	}
	if c.MaxInflightBytes < 0 {
		bad("max_inflight_bytes", "%d must be >= 0 (0 = unbounded)", c.MaxInflightBytes)
	}
	if c.MaxDocumentBytes < int64(c.InlineMaxBytes) {
		bad("max_document_bytes", "must be at least inline_max_bytes")
	}
	if c.DuplicateWindow <= 0 {
		bad("duplicate_window", "must be > 0")
	}
	for _, t := range c.Tasks {
		if !taskNameRe.MatchString(t) {
			bad("tasks", "%q must be lower-case letters, digits or _", t)
		}
	}
	if err := ValidateSegments(c.Segments); err != nil {
		errs = append(errs, fmt.Errorf("fleet.segments: %w", err))
	}
	named := map[string]stages.Key{}
	for first, name := range c.SegmentNames {
		if !slices.ContainsFunc(c.Segments, func(seg []stages.Key) bool { return len(seg) > 0 && seg[0] == first }) {
			bad("segment_names", "%q does not start a segment", first)
		}
		if !segmentNameRe.MatchString(name) {
			bad("segment_names", "%s: %q must be 1-40 lower-case letters, digits, _ or -", first, name)
		}
		if other, dup := named[name]; dup {
			bad("segment_names", "%q names both %s and %s", name, other, first)
		}
		named[name] = first
	}
	return errors.Join(errs...)
}

var segmentNameRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,39}$`)

// SegmentName is seg's short name: its configured name (segment_names),
// else its first stage.
func (c Config) SegmentName(seg []stages.Key) string {
	if name := c.SegmentNames[seg[0]]; name != "" {
		return name
	}
	return string(seg[0])
}

// ValidateSegments checks that segments are consecutive runs in code order
// that together cover every stage and the guard exactly once.
func ValidateSegments(segs [][]stages.Key) error {
	chain := ChainKeys()
	i := 0
	for si, seg := range segs {
		if len(seg) == 0 {
			return fmt.Errorf("segment %d is empty", si+1)
		}
		for _, k := range seg {
			if i >= len(chain) {
				return fmt.Errorf("segment %d: %q comes after the guard", si+1, k)
			}
			if k != chain[i] {
				return fmt.Errorf("segment %d: got %q where %q comes in code order (segments must be consecutive runs of %s)", si+1, k, chain[i], joinKeys(chain))
			}
			i++
		}
	}
	if i != len(chain) {
		return fmt.Errorf("segments stop before %q; they must cover every stage and the guard", chain[i])
	}
	return nil
}

// ParseSegmentFlag turns "a,b,c" into a segment.
func ParseSegmentFlag(s string) []stages.Key {
	var seg []stages.Key
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			seg = append(seg, stages.Key(part))
		}
	}
	return seg
}

// SelectSegments returns the configured segments a worker should run:
// all of them for "" or "all", else those whose stages want lists. want
// must name whole segments (any of them, in any order): segment
// boundaries are fleet-wide, set by fleet.segments.
func SelectSegments(configured [][]stages.Key, want string) ([][]stages.Key, error) {
	if want == "" || want == "all" {
		return configured, nil
	}
	wanted := map[stages.Key]bool{}
	for _, k := range ParseSegmentFlag(want) {
		wanted[k] = true
	}
	var picked [][]stages.Key
	covered := 0
	for _, seg := range configured {
		in := 0
		for _, k := range seg {
			if wanted[k] {
				in++
			}
		}
		if in == len(seg) {
			picked = append(picked, seg)
		}
		covered += in
	}
	if len(picked) > 0 && covered == len(wanted) && covered == countKeys(picked) {
		return picked, nil
	}
	var names []string
	for _, seg := range configured {
		names = append(names, joinKeys(seg))
	}
	return nil, fmt.Errorf("--segment %q is not a configured segment or a set of them (segments are fleet-wide: fleet.segments); configured: %s", want, strings.Join(names, " | "))
}

func countKeys(segs [][]stages.Key) int {
	n := 0
	for _, seg := range segs {
		n += len(seg)
	}
	return n
}

func joinKeys(keys []stages.Key) string {
	s := make([]string, len(keys))
	for i, k := range keys {
		s[i] = string(k)
	}
	return strings.Join(s, ",")
}

// Names derives every subject, stream and consumer name from the prefix.
type Names struct{ Prefix string }

// WorkStream holds the messages between segments (work-queue retention).
func (n Names) WorkStream() string { return n.upper() + "_WORK" }

// OriginalsStream holds each document once, as published.
func (n Names) OriginalsStream() string { return n.upper() + "_ORIGINALS" }

// ResultsStream holds one result per document.
func (n Names) ResultsStream() string { return n.upper() + "_RESULTS" }

// DeadStream holds dead letters with their reasons.
func (n Names) DeadStream() string { return n.upper() + "_DEAD" }

// BlobBucket is the object store for bodies too large to inline.
func (n Names) BlobBucket() string { return n.upper() + "_BLOBS" }

// WorkSubject is the input subject of the segment that starts with first.
func (n Names) WorkSubject(first stages.Key) string { return n.Prefix + ".work." + string(first) }

// Consumer is the durable consumer of the segment that starts with first.
func (n Names) Consumer(first stages.Key) string { return n.Prefix + "_" + string(first) }

// OriginalSubject is where a document's original is stored. It is also
// the document's way in: the first segment consumes it (IntakeConsumer).
func (n Names) OriginalSubject(docID string) string { return n.Prefix + ".original." + docID }

// TaskOriginalSubject is where the original of a task's document is
// stored; the intake does not see it (one more subject token).
func (n Names) TaskOriginalSubject(docID string) string {
	return n.Prefix + ".original.task." + docID
}

// IntakeFilter matches the originals of pipeline documents only.
func (n Names) IntakeFilter() string { return n.Prefix + ".original.*" }

// IntakeConsumer is the first segment's durable consumer on the originals
// stream: new documents enter the fleet through it.
func (n Names) IntakeConsumer() string { return n.Prefix + "_intake" }

// ResultSubject is where a document's result is published.
func (n Names) ResultSubject(docID string) string { return n.Prefix + ".result." + docID }

// DeadSubject is where a segment's or task's dead letters go.
func (n Names) DeadSubject(name string) string { return n.Prefix + ".dead." + name }

// TaskSubject is the input subject of a whole-document task such as a debate.
func (n Names) TaskSubject(task string) string { return n.Prefix + ".work.task." + task }

// TaskConsumer is the durable consumer of a task.
func (n Names) TaskConsumer(task string) string { return n.Prefix + "_task_" + task }

func (n Names) upper() string {
	return strings.ToUpper(strings.ReplaceAll(n.Prefix, "-", "_"))
}
