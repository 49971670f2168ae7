package stages_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

func compactAll(t *testing.T, text string) (string, stages.Kind) {
	t.Helper()
	p, err := pipeline.New(pipeline.DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.CompactAlgorithmic(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text, stages.Detect(text)
}

// aiderHistory generates an aider-style chat history as aider writes it
// (seeded, so prose, files and tool output vary): requests, one repeated
// now and then; the assistant's prose around its edits; edit blocks in
// every format aider writes (SEARCH/REPLACE fenced with ```, ~~~ or
// <source>, unified diffs), several on one file; aider's status lines
// (tokens and cost, applied edits, commits, questions); lint reports,
// failed-match reports and test runs quoted with "> ".
func aiderHistory(turns int) (text string, blocks, requests []string) {
	r := rand.New(rand.NewPCG(uint64(turns), 14))
	pick := func(xs ...string) string { return xs[r.IntN(len(xs))] }
	files := []string{"src/parser.py", "src/lexer.py", "tests/test_parser.py", "src/cli/main.py", "docs/usage.md", "src/util/io.py"}
	nouns := strings.Fields("parser lexer token stream buffer handler option flag cache reader writer config session error message test fixture loop")
	noun := func() string { return nouns[r.IntN(len(nouns))] }
	sentence := func() string {
		return pick(
			fmt.Sprintf("We need to update the %s so that the %s is created only once.", noun(), noun()),
			fmt.Sprintf("The %s currently reads the whole %s before it checks the %s, which is why the %s fails.", noun(), noun(), noun(), noun()),
			fmt.Sprintf("This keeps the old behaviour for callers that pass a %s and adds a %s for the new case.", noun(), noun()),
			fmt.Sprintf("I'll move the %s check into its own function and call it from the %s.", noun(), noun()),
			fmt.Sprintf("Note that the %s must be closed before the %s is flushed, otherwise the last %s is lost.", noun(), noun(), noun()),
			fmt.Sprintf("To handle an empty %s we return early and log a %s instead of raising.", noun(), noun()),
		)
	}
	var b strings.Builder
	session := 0.0
	b.WriteString("\n# aider chat started at 2024-05-01 10:00:00\n\n> /usr/local/bin/aider --model gpt-4o  \n> Aider v0.50.1  \n> Models: gpt-4o with diff edit format, weak model gpt-4o-mini  \n> Git repo: .git with 142 files  \n> Repo-map: using 1024 tokens, auto refresh  \n> Use /help <question> for help, run \"aider --help\" to see cmd line args  \n\n")
	for i := range turns {
		req := fmt.Sprintf("#### please make step %d of the refactor: %s the %s in %s", i, pick("split", "rename", "simplify", "fix"), noun(), files[r.IntN(len(files))])
		if i%7 == 6 {
			req = "#### run the tests again and fix what fails"
		}
		requests = append(requests, req)
		b.WriteString(req + "  \n\n")
		if r.IntN(4) == 0 {
			f := files[r.IntN(len(files))]
			fmt.Fprintf(&b, "> %s  \n> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  \n\n", f)
		}
		for range 1 + r.IntN(2) {
			for range 1 + r.IntN(3) {
				b.WriteString(sentence() + " ")
			}
			b.WriteString("\n\n")
		}
		if r.IntN(2) == 0 {
			fmt.Fprintf(&b, "1. %s\n2. %s\n\n", sentence(), sentence())
		}
		b.WriteString(pick("Here are the *SEARCH/REPLACE* blocks:", "Here are the changes:", "Here is the edit:") + "\n\n")
		nblk := 1 + r.IntN(3)
		var edited []string
		var sent []string // the SEARCH/REPLACE bodies of this reply
		for k := range nblk {
			file := files[(i+k)%len(files)]
			edited = append(edited, file)
			var body strings.Builder
			for l := range 3 + r.IntN(8) {
				fmt.Fprintf(&body, "%s%s_%d = self.%s(%d)\n", strings.Repeat("    ", 1+l%3), noun(), l, noun(), i)
			}
			var blk string
			switch (i + k) % 4 {
			case 0:
				blk = fmt.Sprintf("%s\n```python\n<<<<<<< SEARCH\n    def step_%d(self):\n%s=======\n    def step_%d(self):\n%s        return self.parse(%d)\n>>>>>>> REPLACE\n```", file, i, body.String(), i, body.String(), i)
			case 1:
				blk = fmt.Sprintf("%s\n<source>python\n<<<<<<< SEARCH\n        x = %d\n%s=======\n        x = %d  # fixed\n%s>>>>>>> REPLACE\n</source>", file, i, body.String(), i+1, body.String())
			case 2:
				blk = fmt.Sprintf("%s\n~~~python\n<<<<<<< SEARCH\nimport os\n=======\nimport os\nimport sys  # step %d\n%s>>>>>>> REPLACE\n~~~", file, i, body.String())
			default:
				blk = fmt.Sprintf("```diff\n--- %s\n+++ %s\n@@ -1,3 +1,3 @@\n def f():\n-    return %d\n+    return %d\n```", file, file, i, i+1)
			}
			blocks = append(blocks, blk)
			b.WriteString(blk + "\n\n")
			if at := strings.Index(blk, "<<<<<<< SEARCH"); at >= 0 {
				sent = append(sent, blk[at:strings.Index(blk, ">>>>>>> REPLACE")+len(">>>>>>> REPLACE")])
			}
		}
		if r.IntN(3) == 0 {
			b.WriteString(sentence() + "\n\n")
		}
		msg := 2.0 + float64(r.IntN(300))/10
		session += msg / 100
		fmt.Fprintf(&b, "> Tokens: %.1fk sent, %d received. Cost: $%.2f message, $%.2f session.  \n", msg, 100+r.IntN(900), msg/100, session)
		for _, f := range edited {
			fmt.Fprintf(&b, "> Applied edit to %s  \n", f)
		}
		fmt.Fprintf(&b, "> Commit %07x %s: %s the %s for step %d  \n", 0xabc000+i*37, pick("feat", "fix", "refactor"), pick("split", "rename", "simplify"), noun(), i)
		if r.IntN(3) == 0 {
			b.WriteString("> You can use /undo to undo and discard each aider commit.  \n")
		}
		b.WriteString("\n")
		switch {
		case i%7 == 6:
			fmt.Fprintf(&b, "#### /run pytest -q  \n\n")
			requests = append(requests, "#### /run pytest -q")
			n := 30 + r.IntN(120)
			for k := range n {
				fmt.Fprintf(&b, "> tests/test_parser.py::test_case_%03d PASSED [%3d%%]  \n", k, k*100/n)
			}
			fmt.Fprintf(&b, "> tests/test_parser.py::test_step_%d FAILED - AssertionError: expected 3  \n> 1 failed, %d passed in 2.31s  \n> Add command output to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  \n> Added %d lines of output to the chat.  \n\n", i, n, n+2)
		case i%5 == 2:
			f := edited[0]
			fmt.Fprintf(&b, "> # Fix any errors below, if possible.  \n>   \n> ## Running: /usr/bin/python3 -m flake8 --select=E9,F821,F823,F831,F406,F407,F701,F702,F704,F706 --show-source --isolated %s  \n>   \n> %s:%d:9: F821 undefined name '%s'  \n>   \n> ## See relevant line below marked with █.  \n>   \n> %s:  \n> ...⋮...  \n", f, f, 40+i, noun(), f)
			for l := range 6 {
				fmt.Fprintf(&b, "> %3d│    %s = %s(%d)  \n", 30+l, noun(), noun(), l)
			}
			fmt.Fprintf(&b, "> %3d█        return %s  \n> ...⋮...  \n>   \n> Attempt to fix lint errors? (Y)es/(N)o [Yes]: y  \n\n", 40+i, noun())
		case i%5 == 3 && len(sent) > 0:
			// aider quotes back the block it could not apply.
			f := edited[0]
			fmt.Fprintf(&b, "> The LLM did not conform to the edit format.  \n> https://aider.chat/docs/troubleshooting/edit-errors.html  \n>   \n> # 1 SEARCH/REPLACE block failed to match!  \n>   \n> ## SearchReplaceNoExactMatch: This SEARCH block failed to exactly match lines in %s  \n", f)
			for l := range strings.SplitSeq(sent[0], "\n") {
				fmt.Fprintf(&b, "> %s  \n", l)
			}
			fmt.Fprintf(&b, ">   \n> Did you mean to match some of these actual lines from %s?  \n>   \n> ```  \n", f)
			for l := range 8 {
				fmt.Fprintf(&b, ">         %s = %d  \n", noun(), l)
			}
			b.WriteString(">  ```  \n>   \n> The SEARCH section must exactly match an existing block of lines including all white space, comments, indentation, docstrings, etc  \n>   \n> # The other 1 SEARCH/REPLACE block were applied successfully.  \n> Don't re-send them.  \n> Just reply with fixed versions of the block above that failed to match.  \n\n")
		}
		if i%6 == 1 {
			b.WriteString("The change keeps the old behaviour for callers:\n\n    result = parser.step()\n    if result is None:\n        raise ValueError(\"empty\")\n\n")
		}
	}
	return b.String(), blocks, requests
}

// TestAiderHistoryFixture: every edit block whole with its file name,
// every request, the failing test, the lint error and the indentation of
// code outside fences survive; aider's status lines fold (one cost line,
// the last, with the session's total; questions without their legend;
// no block quoted back); the history is detected as a transcript and
// comes out at ratio <= 0.5, at two sizes.
func TestAiderHistoryFixture(t *testing.T) {
	for _, turns := range []int{40, 160} {
		text, blocks, requests := aiderHistory(turns)
		out, kind := compactAll(t, text)
		if kind != stages.KindTranscript {
			t.Errorf("detected as %s, want transcript", kind)
		}
		for _, blk := range blocks {
			if !strings.Contains(out, blk) {
				t.Errorf("edit block lost or cut:\n%s", blk)
			}
		}
		if got, want := strings.Count(out, "\n#### "), len(requests); got != want {
			t.Errorf("%d requests kept, want %d", got, want)
		}
		for _, r := range requests {
			if !strings.Contains(out, r) {
				t.Errorf("request lost: %s", r)
			}
		}
		for _, s := range []string{"test_step_6 FAILED - AssertionError: expected 3", "F821 undefined name", "SearchReplaceNoExactMatch", "Add file to the chat? y", "\n    if result is None:\n        raise ValueError(\"empty\")"} {
			if !strings.Contains(out, s) {
				t.Errorf("lost %q", s)
			}
		}
		lastCost := text[strings.LastIndex(text, "> Tokens: "):]
		lastCost = strings.TrimSpace(lastCost[:strings.IndexByte(lastCost, '\n')])
		if n := strings.Count(out, "> Tokens: "); n != 1 || !strings.Contains(out, lastCost) {
			t.Errorf("%d cost lines kept, want the last one only: %q", n, lastCost)
		}
		for _, s := range []string{"(Y)es/(N)o", "> <<<<<<< SEARCH", "You can use /undo", "[×", "[... "} { // no counts in a transcript
			if strings.Contains(out, s) {
				t.Errorf("status output not folded: %q", s)
			}
		}
		if r := float64(stages.Chars(out)) / float64(stages.Chars(text)); r > 0.5 {
			t.Errorf("%d turns: ratio %.3f > 0.5", turns, r)
		} else {
			t.Logf("%d turns, %d blocks: ratio %.3f", turns, len(blocks), r)
		}
	}
}

// TestAiderOlderProseFolds: in an aider history, prose before the last
// turns keeps its first sentence; the last turn's prose stays whole, and
// a history without aider's lines keeps all its prose.
func TestAiderOlderProseFolds(t *testing.T) {
	text, _, _ := aiderHistory(40)
	out, _ := compactAll(t, text)
	tail := text[strings.LastIndex(text, "\n#### "):]
	for para := range strings.SplitSeq(tail, "\n\n") {
		if p := strings.TrimSpace(para); strings.HasSuffix(p, ".") && !strings.HasPrefix(p, ">") && !strings.Contains(out, p) {
			t.Errorf("last turn's prose cut: %q", p)
		}
	}
	if !strings.Contains(out, "…[folded]…") {
		t.Error("older prose not folded")
	}
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "## User\n\nQuestion %d about the cache?\n\n## Assistant\n\nThe cache fills lazily on the first read of key %d. Each later read is served from memory until the entry expires.\n\n", i, i)
	}
	plain := b.String()
	if out, _ := compactAll(t, plain); strings.Contains(out, "…[folded]…") {
		t.Error("a chat without aider's lines lost prose")
	}
}

