package pipeline

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestAccessErrorsAwayFromRequest: access logs whose status stands away
// from the request line (a load balancer's, before it; HAProxy's, seven
// fields before; IIS's, seven fields after an unquoted request;
// CloudFront's, tab-separated, right after the path; Squid's, glued to
// its cache result, TCP_MISS/503, before a method and an absolute URL;
// Envoy's, after a request line that follows a bracketed time) keep
// every route's failures through the whole pipeline
// (a balancer's own 504 too, whose target status is "-"),
// while the route's successes still fold. Before the status field was
// read from the records, a route's 502s folded into its 200s (ALB,
// summarised as a range "200–502") or vanished (HAProxy, merged by
// near_dup).
func TestAccessErrorsAwayFromRequest(t *testing.T) {
	formats := map[string]func(r *rand.Rand, i, status int, req string) string{
		"balancer": func(r *rand.Rand, i, status int, req string) string {
			target := strconv.Itoa(status)
			if status == 504 {
				target = "-" // the balancer's own failure: the target never answered
			}
			return fmt.Sprintf(`https 2024-03-01T10:%02d:%02d.%06dZ app/lb/50dc6c49 10.0.%d.%d:%d 10.1.0.%d:80 0.00%d 0.0%02d 0.000 %d %s %d %d "%s" "Mozilla/5.0 (X11; Linux x86_64)" ECDHE-RSA-AES128-GCM-SHA256 TLSv1.2 arn:aws:elasticloadbalancing:us-east-2:1234:targetgroup/web/73e2d6bc "Root=1-%08x-%024x" "www.example.com" "-" 0`,
				i/60%60, i%60, r.IntN(1e6), r.IntN(250), r.IntN(250), 1024+r.IntN(60000), r.IntN(8), r.IntN(9), r.IntN(99), status, target, r.IntN(9000), r.IntN(90000), req, r.Uint32(), r.Uint64())
		},
		"iis": func(r *rand.Rand, i, status int, req string) string {
			method, rest, _ := strings.Cut(req, " ")
			path, _, _ := strings.Cut(rest, " ")
			return fmt.Sprintf(`2024-03-01 10:%02d:%02d 10.0.0.4 %s %s - 443 - 10.1.%d.%d Mozilla/5.0+(Windows+NT+10.0;+Win64;+x64) - %d 0 0 %d`,
				i/60%60, i%60, method, path, r.IntN(250), r.IntN(250), status, r.IntN(900))
		},
		"cloudfront": func(r *rand.Rand, i, status int, req string) string {
			method, rest, _ := strings.Cut(req, " ")
			path, _, _ := strings.Cut(rest, " ")
			return fmt.Sprintf("2024-03-01\t10:%02d:%02d\tIAD89-C1\t%d\t10.0.%d.%d\t%s\td111abcdef8.cloudfront.net\t%s\t%d\t-\tMozilla/5.0%%20(X11;%%20Linux)\t-\t-\tMiss\thttps\t%d\t0.0%02d",
				i/60%60, i%60, r.IntN(90000), r.IntN(250), r.IntN(250), method, path, status, r.IntN(900), r.IntN(99))
		},
		"envoy": func(r *rand.Rand, i, status int, req string) string {
			return fmt.Sprintf(`[2024-03-01T10:%02d:%02d.%03dZ] "%s" %d - 0 %d %d %d "-" "curl/8.1" "%08x-%04x" "api.example.com" "10.0.%d.%d:8080"`,
				i/60%60, i%60, r.IntN(1000), req, status, r.IntN(9000), r.IntN(90), r.IntN(90), r.Uint32(), r.IntN(65536), r.IntN(4), r.IntN(250))
		},
		"squid": func(r *rand.Rand, i, status int, req string) string {
			method, rest, _ := strings.Cut(req, " ")
			path, _, _ := strings.Cut(rest, " ")
			return fmt.Sprintf(`%d.%03d %5d 192.168.%d.%d TCP_MISS/%d %d %s http://api.example.com%s - HIER_DIRECT/10.1.2.3 text/html`,
				1709287200+i, r.IntN(1000), r.IntN(900), r.IntN(4), r.IntN(250), status, 200+r.IntN(5000), method, path)
		},
		"haproxy": func(r *rand.Rand, i, status int, req string) string {
			return fmt.Sprintf(`Mar 1 10:%02d:%02d lb1 haproxy[%d]: 10.0.%d.%d:%d [01/Mar/2024:10:%02d:%02d.%03d] http-in app/srv%d 0/0/%d/%d/%d %d %d - - ---- 1/1/1/1/0 0/0 "%s"`,
				i/60%60, i%60, 1000+r.IntN(50), r.IntN(250), r.IntN(250), 1024+r.IntN(60000), i/60%60, i%60, r.IntN(1000), 1+r.IntN(3), r.IntN(30), r.IntN(90), r.IntN(120), status, r.IntN(90000), req)
		},
	}
	routes := []string{"GET /api/users/%d HTTP/1.1", "POST /api/orders HTTP/1.1", "GET /health HTTP/1.1", "POST /api/login HTTP/1.1", "GET /static/app.js HTTP/1.1"}
	// Each failure once or twice, on one route, among 3000 records.
	failures := map[string][]int{"POST /api/orders": {502, 503}, "GET /api/users/": {500}, "POST /api/login": {401}, "GET /health": {504}}
	for name, line := range formats {
		r := rand.New(rand.NewPCG(3, 4))
		type failure struct {
			route string
			code  int
		}
		at := map[int]failure{}
		for route, codes := range failures {
			for _, c := range codes {
				for range 1 + r.IntN(2) {
					at[r.IntN(3000)] = failure{route, c}
				}
			}
		}
		var b strings.Builder
		for i := range 3000 {
			req, status := routes[r.IntN(len(routes))], 200
			if f, ok := at[i]; ok {
				status = f.code
				for _, rt := range routes {
					if strings.HasPrefix(rt, f.route) {
						req = rt
					}
				}
			}
			if strings.Contains(req, "%d") {
				req = fmt.Sprintf(req, r.IntN(99999))
			}
			b.WriteString(line(r, i, status, req) + "\n")
		}
		out, ratio := compactLog(t, b.String())
		for _, f := range at {
			found := false
			method, path, _ := strings.Cut(f.route, " ")
			for l := range strings.SplitSeq(strings.ReplaceAll(out, "\t", " "), "\n") {
				code := strings.Contains(l, fmt.Sprintf(" %d ", f.code)) || strings.Contains(l, fmt.Sprintf("/%d ", f.code))
				if code && strings.Contains(l, method+" ") && (strings.Contains(l, " "+path) || strings.Contains(l, ".com"+path)) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: the %d of %s is lost:\n%s", name, f.code, f.route, clipZoo(out))
			}
		}
		if ratio > 0.01 {
			t.Errorf("%s: ratio %.4f, the successes no longer fold:\n%s", name, ratio, clipZoo(out))
		}
	}
}
