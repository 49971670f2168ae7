// Package llm implements stages.Summarizer against any OpenAI-compatible
// chat-completions endpoint (OpenAI, Azure OpenAI, vLLM, Ollama, ...) with
// per-request timeouts, retries with backoff, a circuit breaker, a
// concurrency limit and a summary cache.
//
// The API key is never part of Config: it is read by New from the file named
// by api_key_file or from $OPENAI_API_KEY, and it never appears in logs,
// errors or the formatted Client.
package llm

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/jetcompact/jetcompact/internal/strictyaml"
	"io"
	"net/url"
	"time"

	"go.yaml.in/yaml/v3"
)

// Config is the llm section of the worker's configuration. Start from
// DefaultConfig; a zero Config does not validate.
type Config struct {
	// BaseURL is the endpoint, ending in /v1 for OpenAI-compatible servers
	// (for Azure: https://NAME.openai.azure.com). Default: $OPENAI_BASE_URL,
	// else https://api.openai.com/v1.
	BaseURL string `yaml:"base_url"`
	// APIType is openai, azure (api-key header) or azure_ad (bearer token).
	// Default: openai.
	APIType string `yaml:"api_type"`
	// APIVersion is sent as ?api-version=. Default: "" for openai,
	// 2024-10-21 for azure and azure_ad.
	APIVersion string `yaml:"api_version"`
	// Model is the default chat model (for Azure: the deployment name).
	// Default: "" (none): then $OPENAI_MODEL, if set.
	Model string `yaml:"model"`
	// SummaryModel is preferred for summaries; empty falls back to Model.
	// A call to it that fails is tried once more with Model. Default: "".
	SummaryModel string `yaml:"summary_model"`
	// Prompt replaces the built-in system prompt (DefaultSystemPrompt).
	// Default: "" (built-in).
	Prompt string `yaml:"prompt"`
	// PromptVersion is part of the cache key; bump it to invalidate cached
	// summaries, for example when the model behind a name changes.
	// Default: v1.
	PromptVersion string `yaml:"prompt_version"`
	// Timeout bounds each HTTP request (each retry has its own). Default: 10s.
	Timeout time.Duration `yaml:"timeout"`
	// CallTimeout bounds a whole call: every retry, every backoff wait and
	// the fallback to Model, so a hung endpoint costs at most this much per
	// text. Default: 30s.
	CallTimeout time.Duration `yaml:"call_timeout"`
	// MaxRetries is how many times a failed request is retried (429, 5xx,
	// network errors and timeouts only); 0 disables retries. Default: 3.
	MaxRetries int `yaml:"max_retries"`
	// Backoff spaces the retries.
	Backoff BackoffConfig `yaml:"backoff"`
	// Breaker stops calling an endpoint that keeps failing.
	Breaker BreakerConfig `yaml:"breaker"`
	// MaxConcurrency bounds the requests one Client (one worker) has in
	// flight; callers beyond it wait. Default: 4.
	MaxConcurrency int `yaml:"max_concurrency"`
	// CacheTTL is how long a summary is cached. New builds an in-memory cache
	// with it unless WithCache is given; 0 disables the in-memory cache.
	// Default: 24h.
	CacheTTL time.Duration `yaml:"cache_ttl"`
	// APIKeyFile names a file holding the API key (surrounding whitespace is
	// trimmed). It wins over $OPENAI_API_KEY. There is deliberately no field
	// for the key itself. Default: "" (use $OPENAI_API_KEY; no key is fine
	// for local servers).
	APIKeyFile string `yaml:"api_key_file"`
	// DisableRedaction sends texts to the model as they are. By default
	// every text is redacted first (package redact): secrets in logs are
	// the user's, not a third party's. Default: false.
	DisableRedaction bool `yaml:"disable_redaction"`
	// AllowInsecure permits a plain-http base_url to a host other than
	// loopback (see transport.go). Default: false.
	AllowInsecure bool `yaml:"allow_insecure"`
}

// BackoffConfig is exponential backoff with jitter: the n-th retry waits
// between half and all of min(Base*2^n, Max). A Retry-After from the server
// replaces the computed wait; one longer than Max is not waited for and the
// call fails at once.
type BackoffConfig struct {
	// Base is the first retry's wait. Default: 500ms.
	Base time.Duration `yaml:"base"`
	// Max caps any wait, Retry-After included. Default: 20s.
	Max time.Duration `yaml:"max"`
}

// BreakerConfig is the circuit breaker: after Failures consecutive failed
// calls (each after its retries) it opens and every call fails at once with
// stages.ErrCircuitOpen for OpenFor; then HalfOpenProbes calls may try, and
// the first result closes or reopens it.
type BreakerConfig struct {
	// Failures opens the breaker; 0 disables it. Default: 5.
	Failures int `yaml:"failures"`
	// OpenFor is how long it stays open. Default: 30s.
	OpenFor time.Duration `yaml:"open_for"`
	// HalfOpenProbes is how many calls may try at once while half-open.
	// Default: 1.
	HalfOpenProbes int `yaml:"half_open_probes"`
}

