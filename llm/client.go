package llm

//lint:file-ignore SA1019 chat models get max_tokens, which many OpenAI-compatible servers only read; call moves it for reasoning models

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"

	secrets "github.com/jetcompact/jetcompact/redact"
	"github.com/jetcompact/jetcompact/stages"
)

// Client is a stages.Summarizer backed by an OpenAI-compatible
// chat-completions endpoint. It is safe for concurrent use; one Client per
// worker process shares its concurrency limit and breaker across all the
// documents that worker handles.
type Client struct {
	cfg   Config
	model string // summary_model, else model, else ""
	// fallback is model when a summary_model is tried first, else "".
	fallback string
	system   string // the system prompt in use
	api      *openai.Client
	secret   *regexp.Regexp // matches the key as a whole token; nil when unset or short
	keySet   bool
	cache    Cache
	log      *slog.Logger
	now      func() time.Time
	sleep    func(context.Context, time.Duration) error
	sem      chan struct{}
	br       *breaker

	noModel sync.Once
	skipped sync.Map // gate number -> logged
}

var _ stages.Summarizer = (*Client)(nil)

// Option changes how New builds a Client.
type Option func(*options) error

type options struct {
	httpClient *http.Client
	cache      Cache
	cacheSet   bool
	now        func() time.Time
	sleep      func(context.Context, time.Duration) error
	log        *slog.Logger
	lookupEnv  func(string) (string, bool)
}

// WithHTTPClient sets the HTTP client (proxies, TLS, transport tuning).
// Its own Timeout, if any, applies on top of Config.Timeout.
func WithHTTPClient(hc *http.Client) Option {
	return func(o *options) error {
		if hc == nil {
			return errors.New("llm: nil http client")
		}
		o.httpClient = hc
		return nil
	}
}

// WithCache sets the summary cache, replacing the in-memory one built from
// cache_ttl. WithCache(nil) turns caching off.
func WithCache(c Cache) Option {
	return func(o *options) error {
		o.cache, o.cacheSet = c, true
		return nil
	}
}

// WithClock sets the clock used by the breaker, Retry-After dates and the
// latency figure. Tests use it to move time forward.
func WithClock(now func() time.Time) Option {
	return func(o *options) error {
		if now == nil {
			return errors.New("llm: nil clock")
		}
		o.now = now
		return nil
	}
}

// WithSleep sets how the client waits between retries. It must return
// ctx's error if ctx ends first.
func WithSleep(sleep func(ctx context.Context, d time.Duration) error) Option {
	return func(o *options) error {
		if sleep == nil {
			return errors.New("llm: nil sleep")
		}
		o.sleep = sleep
		return nil
	}
}

// WithLogger sets the logger (default slog.Default()). The client logs the
// missing-model warning once, breaker changes, retries and cache errors;
// never the text, never the key.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) error {
		if l == nil {
			return errors.New("llm: nil logger")
		}
		o.log = l
		return nil
	}
}

// WithLookupEnv replaces os.LookupEnv for $OPENAI_API_KEY and
// $OPENAI_BASE_URL.
func WithLookupEnv(lookup func(string) (string, bool)) Option {
	return func(o *options) error {
		if lookup == nil {
			return errors.New("llm: nil env lookup")
		}
		o.lookupEnv = lookup
		return nil
	}
}

