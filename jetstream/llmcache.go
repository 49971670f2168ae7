package jetstream

import (
	"context"
	"errors"
	"fmt"
	"time"

	njs "github.com/nats-io/nats.go/jetstream"
)

// LLMCache is an llm.Cache in a JetStream key-value bucket, so every worker
// of a fleet reuses the summaries any of them paid for. Keys are
// llm.CacheKey digests; entries expire with the bucket's TTL.
type LLMCache struct {
	kv njs.KeyValue
}

// LLMCacheBucket is the KV bucket the workers that call the LLM share for
// summaries.
func (n Names) LLMCacheBucket() string { return n.Prefix + "_llm_cache" }

// NewLLMCache creates the bucket with the fleet's replica count, or updates
// its TTL if it exists, and returns a cache on it. ttl 0 keeps entries until
// the bucket's limits drop them.
func NewLLMCache(ctx context.Context, js njs.JetStream, bucket string, ttl time.Duration, replicas int) (*LLMCache, error) {
	if js == nil {
		return nil, errors.New("jetstream: llm cache: nil JetStream")
	}
	if bucket == "" {
		return nil, errors.New("jetstream: llm cache: empty bucket name")
	}
	if ttl < 0 {
		return nil, fmt.Errorf("jetstream: llm cache: negative ttl %s", ttl)
	}
	kv, err := js.CreateOrUpdateKeyValue(ctx, njs.KeyValueConfig{
		Bucket:      bucket,
		Description: "jetcompact LLM summary cache",
		History:     1,
		TTL:         ttl,
		Replicas:    max(replicas, 1),
	})
	if err != nil {
		return nil, fmt.Errorf("jetstream: llm cache bucket %s: %w", bucket, err)
	}
	return &LLMCache{kv: kv}, nil
}

// Get returns the summary stored under key; a missing or expired key is a
// miss, not an error.
func (c *LLMCache) Get(ctx context.Context, key string) (string, bool, error) {
	e, err := c.kv.Get(ctx, key)
	if errors.Is(err, njs.ErrKeyNotFound) || errors.Is(err, njs.ErrKeyDeleted) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("jetstream: llm cache get: %w", err)
	}
	return string(e.Value()), true, nil
}

// Put stores a summary under key.
func (c *LLMCache) Put(ctx context.Context, key, value string) error {
	if _, err := c.kv.Put(ctx, key, []byte(value)); err != nil {
		return fmt.Errorf("jetstream: llm cache put: %w", err)
	}
	return nil
}