// sweTrajectory generates a SWE-agent-style trajectory.
func sweTrajectory(steps int) (text, issue, patch string, actions []string) {
	issue = "We're currently solving the following issue within our repository. Here's the issue text:\nISSUE:\nDividing by zero in calc.py crashes the CLI with a traceback instead of an error message.\n"
	patch = "\r\ndiff --git a/calc.py b/calc.py\r\nindex 1a2b3c4..5d6e7f8 100644\r\n--- a/calc.py\r\n+++ b/calc.py\r\n@@ -10,7 +10,9 @@ def div(a, b):\r\n-    return a / b\r\n+    if b == 0:\r\n+        raise CalcError(\"division by zero\")\r\n+    return a / b\r\n"
	history := []map[string]any{
		{"role": "system", "content": "SETTING: You are an autonomous programmer.\n" + strings.Repeat("COMMAND: open <path> [<line>] opens the file at the line given.\n", 60), "agent": "primary"},
		{"role": "user", "content": "Here is a demonstration of how to correctly accomplish this task.\n" + strings.Repeat("DISCUSSION\nLet's look at the file.\n```\nopen src/app.py\n```\n", 300), "agent": "primary"},
		{"role": "user", "content": issue, "agent": "primary"},
	}
	var traj []map[string]any
	for i := range steps {
		action := fmt.Sprintf("DISCUSSION\nStep %d: inspect calc.py around the division.\n```\ngoto %d\n```", i, 10+i)
		actions = append(actions, action)
		obs := fmt.Sprintf("[File: /repo/calc.py (400 lines total)]\n(%d more lines above)\n", i) + strings.Repeat("    x = compute(a, b)\n", 120) + fmt.Sprintf("Traceback (most recent call last): ZeroDivisionError at step %d\n(Open file: /repo/calc.py)", i)
		history = append(history, map[string]any{"role": "assistant", "content": action, "agent": "primary"},
			map[string]any{"role": "user", "content": obs, "agent": "primary"})
		traj = append(traj, map[string]any{"action": fmt.Sprintf("goto %d\n", 10+i), "observation": obs, "response": action, "thought": action, "state": "{}"})
	}
	doc := map[string]any{
		"environment": "swe_main",
		"trajectory":  traj,
		"history":     history,
		"info":        map[string]any{"exit_status": "submitted", "submission": patch, "model_stats": map[string]any{"instance_cost": 0.19, "tokens_sent": 52861, "api_calls": steps}},
	}
	raw, _ := json.MarshalIndent(doc, "", "  ")
	return string(raw), issue, patch, actions
}

