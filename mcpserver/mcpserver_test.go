package mcpserver

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jetcompact/jetcompact/docstore"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// session connects the SDK's client to a server over in-memory
// transports, the pipeline in process and originals in a temporary store.
func session(t *testing.T) (*mcp.ClientSession, *docstore.Store) {
	t.Helper()
	pipe, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	store, err := docstore.Open(t.TempDir(), 1<<30, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	server := New(Options{
		Compact: func(ctx context.Context, req Request) (Result, error) {
			res, err := pipe.Run(ctx, pipeline.Request{Text: req.Text, Kind: req.Kind, BudgetTokens: req.BudgetTokens})
			sum := sha256.Sum256([]byte(strconv.Itoa(req.BudgetTokens) + "|" + req.Text))
			return Result{DocID: hex.EncodeToString(sum[:16]), Text: res.Text, Report: res.Report}, err
		},
		Store:   store,
		Version: "v0.0.1-test",
	})
	serverT, clientT := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := server.Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, store
}

// notes is n lines of distinct prose: nothing repeats, so only a budget
// folds it.
func notes(n int) string {
	words := strings.Fields("alpha bravo cedar delta ember falcon garnet harbor island juniper kettle lantern meadow nectar orchard pepper quartz river saddle timber umber velvet willow yonder zephyr")
	var b strings.Builder
	for j := range n {
		fmt.Fprintf(&b, "Note %d:", j)
		for k := range 9 {
			b.WriteString(" " + words[(j*7+k*k*3+j/5)%len(words)])
		}
		b.WriteString(".\n")
	}
	return b.String()
}

func texts(res *mcp.CallToolResult) []string {
	var out []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out = append(out, tc.Text)
		}
	}
	return out
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return res
}

var refRe = regexp.MustCompile(`ref ([0-9a-f]{8,}):L(\d+)-(\d+)\]`)

func TestToolsThroughTheSDKClient(t *testing.T) {
	cs, _ := session(t)
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		schema, _ := json.Marshal(tool.InputSchema)
		for _, field := range map[string][]string{"compact": {"text", "kind", "budget_tokens"}, "retrieve": {"ref"}}[tool.Name] {
			if !strings.Contains(string(schema), `"`+field+`"`) {
				t.Errorf("%s: no %s in the input schema %s", tool.Name, field, schema)
			}
		}
	}
	slices.Sort(names)
	if !slices.Equal(names, []string{"compact", "retrieve"}) {
		t.Fatalf("tools %v", names)
	}

	text := notes(300)
	res := call(t, cs, "compact", map[string]any{"text": text, "kind": "prose", "budget_tokens": 200})
	out := texts(res)
	if res.IsError || len(out) != 2 {
		t.Fatalf("compact: error %v, content %q", res.IsError, out)
	}
	if tokens := stages.EstimateTokens(out[0]); tokens > 200 {
		t.Errorf("%d tokens, above the budget of 200", tokens)
	}
	if !strings.Contains(out[1], "budget 200 folded") || !strings.Contains(out[1], "prose") {
		t.Errorf("report %q", out[1])
	}
	refs := refRe.FindAllStringSubmatch(out[0], -1)
	if len(refs) == 0 {
		t.Fatalf("no reference in:\n%s", out[0])
	}
	lines := strings.SplitAfter(text, "\n")
	for _, m := range refs {
		from, _ := strconv.Atoi(m[2])
		to, _ := strconv.Atoi(m[3])
		got := call(t, cs, "retrieve", map[string]any{"ref": m[1] + ":L" + m[2] + "-" + m[3]})
		if want := strings.Join(lines[from-1:to], ""); got.IsError || texts(got)[0] != want {
			t.Errorf("retrieve %s: %q, want lines %d-%d", m[0], texts(got), from, to)
		}
	}
	whole := call(t, cs, "retrieve", map[string]any{"ref": refs[0][1]})
	if whole.IsError || texts(whole)[0] != text {
		t.Errorf("retrieve %s: not the whole original", refs[0][1])
	}
	// Without a budget the text still compacts (its report says so).
	plain := texts(call(t, cs, "compact", map[string]any{"text": strings.Repeat("2024-05-01 12:00:00 INFO request served in 5ms\n", 300)}))
	if len(plain[0]) > 1000 || !strings.Contains(plain[1], "log") {
		t.Errorf("a repeated log: %q", plain)
	}
}

func TestToolErrorsSayWhy(t *testing.T) {
	cs, store := session(t)
	for _, tc := range []struct {
		tool string
		args map[string]any
		want string
	}{
		{"compact", map[string]any{"text": "x", "kind": "yaml"}, `"yaml"`},
		{"compact", map[string]any{"text": "x", "budget_tokens": -3}, "-3"},
		{"retrieve", map[string]any{"ref": "deadbeef:L1-2"}, "deadbeef"},
		{"retrieve", map[string]any{"ref": "abc"}, "abc1" + strings.Repeat("0", 28)},
		{"retrieve", map[string]any{"ref": "abc1" + strings.Repeat("0", 28) + ":L9-12"}, "past the end"},
		{"retrieve", map[string]any{"ref": "abc:Lx"}, "ID:L<from>-<to>"},
	} {
		if tc.want == "abc1"+strings.Repeat("0", 28) {
			// Two stored ids share the prefix: the error lists both.
			for _, id := range []string{"abc1" + strings.Repeat("0", 28), "abc2" + strings.Repeat("0", 28)} {
				if err := store.Put(id, "one\ntwo\n"); err != nil {
					t.Fatal(err)
				}
			}
		}
		res := call(t, cs, tc.tool, tc.args)
		if out := strings.Join(texts(res), "\n"); !res.IsError || !strings.Contains(out, tc.want) {
			t.Errorf("%s %v: error %v, %q; want an error saying %s", tc.tool, tc.args, res.IsError, out, tc.want)
		}
	}
}