// New validates cfg, reads the API key (api_key_file, else $OPENAI_API_KEY)
// and builds a Client. A Client with no model is valid: Model reports
// false and the llm_summary node skips.
func New(cfg Config, opts ...Option) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{now: time.Now, sleep: sleepCtx, lookupEnv: os.LookupEnv}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, err
		}
	}
	if o.log == nil {
		o.log = slog.Default()
	}
	if !o.cacheSet && cfg.CacheTTL > 0 {
		mc := NewMemoryCache(cfg.CacheTTL, 0)
		mc.now = o.now
		o.cache = mc
	}

	key, err := readKey(cfg.APIKeyFile, o.lookupEnv)
	if err != nil {
		return nil, err
	}
	base := cfg.BaseURL
	if base == "" {
		if v, ok := o.lookupEnv(EnvBaseURL); ok && strings.TrimSpace(v) != "" {
			base = strings.TrimSpace(v)
		} else if cfg.APIType == APITypeOpenAI {
			base = DefaultBaseURL
		}
	}
	var oc openai.ClientConfig
	switch cfg.APIType {
	case APITypeAzure, APITypeAzureAD:
		if base == "" {
			return nil, fmt.Errorf("llm.base_url: api_type %s needs the resource URL (https://NAME.openai.azure.com)", cfg.APIType)
		}
		if key == "" {
			return nil, fmt.Errorf("llm: api_type %s needs a key: set api_key_file or $%s", cfg.APIType, EnvAPIKey)
		}
		oc = openai.DefaultAzureConfig(key, base)
		// Model names are Azure deployment names: use them as they are.
		oc.AzureModelMapperFunc = func(model string) string { return model }
		oc.APIVersion = DefaultAzureAPIVersion
		if cfg.APIType == APITypeAzureAD {
			oc.APIType = openai.APITypeAzureAD
		}
	default:
		oc = openai.DefaultConfig(key)
		oc.BaseURL = base
		oc.APIVersion = ""
	}
	if cfg.APIVersion != "" {
		oc.APIVersion = cfg.APIVersion
	}
	if err := checkBaseURL(base, cfg.AllowInsecure); err != nil {
		return nil, err
	}
	oc.HTTPClient = noRedirects(o.httpClient) // transport.go
	cfg.BaseURL = base
	if cfg.Model == "" {
		if v, ok := o.lookupEnv(EnvModel); ok {
			cfg.Model = strings.TrimSpace(v)
		}
	}
	fallback := ""
	if cfg.SummaryModel != "" && cfg.Model != "" && cfg.Model != cfg.SummaryModel {
		fallback = cfg.Model
	}

	system := DefaultSystemPrompt
	if cfg.Prompt != "" {
		// A custom prompt still says that the marked content is data.
		system = stages.SystemPrompt(cfg.Prompt)
	}
	return &Client{
		cfg:      cfg,
		model:    cfg.summaryModel(),
		fallback: fallback,
		system:   system,
		api:      openai.NewClientWithConfig(oc),
		secret:   secretPattern(key),
		keySet:   key != "",
		cache:    o.cache,
		log:      o.log,
		now:      o.now,
		sleep:    o.sleep,
		sem:      make(chan struct{}, cfg.MaxConcurrency),
		br:       newBreaker(cfg.Breaker),
	}, nil
}

// maxKeyFile bounds how much of api_key_file is read.
const maxKeyFile = 64 << 10

