package config

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/jetcompact/jetcompact/jetstream"
	njs "github.com/nats-io/nats.go/jetstream"
)

// SelectSources picks the configured sources a --sources flag names:
// none (""), all, or a comma-separated list.
func SelectSources(configured []jetstream.SourceConfig, flag string) ([]jetstream.SourceConfig, error) {
	switch flag {
	case "", "none":
		return nil, nil
	case "all":
		return configured, nil
	}
	byName := map[string]jetstream.SourceConfig{}
	for _, s := range configured {
		byName[s.Name] = s
	}
	var out []jetstream.SourceConfig
	for _, name := range strings.Split(flag, ",") {
		s, ok := byName[strings.TrimSpace(name)]
		if !ok {
			return nil, fmt.Errorf("--sources: no source %q in the config", name)
		}
		out = append(out, s)
	}
	return out, nil
}

// StartSources runs a source runner per source until ctx ends; wait
// returns once each has closed its windows and delivered their results.
func (r *Runtime) StartSources(ctx context.Context, js njs.JetStream, srcs []jetstream.SourceConfig) (wait func(), err error) {
	log, mp := r.Log, r.Telemetry.MeterProvider
	if len(srcs) == 0 {
		return func() {}, nil
	}
	client, err := jetstream.NewClient(ctx, js, r.File.Fleet)
	if err != nil {
		return nil, err
	}
	var wg sync.WaitGroup
	for _, src := range srcs {
		r, err := jetstream.NewSourceRunner(ctx, js, client, src, jetstream.WithSourceLogger(log), jetstream.WithSourceMeterProvider(mp))
		if err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := r.Run(ctx); err != nil {
				log.Error("source stopped", "source", src.Name, "error", err.Error())
			}
		}()
		log.Info("source running", "source", src.Name, "stream", src.Stream)
	}
	return wg.Wait, nil
}
