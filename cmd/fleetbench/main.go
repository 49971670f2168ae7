// Command fleetbench measures end-to-end throughput of 64 KiB documents
// through (a) the raw transport (same hops, no-op stages), (b) the fully
// split fleet and (c) the fused fleet, each worker and the nats-server in
// their own process on loopback TCP; and through two peers that relay the
// same documents one hop, from one file-backed stream to another, acking
// each input after its output's PubAck: (d) a raw nats.go relay and (e)
// Benthos (bench/benthosrelay, its own module). Then per-document latency
// at a steady rate below saturation, and peak RSS and CPU per process. The
// scenarios run in turn for -rounds rounds and each reports its median
// round; fused/(d) and fused/(e) compare the medians.
//
//	go run ./cmd/fleetbench [-docs 3000] [-size 65536] [-rounds 3] [-only abcde] [-worker-cpuprofile DIR]
//
// -worker-cpuprofile writes one CPU profile per worker process and run
// (go tool pprof -top BIN DIR/FILE); JC_PUBPROFILE and JC_SRVPROFILE name
// files for the publisher's and the server's.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"syscall"

	"github.com/jetcompact/jetcompact/embedded"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		serve(os.Args[2:])
		return
	}
	if len(os.Args) > 1 && os.Args[1] == "relay" {
		serveRelay(os.Args[2:])
		return
	}
	var o benchOptions
	flag.IntVar(&o.docs, "docs", 3000, "documents per throughput run")
	flag.IntVar(&o.size, "size", 64<<10, "document size in bytes")
	flag.IntVar(&o.window, "window", 256, "documents in flight during throughput runs")
	flag.IntVar(&o.latencyDocs, "latency-docs", 1000, "documents in the latency run")
	flag.IntVar(&o.latencyWarmup, "latency-warmup", 300, "documents published at the same rate before the timed ones of a latency run")
	flag.IntVar(&o.rounds, "rounds", 3, "throughput rounds; each scenario reports its median")
	flag.IntVar(&o.concurrency, "concurrency", 64, "fleet.concurrency of every worker")
	flag.IntVar(&o.pullBatch, "pull-batch", 64, "fleet.pull_batch of every worker")
	flag.IntVar(&o.workers, "workers", 1, "worker processes per segment")
	flag.Float64Var(&o.latencyLoad, "latency-load", 0.5, "latency run rate as a share of each fleet's own throughput")
	flag.StringVar(&o.workerBin, "worker-bin", "", "worker binary (default: built from ./cmd/worker)")
	flag.StringVar(&o.corpus, "corpus", "../shared/corpus/loghub", "log files to cut documents from, when present")
	flag.StringVar(&o.benthosBin, "benthos-bin", "", "Benthos relay binary (default: built from ./bench/benthosrelay)")
	flag.StringVar(&o.workerProfiles, "worker-cpuprofile", "", "directory for a CPU profile of each worker process per run (worker --cpuprofile)")
	flag.StringVar(&o.only, "only", "", "run only these scenarios, by letter: a, b, c, d, e (default: all, then latency)")
	flag.Parse()
	if o.workerProfiles != "" {
		// A worker cannot create the directory: it would exit, and
		// its consumer would never appear.
		if err := os.MkdirAll(o.workerProfiles, 0o755); err != nil {
			fmt.Fprintln(os.Stderr, "fleetbench:", err)
			os.Exit(1)
		}
	}
	if p := os.Getenv("JC_PUBPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := runBench(ctx, o); err != nil {
		fmt.Fprintln(os.Stderr, "fleetbench:", err)
		os.Exit(1)
	}
}

// serve runs a nats-server in this process until killed: fleetbench serve DIR PORT.
func serve(args []string) {
	if p := os.Getenv("JC_SRVPROFILE"); p != "" {
		f, _ := os.Create(p)
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}
	srv, err := embedded.Start(embedded.Options{StoreDir: args[0], Listen: "127.0.0.1:" + args[1], MaxPayload: 8 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ready")
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGTERM, os.Interrupt)
	<-ch
	srv.Shutdown()
}

func buildWorker(dir string) (string, error) {
	bin := filepath.Join(dir, "worker")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/worker")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	return bin, cmd.Run()
}