// readKey returns the key from path, else from the environment, else "".
// Errors name the file, never its content.
func readKey(path string, lookup func(string) (string, bool)) (string, error) {
	if path != "" {
		f, err := os.Open(path)
		if err != nil {
			return "", fmt.Errorf("llm.api_key_file: %w", err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxKeyFile))
		if err != nil {
			return "", fmt.Errorf("llm.api_key_file: reading %s failed", path)
		}
		key := strings.TrimSpace(string(b))
		if key == "" {
			return "", fmt.Errorf("llm.api_key_file: %s is empty", path)
		}
		if strings.ContainsAny(key, "\r\n") {
			return "", fmt.Errorf("llm.api_key_file: %s holds more than one line", path)
		}
		return key, nil
	}
	if v, ok := lookup(EnvAPIKey); ok {
		return strings.TrimSpace(v), nil
	}
	return "", nil
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// Config returns the config in use, with base_url resolved. It holds no key.
func (c *Client) Config() Config { return c.cfg }

// SystemPrompt returns the system prompt sent with every request.
func (c *Client) SystemPrompt() string { return c.system }

// BreakerState reports the circuit breaker's state now.
func (c *Client) BreakerState() BreakerState { return c.br.State(c.now()) }

// String describes the client without its key.
func (c *Client) String() string {
	if c == nil {
		return "llm.Client(nil)"
	}
	model := c.model
	if model == "" {
		model = "none"
	}
	key := "unset"
	if c.keySet {
		key = "set"
	}
	return fmt.Sprintf("llm.Client{api_type: %s, base_url: %s, model: %s, key: %s}", c.cfg.APIType, c.cfg.BaseURL, model, key)
}

// GoString is String: %#v must not dump the key either.
func (c *Client) GoString() string { return c.String() }

// Format makes every fmt verb print String, so no verb reaches the fields.
func (c *Client) Format(f fmt.State, _ rune) { io.WriteString(f, c.String()) }

// NoModelMessage is the one line that says how to name a model.
const NoModelMessage = "[Compression] llm: no model configured: set llm.model (or llm.summary_model) in the config, $" + EnvModel + " or --model; keeping original texts"

// Model returns summary_model, else model. When neither is set it returns
// false and logs one warning (NoModelMessage) for the life of the client.
func (c *Client) Model() (string, bool) {
	if c.model == "" {
		c.noModel.Do(func() {
			c.log.Warn(NoModelMessage, slog.String("node", string(stages.KeyLLMSummary)))
		})
		return "", false
	}
	return c.model, true
}

// LogSkip logs, at WARN, the first skip at each gate of the llm_summary
// node (stages.SkipLogger): a mode or entry point that keeps the model off,
// texts under the length threshold. Later skips at the same gate are only
// in the report, so a run of short texts does not flood the log.
func (c *Client) LogSkip(ctx context.Context, gate int, reason string) {
	if _, seen := c.skipped.LoadOrStore(gate, true); seen {
		return
	}
	c.log.WarnContext(ctx, "[Compression] llm_summary: skipped (logged once per gate)", slog.Int("gate", gate), slog.String("reason", reason))
}

var _ stages.SkipLogger = (*Client)(nil)

// HasModel reports whether a model is configured, without the warning.
func (c *Client) HasModel() bool { return c.model != "" }

// Summarize asks the model for a summary of req.Text. A cached summary is
// returned without a request. While the breaker is open it fails at once
// with an error wrapping stages.ErrCircuitOpen. An error that no retry
// can fix wraps failure.ErrPermanent. An empty completion is
// returned as "" with no error (the node keeps the original). Errors never
// contain the API key.
func (c *Client) Summarize(ctx context.Context, req stages.SummaryRequest) (string, stages.LLMUsage, error) {
	start := c.now()
	usage := stages.LLMUsage{Model: c.model}
	latency := func() int64 { return c.now().Sub(start).Milliseconds() }
	if c.model == "" {
		c.Model() // the one warning
		return "", usage, classified(ErrNoModel)
	}
	if err := ctx.Err(); err != nil {
		return "", usage, err
	}

	key := CacheKey(req.Text, c.model, c.cfg.PromptVersion, c.system)
	if c.cache != nil {
		v, ok, err := c.cache.Get(ctx, key)
		switch {
		case err != nil:
			c.log.Warn("[Compression] llm_summary: cache get failed", slog.String("error", redact(err, c.secret).Error()))
		case ok:
			usage.CacheHit = true
			usage.LatencyMS = latency()
			return v, usage, nil
		}
	}

	summary, err := c.withFallback(ctx, &usage, c.system, userMessage(req.Text, req.Kind), req.MaxOutputTokens)
	usage.LatencyMS = latency()
	if err != nil {
		return "", usage, classified(err)
	}
	// The node restores any code placeholder the model dropped.
	summary = strings.TrimSpace(summary)
	switch {
	case summary == "":
		c.log.WarnContext(ctx, "[Compression] llm: empty completion; keeping the original", slog.String("model", usage.Model))
	case stages.Chars(summary) >= stages.Chars(req.Text):
		c.log.WarnContext(ctx, "[Compression] llm: summary not shorter than its input; the guard keeps the original",
			slog.String("model", usage.Model), slog.Int("chars_in", stages.Chars(req.Text)), slog.Int("chars_out", stages.Chars(summary)))
	}
	if summary != "" && c.cache != nil {
		if err := c.cache.Put(ctx, key, summary); err != nil {
			c.log.Warn("[Compression] llm_summary: cache put failed", slog.String("error", redact(err, c.secret).Error()))
		}
	}
	return summary, usage, nil
}

// Complete sends one chat request with the given system and user messages
// under the same timeout, retries, circuit breaker and concurrency limit as
// Summarize, without the cache. The transcripts behaviours use it.
func (c *Client) Complete(ctx context.Context, system, user string, maxTokens int) (string, error) {
	if c.model == "" {
		c.Model()
		return "", classified(ErrNoModel)
	}
	usage := stages.LLMUsage{Model: c.model}
	out, err := c.withFallback(ctx, &usage, system, user, maxTokens)
	if usage.Redactions != "" { // counts only, never the secrets
		c.log.Info("[Compression] llm: secrets redacted before the request", slog.String("redactions", usage.Redactions))
	}
	return strings.TrimSpace(out), classified(err)
}

// withFallback runs the call under call_timeout: summary_model first, and
// when that fails, model once (the fallback of design.md, Pipeline, for
// runtime failures too). The first model leaves one request timeout of the budget for the
// fallback. Every failure is logged at WARN, without text.
func (c *Client) withFallback(ctx context.Context, usage *stages.LLMUsage, system, user string, maxTokens int) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.CallTimeout)
	defer cancel()
	first := ctx
	if c.fallback != "" {
		var cancelFirst context.CancelFunc
		first, cancelFirst = context.WithTimeout(ctx, c.cfg.CallTimeout-c.cfg.Timeout)
		defer cancelFirst()
	}
	out, err := c.guarded(first, usage, c.model, c.cfg.MaxRetries, system, user, maxTokens)
	if err == nil {
		return out, nil
	}
	c.warnFailure(ctx, c.model, err)
	if c.fallback == "" || ctx.Err() != nil || errors.Is(err, stages.ErrCircuitOpen) {
		return "", err
	}
	usage.Model = c.fallback
	out, ferr := c.guarded(ctx, usage, c.fallback, 0, system, user, maxTokens)
	if ferr != nil {
		c.warnFailure(ctx, c.fallback, ferr)
		return "", fmt.Errorf("%w; fallback to model %s: %w", err, c.fallback, ferr)
	}
	return out, nil
}

