package main

import (
	"context"
	"io"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func mcpText(t *testing.T, res *mcp.CallToolResult) []string {
	t.Helper()
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	if res.IsError {
		t.Fatalf("tool error: %q", out)
	}
	return out
}

// checkRefs retrieves every reference in compacted through the session
// and compares it with the original's lines.
func checkMCPRefs(t *testing.T, ctx context.Context, cs *mcp.ClientSession, original, compacted string) {
	t.Helper()
	refs := refInOutput.FindAllStringSubmatch(compacted, -1)
	if len(refs) == 0 {
		t.Fatalf("no reference in:\n%s", compacted)
	}
	lines := strings.SplitAfter(original, "\n")
	for _, m := range refs {
		from, _ := strconv.Atoi(m[2])
		to, _ := strconv.Atoi(m[3])
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "retrieve", Arguments: map[string]any{"ref": m[1]}})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := mcpText(t, res)[0], strings.Join(lines[from-1:to], ""); got != want {
			t.Errorf("retrieve %s: %d bytes, want lines %d-%d", m[1], len(got), from, to)
		}
	}
}

// TestMCPBinaryOverStdio: the built publisher answers tools/list and a
// tools/call of compact over stdio, as an agent starts it.
func TestMCPBinaryOverStdio(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the binary")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "publisher")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.Command(bin, "mcp", "--local", "--store-dir", filepath.Join(dir, "state"))
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got := cs.InitializeResult().ServerInfo.Name; got != "jetcompact" {
		t.Errorf("server name %q", got)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Tools) != 2 {
		t.Fatalf("tools/list: %d tools", len(list.Tools))
	}
	text := roundTripLog()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "compact", Arguments: map[string]any{"text": text, "budget_tokens": 2000}})
	if err != nil {
		t.Fatal(err)
	}
	out := mcpText(t, res)
	if tokens := stages.EstimateTokens(out[0]); tokens > 2000 || len(out[0]) >= len(text) {
		t.Errorf("compact: %d tokens for a budget of 2000", tokens)
	}
	if !strings.Contains(out[0], "FAIL: TestCheckout") || !strings.Contains(out[1], "budget 2000") {
		t.Errorf("compact lost the failure or the report: %q", out[1])
	}
	checkMCPRefs(t, ctx, cs, text, out[0])
}

// TestMCPOnTheEmbeddedFleet: without --local the tools run on the
// embedded fleet, and give what --local gives.
func TestMCPOnTheEmbeddedFleet(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	var errb lockedBuffer
	go func() {
		done <- run(ctx, []string{"mcp", "--store-dir", t.TempDir()}, inR, outW, &errb)
		outW.Close()
	}()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, nil)
	if err != nil {
		t.Fatal(err)
	}
	text := roundTripLog()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "compact", Arguments: map[string]any{"text": text, "budget_tokens": 400}})
	if err != nil {
		t.Fatal(err)
	}
	out := mcpText(t, res)
	local, _, err := runPublisher(t, text, "--local", "--budget-tokens", "400", "--store-dir", t.TempDir(), "-")
	if err != nil {
		t.Fatal(err)
	}
	// The same lines, the same markers; only the document ids differ
	// (a call's id is salted with its kind and budget).
	maskIDs := regexp.MustCompile(`ref [0-9a-f]+:`)
	if maskIDs.ReplaceAllString(out[0], "ref ID:") != maskIDs.ReplaceAllString(local, "ref ID:") {
		t.Errorf("the embedded fleet through MCP differs from --local:\n%s\n---\n%s", out[0], local)
	}
	checkMCPRefs(t, ctx, cs, text, out[0])
	cs.Close()
	if err := <-done; err != nil {
		t.Errorf("mcp: %v\n%s", err, errb.String())
	}
}
