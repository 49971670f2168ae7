package main

import (
	"cmp"
	"context"
	"io"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/mcpserver"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/telemetry"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serveMCP serves the MCP tools over stdin and stdout until the client
// disconnects: in process with --local, else on the embedded fleet or
// the --nats cluster, originals kept in the store as for any run.
func (a *app) serveMCP(ctx context.Context, args []string) error {
	if len(args) > 0 {
		return usagef("mcp takes no arguments; it serves MCP on stdin and stdout")
	}
	o := mcpserver.Options{Version: telemetry.VersionString(version)}
	if !a.o.noStore {
		st, err := a.openStore()
		if err != nil {
			return err
		}
		o.Store = st
	}
	if a.o.local {
		o.Compact = func(ctx context.Context, req mcpserver.Request) (mcpserver.Result, error) {
			r := a.request(req.Text)
			r.Kind, r.BudgetTokens = cmp.Or(req.Kind, r.Kind), cmp.Or(req.BudgetTokens, a.budget())
			res, err := a.pipe.Run(ctx, r)
			return mcpserver.Result{DocID: jetstream.DocumentID(req.Text, a.mcpSettings(r)), Text: res.Text, Report: res.Report}, err
		}
	} else {
		client, closeAll, err := a.fleetClient(ctx)
		if err != nil {
			return err
		}
		defer closeAll()
		o.Compact = func(ctx context.Context, req mcpserver.Request) (mcpserver.Result, error) {
			ctx, cancel := context.WithTimeout(ctx, a.o.timeout)
			defer cancel()
			r := a.request(req.Text)
			r.Kind, r.BudgetTokens = cmp.Or(req.Kind, r.Kind), cmp.Or(req.BudgetTokens, a.budget())
			res, err := client.Compact(ctx, jetstream.Document{Text: r.Text, Kind: r.Kind, Mode: r.Mode, AllowLLM: r.AllowLLM, BudgetTokens: r.BudgetTokens, Salt: a.rt.Fingerprint()})
			if err != nil {
				return mcpserver.Result{}, a.explain(err)
			}
			return mcpserver.Result{DocID: res.DocID, Text: res.Text, Report: res.Report}, nil
		}
		o.Original = client.Original
	}
	t := &mcp.IOTransport{Reader: io.NopCloser(a.stdin), Writer: nopWriteCloser{a.stdout},
		MaxLineLength: int(min(4*a.file.Fleet.MaxDocumentBytes, 1<<30))} // JSON escapes grow a text
	return mcpserver.New(o).Run(ctx, t)
}

// mcpSettings are the settings a call's text is compacted with in process.
func (a *app) mcpSettings(r pipeline.Request) jetstream.Settings {
	return jetstream.Settings{Kind: r.Kind, Mode: r.Mode, AllowLLM: r.AllowLLM, Config: a.rt.Fingerprint(), Budget: r.BudgetTokens}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