func (c *Client) warnFailure(ctx context.Context, model string, err error) {
	if context.Cause(ctx) == context.Canceled {
		return
	}
	c.log.WarnContext(context.WithoutCancel(ctx), "[Compression] llm: call failed",
		slog.String("model", model), slog.String("kind", errKind(err)))
}

// errKind names a failure without its text.
func errKind(err error) string {
	var he *HTTPError
	switch {
	case errors.As(err, &he):
		return fmt.Sprintf("http %d", he.StatusCode)
	case errors.Is(err, stages.ErrCircuitOpen):
		return "circuit open"
	case errors.Is(err, ErrTruncated):
		return "truncated"
	case errors.Is(err, ErrMalformedResponse):
		return "malformed response"
	case errors.Is(err, context.DeadlineExceeded):
		return "timeout"
	case errors.Is(err, context.Canceled):
		return "canceled"
	}
	var te *transportError
	if errors.As(err, &te) {
		return "network"
	}
	return "other"
}

// guarded runs one call through the breaker and the concurrency limit.
func (c *Client) guarded(ctx context.Context, usage *stages.LLMUsage, model string, maxRetries int, system, user string, maxTokens int) (string, error) {
	ok, probe, retryAt := c.br.allow(c.now())
	if !ok {
		return "", fmt.Errorf("llm: %w: %s is failing, next try after %s", stages.ErrCircuitOpen, c.cfg.BaseURL, retryAt.Format(time.RFC3339))
	}
	o := outcomeNeutral
	defer func() {
		if from, to := c.br.done(c.now(), probe, o); from != to {
			lvl := slog.LevelInfo
			if to == BreakerOpen {
				lvl = slog.LevelWarn
			}
			c.log.Log(context.WithoutCancel(ctx), lvl, "[Compression] llm_summary: circuit breaker "+to.String(),
				slog.String("from", from.String()), slog.String("base_url", c.cfg.BaseURL))
		}
	}()
	select {
	case c.sem <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-c.sem }()
	if !probe && c.br.stillOpen(c.now()) {
		return "", fmt.Errorf("llm: %w: %s is failing", stages.ErrCircuitOpen, c.cfg.BaseURL)
	}
	out, err := c.call(ctx, model, maxRetries, system, user, maxTokens, usage, &o)
	if err != nil {
		return "", redact(err, c.secret)
	}
	return out, nil
}

