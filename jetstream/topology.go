package jetstream

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/failure"
	njs "github.com/nats-io/nats.go/jetstream"
)

// EnsureTopology creates or updates the streams, object stores and durable
// consumers of cfg. It is idempotent: running it again against an existing
// topology changes nothing, and a changed config updates what JetStream
// allows to be updated.
func EnsureTopology(ctx context.Context, js njs.JetStream, cfg Config) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	n := Names{cfg.Prefix}
	storage := njs.FileStorage
	if cfg.Storage == "memory" {
		storage = njs.MemoryStorage
	}
	streams := []njs.StreamConfig{
		{
			Name:        n.WorkStream(),
			Description: "jetcompact: documents between stage segments",
			Subjects:    []string{n.Prefix + ".work.>"},
			Retention:   njs.WorkQueuePolicy,
			Discard:     njs.DiscardNew,
			MaxAge:      cfg.MaxAge,
			MaxBytes:    cfg.MaxBytes,
			Storage:     storage,
			Replicas:    cfg.Replicas,
			Duplicates:  cfg.DuplicateWindow,
		},
		{
			Name:              n.OriginalsStream(),
			Description:       "jetcompact: each document once, as published (audit and replay)",
			Subjects:          []string{n.Prefix + ".original.>"},
			Retention:         njs.LimitsPolicy,
			Discard:           njs.DiscardNew,
			MaxAge:            cfg.OriginalsMaxAge,
			MaxBytes:          cfg.OriginalsMaxBytes,
			MaxMsgsPerSubject: 1,
			// Append-once at the server: a second original on a subject
			// is refused, not swapped for the first.
			DiscardNewPerSubject: true,
			AllowDirect:          true,
			Storage:              storage,
			Replicas:             cfg.Replicas,
			Duplicates:           cfg.DuplicateWindow,
		},
		{
			Name:              n.ResultsStream(),
			Description:       "jetcompact: one result per document",
			Subjects:          []string{n.Prefix + ".result.>"},
			Retention:         njs.LimitsPolicy,
			MaxAge:            cfg.ResultsMaxAge,
			MaxMsgsPerSubject: 1,
			AllowDirect:       true,
			Storage:           storage,
			Replicas:          cfg.Replicas,
			Duplicates:        cfg.DuplicateWindow,
		},
		{
			Name:        n.DeadStream(),
			Description: "jetcompact: dead letters with their reasons",
			Subjects:    []string{n.Prefix + ".dead.>"},
			Retention:   njs.LimitsPolicy,
			MaxAge:      cfg.OriginalsMaxAge,
			Storage:     storage,
			Replicas:    cfg.Replicas,
			Duplicates:  cfg.DuplicateWindow,
		},
	}
	for _, sc := range streams {
		if err := checkOwner(ctx, js, sc.Name, n.Prefix); err != nil {
			return err
		}
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("stream %s: %w", sc.Name, err)
		}
	}
	for _, oc := range []njs.ObjectStoreConfig{
		{Bucket: n.BlobBucket(), Description: "jetcompact: large bodies between segments", TTL: cfg.MaxAge, Storage: njs.StorageType(storage), Replicas: cfg.Replicas},
		{Bucket: n.OriginalBlobBucket(), Description: "jetcompact: large originals", TTL: cfg.OriginalsMaxAge, Storage: njs.StorageType(storage), Replicas: cfg.Replicas},
	} {
		if _, err := js.CreateOrUpdateObjectStore(ctx, oc); err != nil {
			return fmt.Errorf("object store %s: %w", oc.Bucket, err)
		}
	}
	var consumers []njs.ConsumerConfig
	for _, seg := range cfg.Segments {
		consumers = append(consumers, consumerConfig(cfg, n.Consumer(seg[0]), n.WorkSubject(seg[0]), "jetcompact segment "+joinKeys(seg)))
	}
	for _, task := range cfg.Tasks {
		consumers = append(consumers, consumerConfig(cfg, n.TaskConsumer(task), n.TaskSubject(task), "jetcompact task "+task))
	}
	for _, cc := range consumers {
		if _, err := js.CreateOrUpdateConsumer(ctx, n.WorkStream(), cc); err != nil {
			return fmt.Errorf("consumer %s: %w", cc.Durable, err)
		}
	}
	if err := ensureIntake(ctx, js, cfg, n); err != nil {
		return err
	}
	return checkStaleConsumers(ctx, js, n, consumers)
}