// TestSWEAgentTrajectoryFixture: the final patch is kept byte for byte,
// the issue and every action whole, and the trajectory shrinks.
func TestSWEAgentTrajectoryFixture(t *testing.T) {
	text, issue, patch, actions := sweTrajectory(8)
	out, kind := compactAll(t, text)
	if kind != stages.KindTranscript {
		t.Errorf("detected as %s, want transcript", kind)
	}
	if !strings.Contains(out, patch) {
		t.Errorf("final patch not kept byte for byte")
	}
	if !strings.Contains(out, strings.TrimSpace(issue)) {
		t.Errorf("issue lost")
	}
	for _, a := range actions {
		if !strings.Contains(out, a) {
			t.Errorf("action lost: %q", a)
		}
	}
	if !strings.Contains(out, "ZeroDivisionError at step 7") {
		t.Errorf("failure in tool output lost")
	}
	if r := float64(stages.Chars(out)) / float64(stages.Chars(text)); r > 0.3 {
		t.Errorf("ratio %.2f", r)
	}
}

// TestRoleContentChat: an OpenAI-style message list reads as turns.
func TestRoleContentChat(t *testing.T) {
	msgs := []map[string]any{{"role": "system", "content": "Be brief."}}
	for i := range 12 {
		msgs = append(msgs, map[string]any{"role": "user", "content": fmt.Sprintf("Question %d: why does the cache miss on cold start?", i)},
			map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": fmt.Sprintf("Answer %d: the cache is filled lazily, so the first read misses. %s", i, strings.Repeat("More detail follows here. ", 6))}}},
			map[string]any{"role": "tool", "content": strings.Repeat(fmt.Sprintf("cache stats line for call %d\n", i), 80)})
	}
	raw, _ := json.Marshal(map[string]any{"model": "m", "messages": msgs})
	out, kind := compactAll(t, string(raw))
	if kind != stages.KindTranscript {
		t.Errorf("detected as %s", kind)
	}
	for i := range 12 {
		if !strings.Contains(out, fmt.Sprintf("Question %d: why does the cache miss on cold start?", i)) {
			t.Errorf("question %d lost", i)
		}
	}
	if strings.Count(out, "## assistant\n\nAnswer ") != 12 {
		t.Errorf("not rendered as turns:\n%s", out[:min(len(out), 600)])
	}
}

