package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// startService serves the jetcompact micro service (<prefix>.compact and
// <prefix>.get) on nc unless disabled; the returned function stops it.
func startService(ctx context.Context, nc *nats.Conn, js njs.JetStream, file config.File, enabled bool, log *slog.Logger) (func(), error) {
	if !enabled {
		return func() {}, nil
	}
	client, err := jetstream.NewClient(ctx, js, file.Fleet)
	if err != nil {
		return nil, fmt.Errorf("service: %w", err)
	}
	salt := fmt.Sprintf("%s|%v|%+v", version, file.Pipeline.Nodes, file.Pipeline.Options)
	svc, err := jetstream.NewService(client, salt).Serve(nc, version)
	if err != nil {
		client.Close()
		return nil, fmt.Errorf("service: %w", err)
	}
	log.Info("service running", "name", jetstream.ServiceName, "subjects", file.Fleet.Prefix+".{compact,get}")
	return func() { _ = svc.Stop(); client.Close() }, nil
}
