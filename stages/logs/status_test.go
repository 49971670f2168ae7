package logs

import (
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// accessFormats render one access record with its status away from the
// request line, or right after it with more fields, as load balancers
// and proxies of several kinds write them.
var accessFormats = []struct {
	name  string
	dists []int // where statusFields must find the status
	line  func(r *rand.Rand, status int, req string) string
}{
	{"balancer, status before (ALB/ELB)", []int{-3, -4}, func(r *rand.Rand, status int, req string) string {
		return fmt.Sprintf(`https 2024-03-01T10:00:%02d.%06dZ app/lb/50dc6c49 10.0.%d.%d:%d 10.1.0.%d:80 0.00%d 0.0%02d 0.000 %d %d %d %d "%s" "curl/8.4.0" - - arn:aws:tg/x "Root=1-%08x" "-" "-" 0`,
			r.Intn(60), r.Intn(1e6), r.Intn(250), r.Intn(250), 1024+r.Intn(60000), r.Intn(8), r.Intn(9), r.Intn(99), status, status, r.Intn(9000), r.Intn(90000), req, r.Uint32())
	}},
	{"proxy, status seven fields before (HAProxy)", []int{-7}, func(r *rand.Rand, status int, req string) string {
		return fmt.Sprintf(`Mar 1 10:00:%02d lb1 haproxy[%d]: 10.0.%d.%d:%d [01/Mar/2024:10:00:%02d.%03d] http-in app/srv%d 0/0/%d/%d/%d %d %d - - ---- 1/1/1/1/0 0/0 "%s"`,
			r.Intn(60), 1000+r.Intn(50), r.Intn(250), r.Intn(250), 1024+r.Intn(60000), r.Intn(60), r.Intn(1000), 1+r.Intn(3), r.Intn(30), r.Intn(90), r.Intn(120), status, r.Intn(90000), req)
	}},
	{"status after the request, a duration between", []int{2}, func(r *rand.Rand, status int, req string) string {
		return fmt.Sprintf(`2024-03-01T10:00:%02dZ edge-%d "%s" %dms %d %d`, r.Intn(60), r.Intn(4), req, r.Intn(900), status, r.Intn(90000))
	}},
	{"W3C with tabs (CloudFront): method, host, path, status", []int{1}, func(r *rand.Rand, status int, req string) string {
		method, rest, _ := strings.Cut(req, " ")
		path, _, _ := strings.Cut(rest, " ")
		return fmt.Sprintf("2024-03-01\t10:00:%02d\tIAD89-C1\t%d\t10.0.%d.%d\t%s\td111abcdef8.cloudfront.net\t%s\t%d\t-\tMozilla/5.0%%20(X11)\t-\t-\tMiss\thttps\t%d\t0.0%02d",
			r.Intn(60), r.Intn(90000), r.Intn(250), r.Intn(250), method, path, status, r.Intn(900), r.Intn(99))
	}},
	{"W3C extended (IIS): an unquoted request, the port 443 beside it", []int{7}, func(r *rand.Rand, status int, req string) string {
		method, rest, _ := strings.Cut(req, " ")
		path, _, _ := strings.Cut(rest, " ")
		return fmt.Sprintf(`2024-03-01 10:00:%02d 10.0.0.4 %s %s - 443 - 10.1.%d.%d Mozilla/5.0+(Windows+NT+10.0) - %d 0 0 %d`, r.Intn(60), method, path, r.Intn(250), r.Intn(250), status, r.Intn(900))
	}},
	{"native proxy format (Squid): the status glued to the cache result, an absolute URL", []int{-2}, func(r *rand.Rand, status int, req string) string {
		method, rest, _ := strings.Cut(req, " ")
		path, _, _ := strings.Cut(rest, " ")
		return fmt.Sprintf(`%d.%03d %5d 192.168.%d.%d %s/%d %d %s http://api.example.com%s - HIER_DIRECT/10.1.2.3 text/html`,
			1709287200+r.Intn(3600), r.Intn(1000), r.Intn(900), r.Intn(4), r.Intn(250), []string{"TCP_MISS", "TCP_HIT", "TCP_REFRESH_MODIFIED"}[r.Intn(3)], status, 200+r.Intn(5000), method, path)
	}},
}

var accessRoutes = []string{"GET /api/users/%d HTTP/1.1", "POST /api/orders HTTP/1.1", "GET /health HTTP/1.1", "DELETE /api/carts/%d HTTP/2.0"}

func accessRequest(r *rand.Rand) string {
	req := accessRoutes[r.Intn(len(accessRoutes))]
	if strings.Contains(req, "%d") {
		req = fmt.Sprintf(req, r.Intn(99999))
	}
	return req
}

// TestStatusFields: the status is found at its distance from the request
// line in each format, whatever the codes (mostly 200, some 304, 404,
// 502); a balancer's status and its target's are both found. A field
// that holds a three-digit number only some of the time (a size) is no
// status, nor is anything in a log without request lines.
func TestStatusFields(t *testing.T) {
	r := rand.New(rand.NewSource(5))
	codes := []int{200, 200, 200, 200, 304, 404, 502}
	for _, f := range accessFormats {
		var heads []string
		for range 300 {
			heads = append(heads, f.line(r, codes[r.Intn(len(codes))], accessRequest(r)))
		}
		if got := statusFields(heads); !slices.Equal(got, f.dists) {
			t.Errorf("%s: statusFields = %v, want %v", f.name, got, f.dists)
		}
		if lay := Analyze(strings.Join(heads, "\n")); !slices.Equal(lay.StatusFields, f.dists) {
			t.Errorf("%s: Analyze's StatusFields = %v, want %v", f.name, lay.StatusFields, f.dists)
		}
	}
	var sizes, plain []string
	for range 300 {
		sizes = append(sizes, fmt.Sprintf(`10.0.0.%d "%s" %d`, r.Intn(250), accessRequest(r), r.Intn(5000)))
		plain = append(plain, fmt.Sprintf("2024-03-01 10:00:%02d INFO served %d bytes in %d ms", r.Intn(60), r.Intn(900), r.Intn(500)))
	}
	if got := statusFields(sizes); got != nil {
		t.Errorf("a size field read as the status: %v", got)
	}
	if got := statusFields(plain); got != nil {
		t.Errorf("a log without request lines has a status field: %v", got)
	}
}

// TestErrorStatusIsAnEvent: under a layout with a status field, a route's
// 502 makes another template than its 200s; its 200s and 304s share one.
func TestErrorStatusIsAnEvent(t *testing.T) {
	r := rand.New(rand.NewSource(6))
	for _, f := range accessFormats {
		var heads []string
		for i := range 100 {
			heads = append(heads, f.line(r, []int{200, 200, 304}[i%3], accessRequest(r)))
		}
		lay := Analyze(strings.Join(heads, "\n"))
		key := func(status int) uint64 {
			return LineKey(lay.TemplateTokens(f.line(rand.New(rand.NewSource(9)), status, "POST /api/orders HTTP/1.1"), nil))
		}
		if key(200) != key(304) {
			t.Errorf("%s: a 200 and a 304 of one route make two templates", f.name)
		}
		if key(200) == key(502) || key(502) == key(503) {
			t.Errorf("%s: 200, 502 and 503 of one route are not three templates", f.name)
		}
		if got := lay.ErrorStatus(f.line(r, 503, "GET /health HTTP/1.1")); got != "503" {
			t.Errorf("%s: ErrorStatus = %q, want 503", f.name, got)
		}
		// A balancer's own failure: its target never answered ("-").
		ok := f.line(r, 200, "GET /health HTTP/1.1")
		if own := strings.Replace(ok, " 200 200 ", " 504 - ", 1); own != ok && lay.ErrorStatus(own) != "504" {
			t.Errorf("%s: the balancer's own 504 is no error status: %q", f.name, own)
		}
	}
}

// FuzzTargetAfterBlank checks targetAfterBlank's search for slashes
// against the plain reading: the first " /", " http://" or " https://"
// (or the same after a tab) at or after from.
func FuzzTargetAfterBlank(f *testing.F) {
	for _, s := range []string{"GET /a HTTP/1.1", "a/b /c", "x\t/y /z", "//", " /", "/ /", "no path",
		"GET\thost\t/p", "GET http://h/x", "x https://h/ /y", "ahttp://x /y", " http:/x", "\thttps://"} {
		f.Add(s, 0)
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, line string, from int) {
		if from < 0 || from > len(line) {
			return
		}
		want := -1
		for _, needle := range []string{" /", "\t/", " http://", "\thttp://", " https://", "\thttps://"} {
			if p := strings.Index(line[from:], needle); p >= 0 && (want < 0 || from+p+1 < want) {
				want = from + p + 1
			}
		}
		if got := targetAfterBlank(line, from); got != want {
			t.Fatalf("targetAfterBlank(%q, %d) = %d, want %d", line, from, got, want)
		}
	})
}
