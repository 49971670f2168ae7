package llm

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"sync"
	"time"
)

// Cache stores summaries by key. Implementations must be safe for concurrent
// use. A Get or Put error is logged by the Client and otherwise ignored: the
// cache can only save calls, never fail one.
type Cache interface {
	// Get returns the value stored under key and whether there was one.
	Get(ctx context.Context, key string) (string, bool, error)
	// Put stores value under key.
	Put(ctx context.Context, key, value string) error
}

// CacheKey is the key a summary is cached under: the hex SHA-256 of the
// text, the model, the prompt version and the system prompt. It only uses
// the characters [0-9a-f], so it is a valid JetStream KV key.
func CacheKey(text, model, promptVersion, systemPrompt string) string {
	h := sha256.New()
	for _, part := range []string{"jetcompact/llm/v1", model, promptVersion, systemPrompt, text} {
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], uint64(len(part)))
		h.Write(n[:])
		h.Write([]byte(part))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// MemoryCache is an in-process Cache whose entries expire after a TTL. When
// full it drops expired entries, then the entry closest to expiry.
type MemoryCache struct {
	ttl time.Duration
	max int
	now func() time.Time

	mu sync.Mutex
	m  map[string]memEntry
}

type memEntry struct {
	value   string
	expires time.Time
}

// DefaultMemoryCacheEntries bounds the cache New builds from cache_ttl.
const DefaultMemoryCacheEntries = 10000

// NewMemoryCache returns a cache keeping at most maxEntries values (<= 0
// means DefaultMemoryCacheEntries) for ttl each.
func NewMemoryCache(ttl time.Duration, maxEntries int) *MemoryCache {
	if maxEntries <= 0 {
		maxEntries = DefaultMemoryCacheEntries
	}
	return &MemoryCache{ttl: ttl, max: maxEntries, now: time.Now, m: map[string]memEntry{}}
}

// Get implements Cache.
func (c *MemoryCache) Get(_ context.Context, key string) (string, bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.m[key]
	if !ok {
		return "", false, nil
	}
	if !c.now().Before(e.expires) {
		delete(c.m, key)
		return "", false, nil
	}
	return e.value, true, nil
}

// Put implements Cache.
func (c *MemoryCache) Put(_ context.Context, key, value string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if _, ok := c.m[key]; !ok && len(c.m) >= c.max {
		c.evict(now)
	}
	c.m[key] = memEntry{value: value, expires: now.Add(c.ttl)}
	return nil
}

// Len is the number of entries, expired ones included until evicted.
func (c *MemoryCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}

// evict makes room for one entry. Called with mu held.
func (c *MemoryCache) evict(now time.Time) {
	var oldest string
	var oldestAt time.Time
	for k, e := range c.m {
		if !now.Before(e.expires) {
			delete(c.m, k)
			continue
		}
		if oldest == "" || e.expires.Before(oldestAt) {
			oldest, oldestAt = k, e.expires
		}
	}
	if len(c.m) >= c.max && oldest != "" {
		delete(c.m, oldest)
	}
}
