package transcripts_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

// textOfRunes returns a text of exactly n runes: numbered 100-rune lines
// and a last line padded with 'é' (two bytes, one rune).
func textOfRunes(tag string, n int) string {
	var b strings.Builder
	written, line := 0, 0
	for written+100 <= n {
		line++
		l := fmt.Sprintf("%s line %d ", tag, line)
		l += strings.Repeat("x", 99-len(l)) + "\n"
		b.WriteString(l)
		written += 100
	}
	b.WriteString(strings.Repeat("é", n-written))
	return b.String()
}

func debateOf(sizes ...int) transcripts.Debate {
	d := transcripts.Debate{Question: "q", Mode: transcripts.ModeCompare}
	for i, n := range sizes {
		d.Answers = append(d.Answers, transcripts.Answer{
			Model: fmt.Sprintf("m%d", i), Priority: i + 1, ResponseRaw: textOfRunes(fmt.Sprintf("a%d", i), n),
		})
	}
	return d
}

func compress(t *testing.T, d transcripts.Debate, c transcripts.DebateConfig) (transcripts.Debate, transcripts.DebateReport) {
	t.Helper()
	out, rep, err := transcripts.CompressDebate(context.Background(), d, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	return out, rep
}

func TestGateIsSixtyThousandCharsInclusive(t *testing.T) {
	c := transcripts.DefaultDebateConfig()
	if got := c.GateChars(); got != 60000 {
		t.Fatalf("gate %d, want 60000 = 0.6 × 100000", got)
	}
	for _, tc := range []struct {
		total    int
		compress bool
	}{{59999, false}, {60000, true}, {60001, true}} {
		d := debateOf(20000, 20000, tc.total-40000)
		out, rep := compress(t, d, c)
		if rep.Gate.TotalChars != tc.total {
			t.Fatalf("total %d chars, want %d", rep.Gate.TotalChars, tc.total)
		}
		if rep.Gate.Compress != tc.compress {
			t.Errorf("%d chars: compress=%v, want %v (%s)", tc.total, rep.Gate.Compress, tc.compress, rep.Gate.Reason)
		}
		compressed := out.Answers[2].ResponseCompressed != ""
		if compressed != tc.compress {
			t.Errorf("%d chars: third answer compressed=%v, want %v", tc.total, compressed, tc.compress)
		}
		for i := range 2 {
			if out.Answers[i].ResponseCompressed != "" {
				t.Errorf("%d chars: top-2 answer %d was compressed", tc.total, i)
			}
		}
	}
}

func TestGateFollowsWindowAndRatio(t *testing.T) {
	c := transcripts.DefaultDebateConfig()
	c.WindowChars, c.GateRatio = 50000, 0.5
	if c.GateChars() != 25000 {
		t.Fatalf("gate %d, want 25000", c.GateChars())
	}
	_, rep := compress(t, debateOf(10000, 10000, 4999), c)
	if rep.Gate.Compress {
		t.Errorf("24,999 chars compressed under a 25,000 gate")
	}
	_, rep = compress(t, debateOf(10000, 10000, 5000), c)
	if !rep.Gate.Compress {
		t.Errorf("25,000 chars not compressed under a 25,000 gate")
	}
	c.GateRatio = 0
	if err := c.Validate(); !errors.Is(err, transcripts.ErrInvalid) {
		t.Errorf("ratio 0: %v, want ErrInvalid", err)
	}
}

func TestSeatingKeepsTopTwoVerbatim(t *testing.T) {
	mk := func(mode transcripts.DebateMode) transcripts.Debate {
		d := debateOf(30000, 30000, 30000, 30000, 30000)
		d.Mode = mode
		scores := [][]float64{{1, 1}, {5, 4}, {2, 2}, {3, 6}, {4, 0}} // totals 2, 9, 4, 9, 4
		prio := []int{3, 5, 1, 4, 2}
		for i := range d.Answers {
			d.Answers[i].ReviewScores = scores[i]
			d.Answers[i].Priority = prio[i]
		}
		return d
	}
	for _, tc := range []struct {
		mode     transcripts.DebateMode
		seating  []int
		verbatim []int
	}{
		// Totals 9, 9 (input order kept), then 4, 4, then 2.
		{transcripts.ModeDebate, []int{1, 3, 2, 4, 0}, []int{1, 3}},
		// Priorities 1, 2, 3, 4, 5.
		{transcripts.ModeCompare, []int{2, 4, 0, 3, 1}, []int{2, 4}},
	} {
		d := mk(tc.mode)
		if got := transcripts.Seating(d, tc.mode); !reflect.DeepEqual(got, tc.seating) {
			t.Errorf("%s seating %v, want %v", tc.mode, got, tc.seating)
		}
		out, rep := compress(t, d, transcripts.DefaultDebateConfig())
		for i, a := range out.Answers {
			verbatim := i == tc.verbatim[0] || i == tc.verbatim[1]
			if verbatim != (a.ResponseCompressed == "") {
				t.Errorf("%s: answer %d compressed=%v, want verbatim=%v", tc.mode, i, a.ResponseCompressed != "", verbatim)
			}
		}
		for seat, ar := range rep.Answers {
			if ar.Index != tc.seating[seat] || ar.Seat != seat+1 {
				t.Errorf("%s: report seat %d is answer %d", tc.mode, seat+1, ar.Index)
			}
		}
	}
}

func TestEmptyModeIsInferred(t *testing.T) {
	d := debateOf(10)
	d.Mode = ""
	if m, _ := d.EffectiveMode(); m != transcripts.ModeCompare {
		t.Errorf("no scores: mode %s, want compare", m)
	}
	d.Answers[0].ReviewScores = []float64{1}
	if m, _ := d.EffectiveMode(); m != transcripts.ModeDebate {
		t.Errorf("scores: mode %s, want debate", m)
	}
	d.Mode = "vote"
	if _, _, err := transcripts.CompressDebate(context.Background(), d, transcripts.DefaultDebateConfig(), nil); !errors.Is(err, transcripts.ErrInvalid) {
		t.Errorf("mode vote: %v, want ErrInvalid", err)
	}
}

// fortyLines is an answer whose middle (lines 16-30) holds four key lines.
func fortyLines() (raw string, head, tail []string) {
	for i := 1; i <= 15; i++ {
		head = append(head, fmt.Sprintf("head %d", i))
	}
	middle := []string{
		"plain middle text",
		"## Architecture: the queue sits between the gateway and the workers, always",
		"more plain text",
		"- bullet kept",
		"  3. numbered item, indented",
		"**Bold conclusion:** ship it",
		"* a fifth key line that must not appear",
	}
	for len(middle) < 15 {
		middle = append(middle, "filler")
	}
	for i := 31; i <= 40; i++ {
		tail = append(tail, fmt.Sprintf("tail %d", i))
	}
	lines := append(append(append([]string{}, head...), middle...), tail...)
	return strings.Join(lines, "\n"), head, tail
}

func TestStructuralHeadTailKeyPoints(t *testing.T) {
	raw, head, tail := fortyLines()
	res := transcripts.CompressStructural(raw, transcripts.DefaultDebateConfig())
	if !res.Changed {
		t.Fatalf("not compressed: %s", res.Reason)
	}
	marker := "[... 15 lines compressed. Key points: Architecture: the queue sits between the gateway and the wor; bullet kept; numbered item, indented ...]"
	want := strings.Join(head, "\n") + "\n" + marker + "\n" + strings.Join(tail, "\n")
	if res.Text != want {
		t.Errorf("got\n%s\nwant\n%s", res.Text, want)
	}
	for _, p := range res.KeyPoints {
		if n := stages.Chars(p); n > 60 {
			t.Errorf("key point %q has %d chars, want <= 60", p, n)
		}
	}
	if len(res.KeyPoints) != 3 || stages.Chars(res.KeyPoints[0]) != 60 {
		t.Errorf("key points %q: want 3, the first cut to exactly 60 chars", res.KeyPoints)
	}
}

func TestStructuralShortAnswerUnchanged(t *testing.T) {
	raw := strings.Repeat("line\n", 24) + "last" // 25 lines = 15 + 10
	res := transcripts.CompressStructural(raw, transcripts.DefaultDebateConfig())
	if res.Changed || res.Text != raw {
		t.Errorf("a 25-line answer was changed: %q", res.Text)
	}
}

func TestCodeBlocksSurviveByteExact(t *testing.T) {
	blocks := []string{
		"```go\nfunc main() {\n\tfmt.Println(\"head\")  \n}\n```",
		"```python\n# not a heading\n- not a bullet\n**not bold**\nx = 1\t\r\n```",
		"~~~\nplain tilde fence\n\n\nwith blank lines\n~~~",
		"````\nnested ``` inside\n````",
	}
	var lines []string
	lines = append(lines, "intro", blocks[0])
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("text %d", i))
	}
	lines = append(lines, blocks[1], "- real key line", blocks[2])
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("more %d", i))
	}
	lines = append(lines, blocks[3], "end")
	raw := strings.Join(lines, "\n")
	d := transcripts.Debate{Mode: transcripts.ModeCompare, Answers: []transcripts.Answer{
		{Model: "a", Priority: 1, ResponseRaw: "one"},
		{Model: "b", Priority: 2, ResponseRaw: "two"},
		{Model: "c", Priority: 3, ResponseRaw: raw},
	}}
	c := transcripts.DefaultDebateConfig()
	c.GateRatio = 1e-9 // force the gate open; the window stays large
	out, rep := compress(t, d, c)
	got := out.Answers[2].ResponseCompressed
	if got == "" {
		t.Fatalf("not compressed: %+v", rep.Answers)
	}
	for i, b := range blocks {
		if !strings.Contains(got, b) {
			t.Errorf("code block %d lost or changed:\n%q\nin\n%q", i, b, got)
		}
	}
	if rep.Answers[2].CodeBlocks != 4 {
		t.Errorf("report counts %d code blocks, want 4", rep.Answers[2].CodeBlocks)
	}
	if !strings.Contains(got, "Key points: real key line ...]") {
		t.Errorf("key points taken from inside code blocks:\n%s", got)
	}
}

