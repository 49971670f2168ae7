package llm

import (
	"os"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

func TestDefaultConfigIsValid(t *testing.T) {
	if err := DefaultConfig().Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestParseTestdataConfig(t *testing.T) {
	data, err := os.ReadFile("testdata/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseConfig(data)
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.BaseURL = "http://localhost:11434/v1"
	want.Model = "llama3.1:8b"
	want.SummaryModel = "qwen2.5:3b"
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestParseConfigKeepsDefaults(t *testing.T) {
	got, err := ParseConfig([]byte("model: gpt-4o-mini\ntimeout: 5s\nbreaker:\n  failures: 2\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultConfig()
	want.Model = "gpt-4o-mini"
	want.Timeout = 5 * time.Second
	want.Breaker.Failures = 2
	if got != want {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

// There is no YAML field for the key, and an attempt to add one fails
// loudly instead of being ignored.
func TestParseConfigRejectsAPIKey(t *testing.T) {
	for _, k := range []string{"api_key", "apikey", "key"} {
		_, err := ParseConfig([]byte(k + ": sk-should-not-be-here\n"))
		if err == nil {
			t.Errorf("%s accepted", k)
		} else if strings.Contains(err.Error(), "sk-should-not-be-here") {
			t.Errorf("error repeats the value: %v", err)
		}
	}
}

func TestDecodeConfig(t *testing.T) {
	var root struct {
		LLM yaml.Node `yaml:"llm"`
	}
	if err := yaml.Unmarshal([]byte("llm:\n  model: m\n  max_concurrency: 8\n"), &root); err != nil {
		t.Fatal(err)
	}
	c, err := DecodeConfig(&root.LLM)
	if err != nil || c.Model != "m" || c.MaxConcurrency != 8 || c.Timeout != 10*time.Second || c.CallTimeout != 30*time.Second {
		t.Errorf("%+v, %v", c, err)
	}
	if c, err := DecodeConfig(nil); err != nil || c != DefaultConfig() {
		t.Errorf("nil section: %+v, %v", c, err)
	}
}

func TestValidateNamesTheField(t *testing.T) {
	for _, tc := range []struct {
		field  string
		mutate func(*Config)
	}{
		{"llm.api_type", func(c *Config) { c.APIType = "bedrock" }},
		{"llm.base_url", func(c *Config) { c.BaseURL = "localhost:8000" }},
		{"llm.timeout", func(c *Config) { c.Timeout = 0 }},
		{"llm.max_retries", func(c *Config) { c.MaxRetries = -1 }},
		{"llm.backoff.base", func(c *Config) { c.Backoff.Base = 0 }},
		{"llm.backoff.max", func(c *Config) { c.Backoff.Max = time.Millisecond }},
		{"llm.breaker.failures", func(c *Config) { c.Breaker.Failures = -1 }},
		{"llm.breaker.open_for", func(c *Config) { c.Breaker.OpenFor = 0 }},
		{"llm.breaker.half_open_probes", func(c *Config) { c.Breaker.HalfOpenProbes = 0 }},
		{"llm.max_concurrency", func(c *Config) { c.MaxConcurrency = 0 }},
		{"llm.cache_ttl", func(c *Config) { c.CacheTTL = -time.Second }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			c := DefaultConfig()
			tc.mutate(&c)
			err := c.Validate()
			if err == nil || !strings.HasPrefix(err.Error(), tc.field+": ") {
				t.Errorf("err = %v, want it to name %s", err, tc.field)
			}
		})
	}
	c := DefaultConfig()
	c.Breaker = BreakerConfig{} // failures 0 disables the breaker
	if err := c.Validate(); err != nil {
		t.Errorf("disabled breaker rejected: %v", err)
	}
	c.Timeout, c.MaxConcurrency = 0, 0
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "llm.timeout") || !strings.Contains(err.Error(), "llm.max_concurrency") {
		t.Errorf("not every bad field reported: %v", err)
	}
}