// TestTranscriptCodeOutsideFences: snippets written without fences keep
// every line and its indentation, even lines that repeat.
func TestTranscriptCodeOutsideFences(t *testing.T) {
	var b strings.Builder
	var snippets []string
	for i := range 12 {
		fmt.Fprintf(&b, "#### make handler %d return early when the input is empty\n\n", i)
		snip := fmt.Sprintf("    def handler_%d(self, data):\n        if not data:\n            return None\n\tfor item in data:\n\t\tself.total += item\n        return self.total", i)
		snippets = append(snippets, snip)
		fmt.Fprintf(&b, "Sure. The handler becomes:\n\n%s\n\n> Applied edit to app/handlers.py\n\n", snip)
	}
	out, kind := compactAll(t, b.String())
	if kind != stages.KindTranscript {
		t.Errorf("detected as %s", kind)
	}
	for _, s := range snippets {
		if !strings.Contains(out, s) {
			t.Errorf("snippet changed:\n%s\n--- output:\n%s", s, out)
			break
		}
	}
}

// TestOpenHandsEvents: an OpenHands-style event list reads as turns, the
// user's message whole, the patch in test_result byte for byte.
func TestOpenHandsEvents(t *testing.T) {
	patch := "diff --git a/x.py b/x.py\n--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@\n-a = 1\n+a = 2\n"
	events := []map[string]any{{"id": 0, "source": "user", "action": "message", "message": "Fix the off-by-one in x.py so that the counter starts at two."}}
	for i := range 10 {
		events = append(events,
			map[string]any{"id": 2*i + 1, "source": "agent", "action": "run", "message": fmt.Sprintf("Running the tests, try %d.", i), "args": map[string]any{"command": "pytest -q"}},
			map[string]any{"id": 2*i + 2, "source": "environment", "observation": "run", "content": strings.Repeat("collected 200 items ...... ok\n", 60) + fmt.Sprintf("FAILED test_x.py::test_count - assert 1 == 2 (try %d)\n", i)})
	}
	raw, _ := json.Marshal(map[string]any{"instance_id": "x-1", "history": events, "test_result": map[string]any{"git_patch": patch}})
	out, kind := compactAll(t, string(raw))
	if kind != stages.KindTranscript {
		t.Errorf("detected as %s", kind)
	}
	for _, s := range []string{"Fix the off-by-one in x.py so that the counter starts at two.", patch, "pytest -q", "FAILED test_x.py::test_count - assert 1 == 2 (try 9)"} {
		if !strings.Contains(out, s) {
			t.Errorf("lost %q", s)
		}
	}
	if len(out)*4 > len(raw) {
		t.Errorf("ratio %.2f", float64(len(out))/float64(len(raw)))
	}
}