// checkStaleConsumers refuses a config while a work-stream consumer it
// no longer names (an earlier fleet.segments, a dropped task) holds
// messages: no worker of this config would ever take them. Empty ones are
// left in place, since a worker of the old config may still feed them
// during a rollout; they would then hold work and be reported here.
func checkStaleConsumers(ctx context.Context, js njs.JetStream, n Names, keep []njs.ConsumerConfig) error {
	wanted := map[string]bool{}
	for _, cc := range keep {
		wanted[cc.Durable] = true
	}
	st, err := js.Stream(ctx, n.WorkStream())
	if err != nil {
		return fmt.Errorf("stream %s: %w", n.WorkStream(), err)
	}
	var holding []string
	list := st.ListConsumers(ctx)
	for info := range list.Info() {
		if held := info.NumPending + uint64(info.NumAckPending); !wanted[info.Name] && held > 0 {
			holding = append(holding, fmt.Sprintf("%s (%d messages)", info.Name, held))
		}
	}
	if err := list.Err(); err != nil {
		return fmt.Errorf("list consumers of %s: %w", n.WorkStream(), err)
	}
	if len(holding) > 0 {
		return fmt.Errorf("consumers of an earlier fleet.segments or task list still hold work: %s; run workers of that config until they drain, then start this one",
			strings.Join(holding, ", "))
	}
	return nil
}

// checkOwner refuses a stream that exists under another prefix: "jc-a"
// and "jc_a" name the same streams, and an update would take the other
// pipeline's subjects away.
func checkOwner(ctx context.Context, js njs.JetStream, stream, prefix string) error {
	st, err := js.Stream(ctx, stream)
	if errors.Is(err, njs.ErrStreamNotFound) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("stream %s: %w", stream, err)
	}
	for _, subject := range st.CachedInfo().Config.Subjects {
		if !strings.HasPrefix(subject, prefix+".") {
			return fmt.Errorf("stream %s belongs to another prefix (it holds %s, not %s.>): prefixes that differ only in - and _ share stream names; pick another",
				stream, subject, prefix)
		}
	}
	return nil
}

// ensureIntake creates or updates the first segment's consumer on the
// originals stream. A new one starts with the first original, unless the
// stream already holds originals (a topology from before the intake): it
// then starts one duplicate window back, so nothing published meanwhile is
// skipped and nothing older is run again. The start of an existing one is
// kept, since JetStream cannot change it.
func ensureIntake(ctx context.Context, js njs.JetStream, cfg Config, n Names) error {
	cc := consumerConfig(cfg, n.IntakeConsumer(), n.IntakeFilter(), "jetcompact intake: new documents for segment "+joinKeys(cfg.Segments[0]))
	switch cons, err := js.Consumer(ctx, n.OriginalsStream(), cc.Durable); {
	case err == nil:
		old := cons.CachedInfo().Config
		cc.DeliverPolicy, cc.OptStartTime, cc.OptStartSeq = old.DeliverPolicy, old.OptStartTime, old.OptStartSeq
	case errors.Is(err, njs.ErrConsumerNotFound):
		st, err := js.Stream(ctx, n.OriginalsStream())
		if err != nil {
			return fmt.Errorf("stream %s: %w", n.OriginalsStream(), err)
		}
		if st.CachedInfo().State.Msgs > 0 {
			start := time.Now().Add(-cfg.DuplicateWindow)
			cc.DeliverPolicy, cc.OptStartTime = njs.DeliverByStartTimePolicy, &start
		}
	default:
		return fmt.Errorf("consumer %s: %w", cc.Durable, err)
	}
	if _, err := js.CreateOrUpdateConsumer(ctx, n.OriginalsStream(), cc); err != nil {
		return fmt.Errorf("consumer %s: %w", cc.Durable, err)
	}
	return nil
}

// consumerConfig is a durable pull consumer. MaxDeliver
// is left unlimited on the server: the worker dead-letters a message itself
// once it has been delivered cfg.MaxDeliver times, even if it crashed the
// worker every time.
func consumerConfig(cfg Config, durable, subject, description string) njs.ConsumerConfig {
	return njs.ConsumerConfig{
		Durable:       durable,
		Description:   description,
		FilterSubject: subject,
		AckPolicy:     njs.AckExplicitPolicy,
		AckWait:       cfg.AckWait,
		MaxDeliver:    -1,
		MaxAckPending: cfg.MaxAckPending,
		DeliverPolicy: njs.DeliverAllPolicy,
		Replicas:      0,
	}
}

// OriginalBlobBucket holds originals too large to inline.
func (n Names) OriginalBlobBucket() string { return n.upper() + "_ORIGINAL_BLOBS" }

// errPermanent marks failures that no redelivery can fix: the project's
// one vocabulary for it, failure.ErrPermanent.
var errPermanent = failure.ErrPermanent

// errForged marks a message that names what is not its own, or that
// does not match what the fleet stored: permanent, and it gets no result.
var errForged = fmt.Errorf("%w: refused", errPermanent)

// IsPermanent reports whether err can never succeed on retry.
func IsPermanent(err error) bool { return failure.IsPermanent(err) }
