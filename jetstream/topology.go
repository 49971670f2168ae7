package jetstream

import (
	"context"
	"errors"
	"fmt"

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
			AllowDirect:       true,
			Storage:           storage,
			Replicas:          cfg.Replicas,
			Duplicates:        cfg.DuplicateWindow,
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
	return nil
}

// consumerConfig is a durable pull consumer on the work stream. MaxDeliver
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

// errPermanent marks failures that no redelivery can fix.
var errPermanent = errors.New("permanent")

// IsPermanent reports whether err can never succeed on retry.
func IsPermanent(err error) bool {
	return errors.Is(err, errPermanent) || errors.Is(err, errBadEnvelope)
}