// TestJSONPayloadMentioningARoleStaysJSON: one "role" field does not make
// an API payload a chat.
func TestJSONPayloadMentioningARoleStaysJSON(t *testing.T) {
	var items []map[string]any
	for i := range 50 {
		items = append(items, map[string]any{"id": i, "name": fmt.Sprintf("member %d", i), "permissions": map[string]any{"admin": i == 0}})
	}
	raw, _ := json.Marshal(map[string]any{"role": "user", "content": "team listing", "members": items})
	if k := stages.Detect(string(raw)); k != stages.KindJSON {
		t.Errorf("detected as %s, want json", k)
	}
}

// TestMarkdownDocWithH4IsNotAChat: h4 headings and a quote do not make a
// README a chat.
func TestMarkdownDocWithH4IsNotAChat(t *testing.T) {
	var b strings.Builder
	b.WriteString("# Project\n\n> A fast tool for compacting text.\n\n")
	for i := range 6 {
		fmt.Fprintf(&b, "#### Option %d\n\nThe option number %d changes how the tool reads its input files and writes the result.\n\n", i, i)
	}
	if k := stages.Detect(b.String()); k == stages.KindTranscript {
		t.Errorf("a README detected as a transcript")
	}
}

// TestAiderEditBlocksHoldingFences: an edit of a Markdown file holds
// fences of its own inside SEARCH/REPLACE; the block stays whole, in the
// whole and the diff-fenced formats.
func TestAiderEditBlocksHoldingFences(t *testing.T) {
	var b strings.Builder
	var blocks []string
	b.WriteString("\n# aider chat started at 2024-06-01 09:18:22\n\n")
	for i := range 24 {
		fmt.Fprintf(&b, "#### add a usage example for step %d to the docs  \n\nI'll add the example.\n\n", i)
		var blk string
		switch i % 3 {
		case 0:
			blk = fmt.Sprintf("README.md\n```markdown\n<<<<<<< SEARCH\n## Usage %d\n\nRun it.\n=======\n## Usage %d\n\nRun it:\n\n```bash\npython app.py --step %d\n```\n>>>>>>> REPLACE\n```", i, i, i)
		case 1:
			blk = fmt.Sprintf("```\ndocs/guide.md\n<<<<<<< SEARCH\n~~~sh\nmake\n~~~\n```sh\nmake\n```\n=======\n```sh\nmake all %d\n```\n>>>>>>> REPLACE\n```", i)
		default:
			blk = fmt.Sprintf("src/app.py\n```python\n<<<<<<< SEARCH\n    x = %d\n=======\n    x = %d\n>>>>>>> REPLACE\n```", i, i+1)
		}
		blocks = append(blocks, blk)
		fmt.Fprintf(&b, "%s\n\n> Tokens: 2.1k sent, 300 received.  \n> Applied edit to README.md  \n> Commit %07x docs  \n\n", blk, i)
	}
	out, _ := compactAll(t, b.String())
	for _, blk := range blocks {
		if !strings.Contains(out, blk) {
			t.Errorf("edit block lost or cut:\n%s", blk)
		}
	}
}

