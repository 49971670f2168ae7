package main

import (
	"context"
	"log/slog"

	"github.com/jetcompact/jetcompact/config"
	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
)

// startService serves the jetcompact micro service (<prefix>.compact and
// <prefix>.get) on nc unless disabled, its document ids derived with the
// runtime's config fingerprint; the returned function stops it. A
// service that cannot start (a user without its permissions) is logged,
// and the worker runs its segments without it.
func startService(ctx context.Context, nc *nats.Conn, js njs.JetStream, file config.File, fingerprint string, enabled bool, log *slog.Logger) func() {
	if !enabled {
		return func() {}
	}
	client, err := jetstream.NewClient(ctx, js, file.Fleet)
	if err != nil {
		log.Warn("service not started", "name", jetstream.ServiceName, "error", err.Error())
		return func() {}
	}
	svc, err := jetstream.NewService(client, fingerprint).Serve(nc, version)
	if err != nil {
		client.Close()
		log.Warn("service not started", "name", jetstream.ServiceName, "error", err.Error())
		return func() {}
	}
	log.Info("service running", "name", jetstream.ServiceName, "subjects", file.Fleet.Prefix+".{compact,get}")
	return func() { _ = svc.Stop(); client.Close() }
}