func TestIndentedFencesSurvive(t *testing.T) {
	indented := "1. Install it:\n   ```bash\n   pip install foo\n\n   foo --init\n   ```"
	looseClose := "```js\nconsole.log(1)\n  ```"
	var lines []string
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	lines = append(lines, indented, looseClose)
	for i := 0; i < 20; i++ {
		lines = append(lines, fmt.Sprintf("after %d", i))
	}
	res := transcripts.CompressStructural(strings.Join(lines, "\n"), transcripts.DefaultDebateConfig())
	if !res.Changed || res.CodeBlocks != 2 {
		t.Fatalf("changed %v, %d code blocks: %s", res.Changed, res.CodeBlocks, res.Reason)
	}
	for _, b := range []string{indented[len("1. Install it:\n"):], looseClose} {
		if !strings.Contains(res.Text, b) {
			t.Errorf("block lost:\n%s\nin\n%s", b, res.Text)
		}
	}
}

func TestPlaceholderRunesKeepAnswerVerbatim(t *testing.T) {
	raw := strings.Repeat("line\n", 40) + "\uE000 odd"
	if res := transcripts.CompressStructural(raw, transcripts.DefaultDebateConfig()); res.Changed {
		t.Errorf("an answer holding placeholder runes was folded")
	}
}

