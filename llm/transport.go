package llm

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// The transport rules of the LLM client, for every endpoint (OpenAI,
// Azure, a local server):
//   - no redirect is followed: a redirect to another port, scheme or host
//     would carry the Authorization header there. The 3xx is the answer.
//   - plain http only to a loopback host, unless llm.allow_insecure is set:
//     the key and the documents would otherwise cross the network in clear.

// checkBaseURL refuses a plain-http base URL whose host is not loopback,
// unless allowInsecure.
func checkBaseURL(base string, allowInsecure bool) error {
	if base == "" || allowInsecure {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return fmt.Errorf("llm.base_url: %w", err)
	}
	if strings.EqualFold(u.Scheme, "http") && !isLoopback(u.Hostname()) {
		return fmt.Errorf("llm.base_url: plain http to %s would send the API key and documents in clear; use https, or set llm.allow_insecure: true", u.Host)
	}
	return nil
}

// isLoopback reports whether host is localhost or a loopback address.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// noRedirects returns a copy of hc (nil = a default client) that returns
// a redirect as the response instead of following it.
func noRedirects(hc *http.Client) *http.Client {
	c := &http.Client{}
	if hc != nil {
		*c = *hc
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return c
}
