package embedded

import (
	"context"
	"fmt"
	"time"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// Fleet is an embedded server plus in-process workers for every segment,
// each reaching the server over loopback TCP like a remote worker would.
type Fleet struct {
	Server *Server
	cancel context.CancelFunc
	done   chan error
	nc     *nats.Conn
}

// FleetOptions configure StartFleet.
type FleetOptions struct {
	StoreDir string
	// Runtime, when set, is what the workers run (config.File.Build): its
	// fleet config, pipeline, mode, telemetry and every transcript task,
	// sessions kept in JetStream. Fleet and Pipeline are then ignored.
	Runtime *config.Runtime
	// Fleet and Pipeline, without a Runtime: the topology and the pipeline
	// the workers run, with no tasks.
	Fleet    jetstream.Config
	Pipeline *pipeline.Pipeline
}

// StartFleet starts the server, creates the topology and runs workers.
func StartFleet(ctx context.Context, o FleetOptions) (*Fleet, error) {
	srv, err := Start(Options{StoreDir: o.StoreDir})
	if err != nil {
		return nil, err
	}
	nc, err := nats.Connect(srv.ClientURL(), nats.Name("jetcompact-embedded-worker"))
	if err != nil {
		srv.Shutdown()
		return nil, fmt.Errorf("embedded: connect: %w", err)
	}
	fail := func(err error) (*Fleet, error) {
		nc.Close()
		srv.Shutdown()
		return nil, err
	}
	js, err := njs.New(nc)
	if err != nil {
		return fail(err)
	}
	if o.Runtime != nil {
		o.Fleet, o.Pipeline = o.Runtime.File.Fleet, o.Runtime.Pipeline
	}
	if err := jetstream.EnsureTopology(ctx, js, o.Fleet); err != nil {
		return fail(err)
	}
	// A one-shot fleet should stop at once, not after an idle pull expires.
	opts := []jetstream.WorkerOption{jetstream.WithPullWait(100 * time.Millisecond)}
	if o.Runtime != nil {
		more, err := o.Runtime.WorkerOptions(ctx, js, o.Fleet.Tasks)
		if err != nil {
			return fail(err)
		}
		opts = append(opts, more...)
	}
	w, err := jetstream.NewWorker(ctx, js, o.Fleet, o.Pipeline, opts...)
	if err != nil {
		return fail(err)
	}
	wctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	f := &Fleet{Server: srv, cancel: cancel, done: make(chan error, 1), nc: nc}
	go func() { f.done <- w.Run(wctx, o.Fleet.Segments, 30*time.Second) }()
	for deadline := time.Now().Add(10 * time.Second); !w.Ready(); {
		if time.Now().After(deadline) {
			f.Close()
			return nil, fmt.Errorf("embedded: workers not ready after 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	return f, nil
}

// URL is where clients connect.
func (f *Fleet) URL() string { return f.Server.ClientURL() }

// Close drains the workers and stops the server.
func (f *Fleet) Close() error {
	f.cancel()
	err := <-f.done
	f.nc.Close()
	f.Server.Shutdown()
	return err
}
