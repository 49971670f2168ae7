package llm

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// TestRedirectIsNotFollowed: an endpoint that redirects, with every
// redirect status, to another port of the same host gets no request
// there, and the key never travels.
func TestRedirectIsNotFollowed(t *testing.T) {
	const key = "sk-redirect-Pq81"
	var mu sync.Mutex
	var reached []string
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		reached = append(reached, r.Header.Get("Authorization"))
		mu.Unlock()
		reply(w, "from the other port")
	}))
	defer other.Close()
	for _, status := range []int{http.StatusMovedPermanently, http.StatusFound, http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path, status)
		}))
		cfg := DefaultConfig()
		cfg.BaseURL, cfg.Model, cfg.MaxRetries, cfg.Timeout = redirect.URL+"/v1", "m", 0, 5*time.Second
		for _, hc := range []*http.Client{nil, {}} {
			opts := []Option{WithLookupEnv(func(k string) (string, bool) { return key, k == EnvAPIKey })}
			if hc != nil {
				opts = append(opts, WithHTTPClient(hc))
			}
			c, err := New(cfg, opts...)
			if err != nil {
				t.Fatal(err)
			}
			out, _, err := c.Summarize(context.Background(), stages.SummaryRequest{Text: strings.Repeat("a long text. ", 100), MaxOutputTokens: 64})
			if err == nil {
				t.Errorf("status %d: a redirect was taken as a summary: %q", status, out)
			}
		}
		redirect.Close()
	}
	mu.Lock()
	defer mu.Unlock()
	if len(reached) > 0 {
		t.Errorf("the redirect target got %d requests (authorization sent: %v)", len(reached), strings.Contains(strings.Join(reached, ""), key))
	}
}

// TestPlainHTTPOnlyToLoopback: http base URLs, from the config or the
// environment, are refused for other hosts unless allow_insecure is set.
func TestPlainHTTPOnlyToLoopback(t *testing.T) {
	for base, ok := range map[string]bool{
		"http://127.0.0.1:8000/v1":   true,
		"http://127.9.9.9/v1":        true,
		"http://[::1]:8000/v1":       true,
		"http://localhost:11434/v1":  true,
		"https://api.example.com/v1": true,
		"http://api.example.com/v1":  false,
		"http://10.0.0.5:8000/v1":    false,
		"http://[fd00::1]/v1":        false,
		"HTTP://llm.internal/v1":     false,
		"http://localhost.evil.com/": false,
	} {
		for _, fromEnv := range []bool{false, true} {
			for _, insecure := range []bool{false, true} {
				cfg := DefaultConfig()
				cfg.Model, cfg.AllowInsecure = "m", insecure
				env := func(string) (string, bool) { return "", false }
				if fromEnv {
					env = func(k string) (string, bool) { return base, k == EnvBaseURL }
				} else {
					cfg.BaseURL = base
				}
				_, err := New(cfg, WithLookupEnv(env))
				if want := ok || insecure; (err == nil) != want {
					t.Errorf("%s (env %v, allow_insecure %v): err = %v, want accepted %v", base, fromEnv, insecure, err, want)
				}
				if err != nil && !strings.Contains(err.Error(), "allow_insecure") {
					t.Errorf("%s: the refusal does not say how to allow it: %v", base, err)
				}
			}
		}
	}
}