// sweAgentV1 generates a SWE-agent 1.0-style trajectory: every step
// carries its query (the whole history so far), so the file grows with
// the square of the steps.
func sweAgentV1(steps int) (text, patch string) {
	patch = "diff --git a/src/calc.py b/src/calc.py\nindex 1a2b3c4..5d6e7f8 100644\n--- a/src/calc.py\n+++ b/src/calc.py\n@@ -10,7 +10,9 @@ def div(a, b):\n-    return a / b\n+    if b == 0:\n+        raise CalcError(\"division by zero\")  \n+    return a / b\n"
	history := []any{
		map[string]any{"role": "system", "content": strings.Repeat("You are a helpful assistant. ", 200), "agent": "main", "message_type": "system_prompt"},
		map[string]any{"role": "user", "content": "<uploaded_files>/repo</uploaded_files> Fix the division bug", "agent": "main", "message_type": "observation"},
	}
	var traj []any
	for i := range steps {
		thought := fmt.Sprintf("Let me look at line %d of calc.py to see the division.", i)
		var obs strings.Builder
		for k := range 150 {
			fmt.Fprintf(&obs, "%d:    x = compute(a, b, %d)\n", k, i)
		}
		history = append(history,
			map[string]any{"role": "assistant", "content": thought, "thought": thought, "action": "str_replace_editor view /repo/src/calc.py", "agent": "main", "message_type": "action"},
			map[string]any{"role": "tool", "content": []any{map[string]any{"type": "text", "text": "OBSERVATION:\n" + obs.String()}}, "agent": "main", "message_type": "observation"})
		traj = append(traj, map[string]any{"action": "str_replace_editor view /repo/src/calc.py", "observation": obs.String(), "response": thought, "thought": thought,
			"execution_time": 0.1, "state": map[string]any{"working_dir": "/repo"}, "query": append([]any(nil), history...)})
	}
	doc := map[string]any{"trajectory": traj, "history": history, "environment": "main", "replay_config": "{}",
		"info": map[string]any{"submission": patch, "exit_status": "submitted", "edited_files30": "[File: src/calc.py]\n1: x", "model_stats": map[string]any{"api_calls": steps}}}
	raw, _ := json.MarshalIndent(doc, "", "  ")
	return string(raw), patch
}