func TestRawNeverModified(t *testing.T) {
	raw, _, _ := fortyLines()
	d := transcripts.Debate{Mode: transcripts.ModeCompare}
	for i := range 4 {
		d.Answers = append(d.Answers, transcripts.Answer{Model: fmt.Sprint(i), Priority: i, ResponseRaw: raw})
	}
	before, _ := json.Marshal(d)
	c := transcripts.DefaultDebateConfig()
	c.GateRatio = 1e-9
	out, _ := compress(t, d, c)
	after, _ := json.Marshal(d)
	if string(before) != string(after) {
		t.Errorf("CompressDebate modified its input")
	}
	for i, a := range out.Answers {
		if a.ResponseRaw != raw {
			t.Errorf("answer %d: response_raw changed", i)
		}
	}
	view := transcripts.ChairmanView(out)
	if view[0] != raw || view[1] != raw || view[2] != out.Answers[2].ResponseCompressed || view[3] != out.Answers[3].ResponseCompressed {
		t.Errorf("chairman view is not response_compressed ?? response_raw")
	}
	// Running again on the output gives the same output.
	again, _ := compress(t, out, c)
	if !reflect.DeepEqual(again, out) {
		t.Errorf("second run changed the output")
	}
}

func TestCharCounts(t *testing.T) {
	raw, _, _ := fortyLines()
	d := transcripts.Debate{Mode: transcripts.ModeCompare, Answers: []transcripts.Answer{
		{Model: "a", Priority: 1, ResponseRaw: "tiny"},
		{Model: "b", Priority: 2, ResponseRaw: "tiny"},
		{Model: "c", Priority: 3, ResponseRaw: raw},
	}}
	c := transcripts.DefaultDebateConfig()
	c.GateRatio = 1e-9
	out, rep := compress(t, d, c)
	counts := transcripts.CharCounts(out)
	if counts[0].CharsIn != 4 || counts[0].CharsOut != 4 || counts[0].Compressed {
		t.Errorf("answer a: %+v", counts[0])
	}
	if counts[2].CharsIn != stages.Chars(raw) || counts[2].CharsOut >= counts[2].CharsIn || !counts[2].Compressed {
		t.Errorf("answer c: %+v", counts[2])
	}
	if rep.CharsIn != 8+stages.Chars(raw) || rep.CharsOut != 8+counts[2].CharsOut {
		t.Errorf("report totals %d -> %d", rep.CharsIn, rep.CharsOut)
	}
}

