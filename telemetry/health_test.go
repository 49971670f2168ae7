package telemetry

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// TestHealthHandler: /healthz always answers, /readyz follows ready, and
// /metrics is served only when a metrics handler is given.
func TestHealthHandler(t *testing.T) {
	var ready atomic.Bool
	metrics := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusTeapot) })
	get := func(h http.Handler, path string) int {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		return rec.Code
	}
	h := HealthHandler(ready.Load, metrics)
	if get(h, "/healthz") != http.StatusOK || get(h, "/readyz") != http.StatusServiceUnavailable {
		t.Errorf("before ready: healthz %d, readyz %d", get(h, "/healthz"), get(h, "/readyz"))
	}
	ready.Store(true)
	if get(h, "/readyz") != http.StatusOK || get(h, "/metrics") != http.StatusTeapot {
		t.Errorf("ready: readyz %d, metrics %d", get(h, "/readyz"), get(h, "/metrics"))
	}
	if got := get(HealthHandler(ready.Load, nil), "/metrics"); got != http.StatusNotFound {
		t.Errorf("metrics off: /metrics %d, want 404", got)
	}
}