// TestSlimTrajectoryReadsTheSame: the slim reading of a trajectory gives
// the turns and the final patch the full reading gives; a trajectory past
// the size of a full reading keeps its final patch byte for byte.
func TestSlimTrajectoryReadsTheSame(t *testing.T) {
	text, patch := sweAgentV1(12)
	var full any
	if err := json.Unmarshal([]byte(text), &full); err != nil {
		t.Fatal(err)
	}
	slim, ok := stages.SlimTrajectoryForTest(text)
	if !ok {
		t.Fatal("slim reading failed")
	}
	if a, b := stages.ChatTurnsForTest(full), stages.ChatTurnsForTest(slim); a != b {
		t.Errorf("slim reading differs:\n--- full\n%s\n--- slim\n%s", a, b)
	}
	if testing.Short() {
		return
	}
	big, _ := sweAgentV1(60) // past trajectoryMaxBytes
	if len(big) <= 8<<20 {
		t.Fatalf("trajectory of %d bytes is not past the full reading's bound", len(big))
	}
	out, kind := compactAll(t, big)
	if kind != stages.KindTranscript {
		t.Errorf("detected as %s", kind)
	}
	if !strings.Contains(out, patch) {
		t.Error("final patch not kept byte for byte")
	}
}

// TestTrajectoryStepsFirst: SWE-agent writes its steps before its history
// and info; with long steps neither is in the sample detection reads, yet
// the run reads as a transcript and keeps its final patch byte for byte.
func TestTrajectoryStepsFirst(t *testing.T) {
	patch := "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n"
	var steps []any
	for i := range 40 {
		var obs strings.Builder
		for k := range 300 {
			fmt.Fprintf(&obs, "%d: line %d of the file\n", k, i)
		}
		steps = append(steps, map[string]any{"action": fmt.Sprintf("goto %d", i), "observation": obs.String(), "response": "DISCUSSION\nlook", "thought": "look"})
	}
	traj, _ := json.MarshalIndent(steps, "", "  ")
	hist, _ := json.Marshal([]any{map[string]any{"role": "user", "content": "ISSUE: fix x"}})
	info, _ := json.Marshal(map[string]any{"submission": patch, "exit_status": "submitted"})
	text := `{"environment": "swe_main", "trajectory": ` + string(traj) + `, "history": ` + string(hist) + `, "info": ` + string(info) + "}"
	if i := strings.Index(text, `"history"`); i < 64<<10 {
		t.Fatalf("history at %d: inside the detection sample", i)
	}
	out, kind := compactAll(t, text)
	if kind != stages.KindTranscript {
		t.Errorf("detected as %s, want transcript", kind)
	}
	if !strings.Contains(out, patch) {
		t.Error("final patch not kept byte for byte")
	}
}

// TestAiderEditedFileWithoutExtension: the line above a SEARCH/REPLACE
// block names its file whatever the name looks like (requirements-dev,
// CODEOWNERS, a dotfile), fenced or not; it stays with its block.
func TestAiderEditedFileWithoutExtension(t *testing.T) {
	names := []string{".env.production.example", "requirements-dev-extra", "Procfile.worker-jobs", "CODEOWNERS_backend", ".gitignore"}
	var b strings.Builder
	var blocks []string
	b.WriteString("\n# aider chat started at 2024-06-01 09:18:22\n\n")
	for i := range 40 {
		f := names[i%len(names)]
		fmt.Fprintf(&b, "#### ignore build output number %d  \n\nI'll update the file.\n\n", i)
		blk := fmt.Sprintf("%s\n```\n<<<<<<< SEARCH\nbuild%d/\n=======\nbuild%d/\ndist/\n>>>>>>> REPLACE\n```", f, i, i)
		if i%4 == 3 {
			blk = fmt.Sprintf("%s\n<<<<<<< SEARCH\nold%d\n=======\nnew%d\n>>>>>>> REPLACE", f, i, i)
		}
		blocks = append(blocks, blk)
		fmt.Fprintf(&b, "%s\n\n> Applied edit to %s  \n\n", blk, f)
	}
	out, _ := compactAll(t, b.String())
	for _, blk := range blocks {
		if !strings.Contains(out, blk) {
			t.Errorf("edit block lost its file name or was cut:\n%s", blk)
		}
	}
}