func TestUnknownFieldsSurviveJSON(t *testing.T) {
	in := `{"question":"Which cache?","mode":"debate","round":3,"meta":{"run":"r1"},
	"answers":[{"model":"a","priority":1,"review_scores":[4,5],"response_raw":"x","latency_ms":812,"tags":["fast"]},
	{"model":"b","priority":2,"review_scores":[1],"response_raw":"y","response_compressed":"stale"}]}`
	d, err := transcripts.ParseDebate(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	out, _ := compress(t, d, transcripts.DefaultDebateConfig())
	b, err := json.Marshal(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["round"] != 3.0 || !reflect.DeepEqual(got["meta"], map[string]any{"run": "r1"}) {
		t.Errorf("top-level unknown fields lost: %s", b)
	}
	answers := got["answers"].([]any)
	a0 := answers[0].(map[string]any)
	if a0["latency_ms"] != 812.0 || !reflect.DeepEqual(a0["tags"], []any{"fast"}) || a0["response_raw"] != "x" {
		t.Errorf("answer unknown fields lost: %s", b)
	}
	if _, ok := answers[1].(map[string]any)["response_compressed"]; ok {
		t.Errorf("a stale response_compressed survived a run below the gate: %s", b)
	}
}

func TestNoTalliesIntroduced(t *testing.T) {
	var lines []string
	for i := 0; i < 15; i++ {
		lines = append(lines, fmt.Sprintf("opening %d", i))
	}
	lines = append(lines,
		"- Two of the reviewers preferred Redis",
		"- The cache said nothing about eviction",
		"Three agents argued for sharding.",
		"## Trade-offs",
		"filler", "filler", "filler",
	)
	for i := 0; i < 10; i++ {
		lines = append(lines, fmt.Sprintf("closing %d", i))
	}
	raw := strings.Join(lines, "\n")
	res := transcripts.CompressStructural(raw, transcripts.DefaultDebateConfig())
	if !res.Changed {
		t.Fatal(res.Reason)
	}
	if added := transcripts.IntroducedTallies(raw, res.Text); len(added) > 0 {
		t.Errorf("compression introduced tallies %q:\n%s", added, res.Text)
	}
	// The detector itself sees what a careless summary would add.
	added := transcripts.IntroducedTallies(raw, res.Text+"\nThis was said 4 times; 3 agents agree; everyone agreed.")
	if len(added) < 3 {
		t.Errorf("detector missed added tallies: %q", added)
	}
}

// fakeChat answers from a function and records every prompt.
type fakeChat struct {
	answer  func(n int, system, user string) (string, error)
	systems []string
	users   []string
}

func (f *fakeChat) Complete(ctx context.Context, system, user string, maxTokens int) (string, error) {
	f.systems = append(f.systems, system)
	f.users = append(f.users, user)
	return f.answer(len(f.users), system, user)
}

func TestLLMPathBehindGates(t *testing.T) {
	var lines []string
	for i := 0; i < 60; i++ {
		lines = append(lines, fmt.Sprintf("reasoning line %d with some words", i))
	}
	code := "```sh\nmake test\n```"
	lines = append(lines[:30], append([]string{code}, lines[30:]...)...)
	raw := strings.Join(lines, "\n")
	d := transcripts.Debate{Question: "How?", Mode: transcripts.ModeCompare, Answers: []transcripts.Answer{
		{Model: "a", Priority: 1, ResponseRaw: "x"},
		{Model: "b", Priority: 2, ResponseRaw: "y"},
		{Model: "c", Priority: 3, ResponseRaw: raw},
	}}
	c := transcripts.DefaultDebateConfig()
	c.GateRatio = 1e-9
	good := &fakeChat{answer: func(int, string, string) (string, error) {
		return "- Core argument: run the tests first.\n- Risk: flaky suite.", nil
	}}
	lookup := func(name string) transcripts.ChatModel {
		if name == "c" {
			return good
		}
		return nil
	}

	// Gate 1 and 2 closed: structural, no call.
	out, rep, err := transcripts.CompressDebate(context.Background(), d, c, lookup)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Answers[2].Method != transcripts.MethodStructural || len(good.users) != 0 || !strings.Contains(rep.LLMGate, "gate 1") {
		t.Fatalf("closed gates: method %s, %d calls, gate %q", rep.Answers[2].Method, len(good.users), rep.LLMGate)
	}
	c.AllowLLM = true
	_, rep, _ = transcripts.CompressDebate(context.Background(), d, c, lookup)
	if !strings.Contains(rep.LLMGate, "gate 2") {
		t.Errorf("algorithmic mode: gate %q", rep.LLMGate)
	}

	// All gates open: the answer's own model summarises; code is appended.
	c.Mode = stages.ModeHybrid
	out, rep, err = transcripts.CompressDebate(context.Background(), d, c, lookup)
	if err != nil {
		t.Fatal(err)
	}
	got := out.Answers[2].ResponseCompressed
	if rep.Answers[2].Method != transcripts.MethodLLM || !strings.HasPrefix(got, "- Core argument") || !strings.HasSuffix(got, code) {
		t.Errorf("llm path: method %s, text %q", rep.Answers[2].Method, got)
	}
	if len(good.users) != 1 || !strings.Contains(good.systems[0], "3 to 5") || !strings.Contains(good.users[0], raw) {
		t.Errorf("prompt did not ask the answer's model for its core arguments")
	}

	// Failures fall back to the structural compression, with the reason.
	for name, answer := range map[string]func(int, string, string) (string, error){
		"error":   func(int, string, string) (string, error) { return "", errors.New("HTTP 503") },
		"empty":   func(int, string, string) (string, error) { return "  ", nil },
		"tallies": func(int, string, string) (string, error) { return "Three agents agreed with this.", nil },
		"longer":  func(int, string, string) (string, error) { return raw + raw, nil },
	} {
		bad := &fakeChat{answer: answer}
		out, rep, err := transcripts.CompressDebate(context.Background(), d, c, transcripts.SameModel(bad))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		ar := rep.Answers[2]
		if ar.Method != transcripts.MethodStructural || ar.Reason == "" || out.Answers[2].ResponseCompressed == "" {
			t.Errorf("%s: method %s reason %q", name, ar.Method, ar.Reason)
		}
		if !strings.Contains(out.Answers[2].ResponseCompressed, code) {
			t.Errorf("%s: code block lost in the fallback", name)
		}
	}

	// No model for the name: structural, reported.
	_, rep, _ = transcripts.CompressDebate(context.Background(), d, c, func(string) transcripts.ChatModel { return nil })
	if rep.Answers[2].Method != transcripts.MethodStructural || !strings.Contains(rep.Answers[2].Reason, "no model") {
		t.Errorf("no model: %+v", rep.Answers[2])
	}
}

func TestCompressDebateHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, _, err := transcripts.CompressDebate(ctx, debateOf(70000), transcripts.DefaultDebateConfig(), nil)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
}