// The values of Config.APIType.
const (
	APITypeOpenAI  = "openai"
	APITypeAzure   = "azure"
	APITypeAzureAD = "azure_ad"
)

// Environment variables New reads.
const (
	EnvAPIKey  = "OPENAI_API_KEY"
	EnvBaseURL = "OPENAI_BASE_URL"
	// EnvModel names the default chat model when the config names none, as
	// OpenAI-compatible tools do.
	EnvModel = "OPENAI_MODEL"
)

// Defaults for the endpoint fields left empty.
const (
	// DefaultBaseURL is used when neither base_url nor $OPENAI_BASE_URL is set.
	DefaultBaseURL = "https://api.openai.com/v1"
	// DefaultAzureAPIVersion is used for api_type azure and azure_ad when
	// api_version is empty.
	DefaultAzureAPIVersion = "2024-10-21"
)

// DefaultConfig returns the shipped defaults. No model is set: gate 4 stays
// closed until one is configured.
func DefaultConfig() Config {
	return Config{
		APIType:        APITypeOpenAI,
		PromptVersion:  "v1",
		Timeout:        10 * time.Second,
		CallTimeout:    30 * time.Second,
		MaxRetries:     3,
		Backoff:        BackoffConfig{Base: 500 * time.Millisecond, Max: 20 * time.Second},
		Breaker:        BreakerConfig{Failures: 5, OpenFor: 30 * time.Second, HalfOpenProbes: 1},
		MaxConcurrency: 4,
		CacheTTL:       24 * time.Hour,
	}
}

// Validate reports every field that is out of range, each named by its
// YAML key.
func (c Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, fmt.Errorf("llm.%s: "+format, append([]any{field}, args...)...))
	}
	switch c.APIType {
	case APITypeOpenAI, APITypeAzure, APITypeAzureAD:
	default:
		bad("api_type", "%s: unknown api type %q (want openai, azure or azure_ad)", c.APIType)
	}
	if c.BaseURL != "" {
		if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			bad("base_url", "%s: want an http(s) URL, got %q", c.BaseURL)
		}
	}
	if c.Timeout <= 0 {
		bad("timeout", "%s: must be > 0, got %s", c.Timeout)
	}
	if c.CallTimeout < c.Timeout {
		bad("call_timeout", "must be >= timeout (%s), got %s", c.Timeout, c.CallTimeout)
	}
	if c.MaxRetries < 0 || c.MaxRetries > 20 {
		bad("max_retries", "%s: must be in [0, 20], got %d", c.MaxRetries)
	}
	if c.Backoff.Base <= 0 {
		bad("backoff.base", "%s: must be > 0, got %s", c.Backoff.Base)
	}
	if c.Backoff.Max < c.Backoff.Base {
		bad("backoff.max", "%s: must be >= backoff.base (%s), got %s", c.Backoff.Base, c.Backoff.Max)
	}
	if c.Breaker.Failures < 0 {
		bad("breaker.failures", "%s: must be >= 0, got %d", c.Breaker.Failures)
	}
	if c.Breaker.Failures > 0 && c.Breaker.OpenFor <= 0 {
		bad("breaker.open_for", "%s: must be > 0, got %s", c.Breaker.OpenFor)
	}
	if c.Breaker.Failures > 0 && c.Breaker.HalfOpenProbes <= 0 {
		bad("breaker.half_open_probes", "%s: must be > 0, got %d", c.Breaker.HalfOpenProbes)
	}
	if c.MaxConcurrency <= 0 {
		bad("max_concurrency", "%s: must be > 0, got %d", c.MaxConcurrency)
	}
	if c.CacheTTL < 0 {
		bad("cache_ttl", "%s: must be >= 0, got %s", c.CacheTTL)
	}
	return errors.Join(errs...)
}

// HasModel reports whether a model is configured (gate 4 can open).
func (c Config) HasModel() bool { return c.summaryModel() != "" }

// summaryModel is summary_model, else model, else "".
func (c Config) summaryModel() string {
	if c.SummaryModel != "" {
		return c.SummaryModel
	}
	return c.Model
}

// ParseConfig decodes an llm section over DefaultConfig, rejecting unknown
// keys (an api_key key among them), and validates the result.
func ParseConfig(data []byte) (Config, error) {
	c := DefaultConfig()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return Config{}, fmt.Errorf("llm: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}

// DecodeConfig is ParseConfig for a section already parsed into a node.
func DecodeConfig(n *yaml.Node) (Config, error) {
	if n == nil || n.Kind == 0 {
		c := DefaultConfig()
		return c, c.Validate()
	}
	c := DefaultConfig()
	if err := strictyaml.Decode(n, &c, "llm"); err != nil {
		return Config{}, err
	}
	if err := c.Validate(); err != nil {
		return Config{}, err
	}
	return c, nil
}
