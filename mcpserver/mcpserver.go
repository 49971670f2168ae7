// Package mcpserver serves jetcompact to agents over the Model Context
// Protocol: a compact tool (text, kind and budget in; the compacted text
// and a short report out) and a retrieve tool (a reference from a fold
// marker in; exactly the original text it stands for out).
package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact/docstore"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Request is one text to compact.
type Request struct {
	Text         string
	Kind         stages.Kind // "" = detect
	BudgetTokens int         // 0 = none, or the configured default
}

// Result is a compacted text and the id its original is known by.
type Result struct {
	DocID  string
	Text   string
	Report pipeline.Report
}

// Options say how the tools compact and where originals are kept.
type Options struct {
	// Compact runs the pipeline: in process, or on a fleet.
	Compact func(ctx context.Context, req Request) (Result, error)
	// Store keeps each original so that fold markers can reference it;
	// nil: no references, and retrieve reads Original alone.
	Store *docstore.Store
	// Original reads a stored original by whole id where Store has none
	// (a cluster's originals stream); nil = Store only.
	Original func(ctx context.Context, docID string) (string, error)
	// Version is the server's version in the MCP handshake.
	Version string
}

// refPrefixMin is the shortest document id prefix a reference carries.
const refPrefixMin = 8

// CompactInput is the compact tool's arguments.
type CompactInput struct {
	Text         string `json:"text" jsonschema:"the text to compact: tool or command output, a log, CI output, JSON, HTML, a transcript"`
	Kind         string `json:"kind,omitempty" jsonschema:"log, json, html, transcript or prose; empty to detect"`
	BudgetTokens int    `json:"budget_tokens,omitempty" jsonschema:"at most this many estimated tokens in the answer (fold markers may still be retrieved); 0 for no budget"`
}

// RetrieveInput is the retrieve tool's arguments.
type RetrieveInput struct {
	Ref string `json:"ref" jsonschema:"a reference from a fold marker, such as 3f9a1c2b:L120-659, or a document id (or an unambiguous prefix of one) for the whole original"`
}

// New returns an MCP server with the compact and retrieve tools.
func New(o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "jetcompact", Title: "jetcompact", Version: o.Version}, &mcp.ServerOptions{
		Instructions: "Compact long tool output (logs, CI output, JSON, HTML, transcripts) with the compact tool before reading it. " +
			"A fold marker such as [... 540 lines folded · ref 3f9a1c2b:L120-659] stands for lines left out; " +
			"call retrieve with its ref to read exactly those lines.",
	})
	t := tools{o}
	mcp.AddTool(s, &mcp.Tool{
		Name: "compact",
		Description: "Shrink a long text (log, build or test output, JSON, HTML, transcript) while keeping errors, failures, rare lines and structure. " +
			"Returns the compacted text, whose fold markers carry a ref for the retrieve tool, and a one-line report.",
	}, t.compact)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "retrieve",
		Description: "Return exactly the original text a reference names: ID:L<from>-<to> from a fold marker, or a document id for the whole original.",
	}, t.retrieve)
	return s
}

type tools struct{ o Options }

func (t tools) compact(ctx context.Context, _ *mcp.CallToolRequest, in CompactInput) (*mcp.CallToolResult, any, error) {
	kind := stages.ParseKind(in.Kind)
	if in.Kind != "" && kind == "" {
		return nil, nil, fmt.Errorf("unknown kind %q: want log, json, html, transcript or prose, or none to detect", in.Kind)
	}
	if in.BudgetTokens < 0 {
		return nil, nil, fmt.Errorf("budget_tokens %d is negative: give a positive number of tokens, or 0 for none", in.BudgetTokens)
	}
	res, err := t.o.Compact(ctx, Request{Text: in.Text, Kind: kind, BudgetTokens: in.BudgetTokens})
	if err != nil {
		return nil, nil, err
	}
	note := ""
	if t.o.Store != nil && res.DocID != "" {
		if err := t.o.Store.Put(res.DocID, in.Text); err != nil {
			note = "; original not stored, markers carry no references: " + err.Error()
		} else {
			budget := 0
			if res.Report.Budget != nil {
				budget = res.Report.Budget.Tokens
			}
			prefix := t.o.Store.UniquePrefix(res.DocID, refPrefixMin)
			res.Text = pipeline.AddRefsWithin(in.Text, res.Text, prefix, budget, res.Report.Kind)
			if res.Report.Budget != nil {
				res.Report.Budget.TokensOut = stages.EstimateTokens(res.Text)
			}
		}
	}
	res.Report.CharsOut = stages.Chars(res.Text)
	return &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: res.Text},
		&mcp.TextContent{Text: summary(res) + note},
	}}, nil, nil
}

// summary is the one-line report: kind, sizes, tokens, what a budget
// folded, the document id.
func summary(res Result) string {
	r := res.Report
	var b strings.Builder
	fmt.Fprintf(&b, "jetcompact: %s, %d → %d chars (ratio %.3f), ~%d tokens", cmpOr(string(r.Kind), "text"), r.CharsIn, r.CharsOut, r.Ratio(), stages.EstimateTokens(res.Text))
	if bud := r.Budget; bud != nil {
		fmt.Fprintf(&b, ", budget %d", bud.Tokens)
		if len(bud.Folded) > 0 {
			b.WriteString(" folded")
			for _, c := range []string{pipeline.BudgetFailure, pipeline.BudgetRegion, pipeline.BudgetRare, pipeline.BudgetProtected, pipeline.BudgetEdge, pipeline.BudgetCommon} {
				if n := bud.Folded[c]; n > 0 {
					fmt.Fprintf(&b, " %s=%d", strings.ReplaceAll(c, " ", "_"), n)
				}
			}
		}
	}
	if r.Guard != "" && r.Guard != pipeline.GuardKeptResult {
		fmt.Fprintf(&b, "; %s", r.Guard)
	}
	if res.DocID != "" {
		fmt.Fprintf(&b, "; doc %s", res.DocID)
	}
	return b.String()
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func (t tools) retrieve(ctx context.Context, _ *mcp.CallToolRequest, in RetrieveInput) (*mcp.CallToolResult, any, error) {
	ref, err := pipeline.ParseRef(in.Ref)
	if err != nil {
		return nil, nil, err
	}
	text, err := t.original(ctx, ref.ID)
	if err != nil {
		return nil, nil, err
	}
	if ref.From > 0 {
		if text, err = ref.Slice(text); err != nil {
			return nil, nil, fmt.Errorf("reference %s: %w", in.Ref, err)
		}
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
}

// original finds a document by id or prefix in the store, else by whole
// id through Original.
func (t tools) original(ctx context.Context, prefix string) (string, error) {
	if t.o.Store != nil {
		id, err := t.o.Store.Resolve(prefix)
		if err == nil {
			return t.o.Store.Get(id)
		}
		if !errors.Is(err, docstore.ErrUnknown) || t.o.Original == nil {
			return "", err
		}
	}
	if t.o.Original == nil {
		return "", fmt.Errorf("unknown reference %q: no originals are kept (--no-store)", prefix)
	}
	text, err := t.o.Original(ctx, prefix)
	if err != nil {
		return "", fmt.Errorf("unknown reference %q: %w", prefix, err)
	}
	return text, nil
}
