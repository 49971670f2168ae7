package faults

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// makeDocs returns n distinct documents of 2-4 KiB each, realistic
// snippets of what the fleet compacts: service logs, CI output, JSON API
// payloads, Kubernetes events and Python tracebacks. The same seed gives
// the same documents.
func makeDocs(n int, seed uint64) []doc {
	docs := make([]doc, n)
	for i := range docs {
		docs[i] = makeDoc(seed, i)
	}
	return docs
}

// makeDoc returns document i of the set seed names.
func makeDoc(seed uint64, i int) doc {
	gens := []func(r *rand.Rand, i int, b *strings.Builder){appLog, buildLog, jsonPayload, k8sEvents, traceback}
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	target := 2048 + r.IntN(2048)
	var b strings.Builder
	for b.Len() < target {
		gens[i%len(gens)](r, i, &b)
	}
	text := b.String()
	if len(text) > 4096 {
		cut := strings.LastIndexByte(text[:4096], '\n')
		text = text[:cut+1]
	}
	return doc{id: fmt.Sprintf("doc-%06d", i), text: text}
}

var services = []string{"api", "billing", "auth", "search", "checkout", "inventory"}

func appLog(r *rand.Rand, i int, b *strings.Builder) {
	svc := services[i%len(services)]
	ts := func() string {
		return fmt.Sprintf("2025-03-01T12:%02d:%02d.%03dZ", r.IntN(60), r.IntN(60), r.IntN(1000))
	}
	switch k := r.IntN(10); {
	case k < 5:
		fmt.Fprintf(b, "%s INFO  [%s] GET /api/v1/orders/%d 200 %dms req_id=%016x user=%d\n", ts(), svc, r.IntN(100000), r.IntN(300), r.Uint64(), r.IntN(5000))
	case k < 7:
		fmt.Fprintf(b, "%s DEBUG [%s] health check ok pool=%d/%d doc=%d\n", ts(), svc, r.IntN(32), 32, i)
	case k < 9:
		fmt.Fprintf(b, "%s WARN  [%s] slow query took %dms: SELECT * FROM orders WHERE customer_id = %d\n", ts(), svc, 500+r.IntN(3000), r.IntN(100000))
	default:
		fmt.Fprintf(b, "%s ERROR [%s] upstream %s.internal:%d refused connection (attempt %d/5) doc=%d\n", ts(), svc, services[r.IntN(len(services))], 8000+r.IntN(100), 1+r.IntN(5), i)
	}
}

func buildLog(r *rand.Rand, i int, b *strings.Builder) {
	switch k := r.IntN(10); {
	case k < 3:
		fmt.Fprintf(b, "go: downloading github.com/acme/lib%d v1.%d.%d\n", r.IntN(40), r.IntN(20), r.IntN(10))
	case k < 7:
		fmt.Fprintf(b, "ok  \tgithub.com/acme/service/pkg%d\t%d.%03ds\tcoverage: %d.%d%% of statements\n", r.IntN(60), r.IntN(3), r.IntN(1000), r.IntN(100), r.IntN(10))
	case k < 8:
		fmt.Fprintf(b, "--- FAIL: TestOrder%d (0.%02ds)\n    order_test.go:%d: got %d, want %d (build %d)\n", r.IntN(50), r.IntN(100), 10+r.IntN(300), r.IntN(10), r.IntN(10), i)
	case k < 9:
		fmt.Fprintf(b, "npm WARN deprecated request@2.88.%d: request has been deprecated, see https://github.com/request/request/issues/3142\n", r.IntN(3))
	default:
		fmt.Fprintf(b, "Step %d/%d : RUN go build -o /out/app ./cmd/app\n ---> Running in %012x\n", r.IntN(20), 20, r.Uint64()&0xffffffffffff)
	}
}

func jsonPayload(r *rand.Rand, i int, b *strings.Builder) {
	if b.Len() == 0 {
		fmt.Fprintf(b, "{\"page\":%d,\"trace\":\"%016x\",\"items\":[\n", i, r.Uint64())
	} else {
		b.WriteString(",\n")
	}
	fmt.Fprintf(b, `  {"id":%d,"sku":"SKU-%05d","qty":%d,"price":%d.%02d,"tags":["sale","%s"],"warehouse":{"id":%d,"region":"eu-west-%d"}}`,
		r.IntN(1e6), r.IntN(1e5), 1+r.IntN(9), r.IntN(500), r.IntN(100), services[r.IntN(len(services))], r.IntN(40), 1+r.IntN(3))
	if b.Len() > 2000 && r.IntN(4) == 0 {
		b.WriteString("\n]}\n")
	}
}

func k8sEvents(r *rand.Rand, i int, b *strings.Builder) {
	if b.Len() == 0 {
		b.WriteString("LAST SEEN   TYPE      REASON             OBJECT                          MESSAGE\n")
	}
	pod := fmt.Sprintf("pod/%s-%x-%05x", services[r.IntN(len(services))], 0x7d9f00+r.IntN(255), r.IntN(1<<20))
	switch k := r.IntN(6); {
	case k < 3:
		fmt.Fprintf(b, "%dm          Normal    Pulled             %-31s Container image \"registry.acme.io/app:1.%d.%d\" already present on machine\n", r.IntN(60), pod, r.IntN(30), i%100)
	case k < 5:
		fmt.Fprintf(b, "%dm          Normal    Scheduled          %-31s Successfully assigned prod/%s to node-%d\n", r.IntN(60), pod, pod[4:], r.IntN(12))
	default:
		fmt.Fprintf(b, "%ds         Warning   BackOff            %-31s Back-off restarting failed container app in pod %s\n", r.IntN(60), pod, pod[4:])
	}
}

func traceback(r *rand.Rand, i int, b *strings.Builder) {
	if r.IntN(3) == 0 {
		fmt.Fprintf(b, "[worker-%d] retrying job %d in %ds\n", r.IntN(8), i*100+r.IntN(100), 1+r.IntN(30))
		return
	}
	b.WriteString("Traceback (most recent call last):\n")
	for f := range 3 + r.IntN(4) {
		fmt.Fprintf(b, "  File \"/srv/app/jobs/step%d.py\", line %d, in run_%d\n    result = handler(payload, retries=%d)\n", f, 10+r.IntN(400), f, r.IntN(5))
	}
	fmt.Fprintf(b, "KeyError: 'customer_%d'\n", r.IntN(100000))
}