// outgoing builds the messages sent to the endpoint. Every message content
// that leaves this client passes here, and only here: this is the one
// place for a hook over outgoing text (secret redaction).
func (c *Client) outgoing(system, user string) []openai.ChatCompletionMessage {
	return []openai.ChatCompletionMessage{
		{Role: openai.ChatMessageRoleSystem, Content: system},
		{Role: openai.ChatMessageRoleUser, Content: user},
	}
}

// call sends the request, retrying transient failures. It sets *o for the
// breaker and the token counts and retries in *usage.
func (c *Client) call(ctx context.Context, model string, maxRetries int, system, user string, maxTokens int, usage *stages.LLMUsage, o *outcome) (string, error) {
	if !c.cfg.DisableRedaction { // every text sent to a model, whoever asks
		system, user, usage.Redactions = secrets.Pair(system, user)
	}
	creq := openai.ChatCompletionRequest{
		Model:     model,
		Messages:  c.outgoing(system, user),
		MaxTokens: maxTokens,
	}
	// Reasoning models refuse max_tokens and want max_completion_tokens.
	if err := openai.NewReasoningValidator().Validate(creq); errors.Is(err, openai.ErrReasoningModelMaxTokensDeprecated) {
		creq.MaxCompletionTokens, creq.MaxTokens = creq.MaxTokens, 0
	}

	for attempt := 0; ; attempt++ {
		resp, err := c.attempt(ctx, creq)
		if err == nil {
			*o = outcomeSuccess
			usage.PromptTokens = resp.Usage.PromptTokens
			usage.CompletionTokens = resp.Usage.CompletionTokens
			text, err := completion(resp)
			if errors.Is(err, ErrMalformedResponse) {
				*o = outcomeFailure
			}
			return text, err
		}
		cerr, retry, oc := classify(ctx, err, resp.Header(), c.now())
		*o = oc
		if he, ok := cerr.(*HTTPError); ok {
			he.Message = redactText(he.Message, c.secret)
		}
		if !retry {
			return "", fmt.Errorf("llm: chat completion: %w", cerr)
		}
		if attempt >= maxRetries {
			if attempt == 0 {
				return "", fmt.Errorf("llm: chat completion: %w", cerr)
			}
			return "", fmt.Errorf("llm: chat completion failed after %d attempts: %w", attempt+1, cerr)
		}
		wait := backoffWait(c.cfg.Backoff, attempt)
		var he *HTTPError
		if errors.As(cerr, &he) && he.RetryAfter > 0 {
			if he.RetryAfter > c.cfg.Backoff.Max {
				return "", fmt.Errorf("llm: chat completion: server asks to retry after %s, more than backoff.max (%s): %w",
					he.RetryAfter, c.cfg.Backoff.Max, cerr)
			}
			wait = he.RetryAfter
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < wait {
			return "", fmt.Errorf("llm: chat completion: no time left to retry in %s: %w", wait, cerr)
		}
		c.log.Debug("[Compression] llm_summary: retrying",
			slog.Int("attempt", attempt+1), slog.Duration("wait", wait), slog.String("error", redact(cerr, c.secret).Error()))
		if err := c.sleep(ctx, wait); err != nil {
			*o = outcomeNeutral
			return "", err
		}
		usage.Retries++
	}
}

// attempt is one request under the per-request timeout.
func (c *Client) attempt(ctx context.Context, creq openai.ChatCompletionRequest) (openai.ChatCompletionResponse, error) {
	actx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	return c.api.CreateChatCompletion(actx, creq)
}

// completion extracts the summary from a response.
func completion(resp openai.ChatCompletionResponse) (string, error) {
	if len(resp.Choices) == 0 {
		return "", fmt.Errorf("llm: %w: no choices", ErrMalformedResponse)
	}
	ch := resp.Choices[0]
	switch ch.FinishReason {
	case openai.FinishReasonLength:
		return "", fmt.Errorf("llm: %w by the token limit (finish_reason length)", ErrTruncated)
	case openai.FinishReasonContentFilter:
		return "", fmt.Errorf("llm: %w by a content filter (finish_reason content_filter)", ErrTruncated)
	}
	return ch.Message.Content, nil
}
