package llm

import (
	"fmt"
	"regexp"
	"testing"
	"time"
)

func TestCacheKey(t *testing.T) {
	base := CacheKey("text", "model", "v1", "prompt")
	if !regexp.MustCompile(`^[0-9a-f]{64}$`).MatchString(base) {
		t.Fatalf("key %q is not a JetStream-safe hex digest", base)
	}
	if CacheKey("text", "model", "v1", "prompt") != base {
		t.Error("key not deterministic")
	}
	for name, k := range map[string]string{
		"text":    CacheKey("text!", "model", "v1", "prompt"),
		"model":   CacheKey("text", "model2", "v1", "prompt"),
		"version": CacheKey("text", "model", "v2", "prompt"),
		"prompt":  CacheKey("text", "model", "v1", "prompt2"),
		"framing": CacheKey("tex", "tmodel", "v1", "prompt"),
	} {
		if k == base {
			t.Errorf("changing the %s keeps the key", name)
		}
	}
}

func TestMemoryCacheTTL(t *testing.T) {
	clock := newClock()
	c := NewMemoryCache(time.Minute, 0)
	c.now = clock.Now
	c.Put(bg, "k", "v")
	if v, ok, err := c.Get(bg, "k"); !ok || v != "v" || err != nil {
		t.Fatalf("fresh get: %q, %v, %v", v, ok, err)
	}
	clock.Advance(time.Minute)
	if _, ok, _ := c.Get(bg, "k"); ok {
		t.Error("expired entry returned")
	}
	if c.Len() != 0 {
		t.Errorf("expired entry kept: %d", c.Len())
	}
}

func TestMemoryCacheBound(t *testing.T) {
	clock := newClock()
	c := NewMemoryCache(time.Hour, 3)
	c.now = clock.Now
	for i := range 5 {
		c.Put(bg, fmt.Sprint(i), "v")
		clock.Advance(time.Second)
	}
	if c.Len() != 3 {
		t.Fatalf("len = %d, want 3", c.Len())
	}
	for i, want := range []bool{false, false, true, true, true} {
		if _, ok, _ := c.Get(bg, fmt.Sprint(i)); ok != want {
			t.Errorf("entry %d present = %v, want %v (oldest go first)", i, ok, want)
		}
	}
}

func TestClientCacheExpires(t *testing.T) {
	h := newHarness(t, always("s"), func(c *Config) { c.CacheTTL = time.Hour })
	summarize(t, h.client, longText("x"))
	summarize(t, h.client, longText("x"))
	h.clock.Advance(time.Hour)
	summarize(t, h.client, longText("x"))
	if h.fake.count() != 2 {
		t.Errorf("requests = %d, want 2", h.fake.count())
	}
}