// TestAiderToolLines: aider's status lines fold by class, in the forms
// its versions write them; facts (files, commits, failures, answers) stay.
func TestAiderToolLines(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"> Add file to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: y  ", "> Add file to the chat? y  "},
		{"> Allow edits to file? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: n", "> Allow edits to file? n"},
		{"> Add the output to the chat? [y/n] (y): y", "> Add the output to the chat? y"},
		{"> Applied edit to a.py  \n> Applied edit to b.py  \n> Commit 1a2b3c4 fix: guard the reader  ", "> Commit 1a2b3c4 fix: guard the reader  "},
		{"> You can use /undo to undo and discard each aider commit.  \n> Commit 1a2b3c4 x", "> Commit 1a2b3c4 x"},
		{"> ## SearchReplaceNoExactMatch: failed to match lines in a.py  \n> <<<<<<< SEARCH  \n> x = 1  \n> =======  \n> x = 2  \n> >>>>>>> REPLACE  \n>   \n> Did you mean?",
			"> ## SearchReplaceNoExactMatch: failed to match lines in a.py  \n> …[the edit block, as in the reply above]…\n> Did you mean?"},
		{"> <<<<<<< SEARCH\n> x = 1\n> no separator", "> <<<<<<< SEARCH\n> x = 1\n> no separator"},
	} {
		if got := stages.FoldToolRunsForTest(tc.in); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
	// Two cost lines: the last (the session's total) stays.
	two := "> Tokens: 2.1k sent, 340 received. Cost: $0.01 message, $0.01 session.\n\nok\n\n> Tokens: 3.0k sent, 120 received. Cost: $0.02 message, $0.03 session."
	if got, want := stages.FoldToolRunsForTest(two), "\nok\n\n> Tokens: 3.0k sent, 120 received. Cost: $0.02 message, $0.03 session."; got != want {
		t.Errorf("cost lines: got %q, want %q", got, want)
	}
	// Fixed advice once; a repeated failure stays.
	adv := "> The SEARCH section must exactly match an existing block of lines\n> FAILED test_a - AssertionError: boom\n\nx\n\n> The SEARCH section must exactly match an existing block of lines\n> FAILED test_a - AssertionError: boom"
	if got := stages.FoldToolRunsForTest(adv); strings.Count(got, "The SEARCH section") != 1 || strings.Count(got, "FAILED test_a") != 2 {
		t.Errorf("advice or failures: %q", got)
	}
}

// TestAiderWholeFileEditsKeepNames: whole-file edits (a file name, then a
// fenced file) keep the name line while the prose around them folds, also
// when the name follows the prose with no blank line.
func TestAiderWholeFileEditsKeepNames(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n# aider chat started at 2024-05-01 10:00:00\n\n")
	for i := range 120 {
		sep := "\n\n"
		if i%2 == 1 {
			sep = "\n"
		}
		fmt.Fprintf(&b, "#### rewrite module %d  \n\nI will rewrite module %d so that it reads the config once. The reader is created in main and passed down to handler %d.\n\nThis keeps the tests green and removes the global state.%ssrc/mod%d.py\n```python\nimport os\n\ndef f():\n    return %d\n```\n\n> Tokens: 1k sent, 2 received.\n\n", i, i, i, sep, i, i)
	}
	out, _ := compactAll(t, b.String())
	for i := range 120 {
		if !strings.Contains(out, fmt.Sprintf("src/mod%d.py\n```python\nimport os\n\ndef f():\n    return %d\n```", i, i)) {
			t.Errorf("whole-file edit %d lost its name", i)
		}
	}
	if !strings.Contains(out, "I will rewrite module 0 so that it reads the config once. …[folded]…") {
		t.Error("older prose not folded")
	}
}
