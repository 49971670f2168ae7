package stages

import (
	"encoding/json"
	"sort"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// A JSON chat or agent trajectory is rendered as a Markdown transcript a
// model can read and act on:
//
//	## system
//
//	…head and tail of the prompt…
//	## user
//	…the request, whole…
//	## assistant
//	…thought and action, whole…
//	## tool
//	…output: head, failure lines, tail…
//	## submission (exit_status: submitted)
//	```diff
//	…the final patch, byte for byte…
//	```
//
// User requests and assistant turns are kept whole; tool output and very
// long prompts keep their head, the lines that report a failure and
// their tail. Markers carry no counts (design.md, Evidence).

const (
	// trajectoryMaxBytes bounds the JSON decoded into a tree for rendering
	// (a tree costs several times its text); larger chats fold as JSON.
	trajectoryMaxBytes = 8 << 20
	// longTurnChars: a user turn longer than this (a demonstration, a
	// pasted file) is compacted like tool output.
	longTurnChars = 8000
	// toolKeepChars: tool output up to this long is kept whole.
	toolKeepChars = 1200
	// slimTrajectoryMaxBytes bounds a larger trajectory read for only the
	// fields the transcript shows (see slimTrajectory).
	slimTrajectoryMaxBytes = 128 << 20
)

// slimStep is what a trajectory step shows: not the prompt it was sent
// ("query", the whole history again at every step) nor its state.
type slimStep struct {
	Action      any `json:"action"`
	Observation any `json:"observation"`
	Response    any `json:"response"`
	Thought     any `json:"thought"`
}

// slimTrajectory decodes a large agent trajectory (an object) into the
// fields chatTurns reads, so its tree costs what the transcript shows.
// The class: SWE-agent runs that repeat their history in every step's
// query, megabytes over what is said once.
func slimTrajectory(text string) (any, bool) {
	var doc struct {
		Trajectory   []slimStep `json:"trajectory"`
		History      []any      `json:"history"`
		Messages     []any      `json:"messages"`
		Events       []any      `json:"events"`
		Conversation []any      `json:"conversation"`
		Info         struct {
			Submission any `json:"submission"`
			ExitStatus any `json:"exit_status"`
		} `json:"info"`
		TestResult any `json:"test_result"`
		ModelPatch any `json:"model_patch"`
		GitPatch   any `json:"git_patch"`
		Patch      any `json:"patch"`
		FinalPatch any `json:"final_patch"`
	}
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, false
	}
	v := map[string]any{}
	if len(doc.Trajectory) > 0 {
		steps := make([]any, len(doc.Trajectory))
		for i, st := range doc.Trajectory {
			steps[i] = map[string]any{"action": str(st.Action), "observation": str(st.Observation), "response": str(st.Response), "thought": str(st.Thought)}
		}
		v["trajectory"] = steps
	}
	for key, list := range map[string][]any{"history": doc.History, "messages": doc.Messages, "events": doc.Events, "conversation": doc.Conversation} {
		if len(list) > 0 {
			v[key] = list
		}
	}
	v["info"] = map[string]any{"submission": doc.Info.Submission, "exit_status": doc.Info.ExitStatus}
	for key, x := range map[string]any{"test_result": doc.TestResult, "model_patch": doc.ModelPatch, "git_patch": doc.GitPatch, "patch": doc.Patch, "final_patch": doc.FinalPatch} {
		if x != nil {
			v[key] = x
		}
	}
	return v, true
}

type chatTurn struct {
	role string
	text string
	tool bool // output of a tool or the environment
}

// renderChatJSON renders a JSON chat or trajectory. ok is false when text
// is not one.
func renderChatJSON(text string) (string, bool) {
	if len(text) > slimTrajectoryMaxBytes || !isJSONChat(text[:min(len(text), transcriptSampleBytes)]) {
		return "", false
	}
	var v any
	if len(text) > trajectoryMaxBytes {
		var ok bool
		if v, ok = slimTrajectory(text); !ok {
			return "", false
		}
	} else {
		dec := json.NewDecoder(strings.NewReader(text))
		dec.UseNumber()
		if err := dec.Decode(&v); err != nil {
			return "", false
		}
	}
	turns, final, status := chatTurns(v)
	if len(turns) == 0 && final == "" {
		return "", false
	}
	var b strings.Builder
	for _, t := range turns {
		body := strings.TrimRight(t.text, " \t\r\n")
		if t.tool || (t.role == "system" && len(body) > toolKeepChars) || len(body) > longTurnChars {
			body = compactOutput(body)
		}
		role := t.role
		if t.tool && role == "user" {
			role = "observation" // the environment answering, not the user asking
		}
		// The heading is a paragraph of its own: nodes that merge similar
		// paragraphs never take a turn's heading with its text.
		b.WriteString("## " + role + "\n\n" + body + "\n\n")
	}
	if final != "" {
		head := "## submission"
		if status != "" {
			head += " (exit_status: " + status + ")"
		}
		fence := "```"
		for strings.Contains(final, fence) {
			fence += "`"
		}
		b.WriteString(head + "\n" + fence + "diff\n" + final + "\n" + fence + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), true
}

// chatTurns finds the messages of v: an OpenAI-style list of role/content
// messages (or an object holding one), a SWE-agent trajectory, or an
// OpenHands event list; and the final patch or submission.
func chatTurns(v any) (turns []chatTurn, final, status string) {
	switch x := v.(type) {
	case []any:
		return eventTurns(x, false), "", ""
	case map[string]any:
		if info, ok := x["info"].(map[string]any); ok {
			final, _ = info["submission"].(string)
			status, _ = info["exit_status"].(string)
		}
		if final == "" {
			final = findPatch(x)
		}
		for _, key := range []string{"history", "messages", "events", "conversation"} {
			if list, ok := x[key].([]any); ok && len(list) > 0 {
				_, agentRun := x["trajectory"]
				return eventTurns(list, agentRun), final, status
			}
		}
		if steps, ok := x["trajectory"].([]any); ok {
			for _, s := range steps {
				step, _ := s.(map[string]any)
				if th := str(step["thought"]); th != "" {
					turns = append(turns, chatTurn{role: "assistant", text: th})
				}
				if a := str(step["action"]); a != "" {
					turns = append(turns, chatTurn{role: "action", text: a})
				}
				if o := str(step["observation"]); o != "" {
					turns = append(turns, chatTurn{role: "tool", text: o, tool: true})
				}
			}
		}
	}
	return turns, final, status
}

// eventTurns turns a list of messages or events into turns. In an agent
// run (agentRun: a SWE-agent trajectory), a user message after the
// agent's first turn is the environment answering its action: tool output.
func eventTurns(list []any, agentRun bool) []chatTurn {
	var turns []chatTurn
	agentSpoke := false
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			continue
		}
		role := str(m["role"])
		if role == "" {
			role = str(m["source"])
		}
		text := contentText(m["content"])
		if text == "" {
			text = str(m["message"])
		}
		if args, ok := m["args"].(map[string]any); ok {
			if cmd := str(args["command"]); cmd != "" {
				text = strings.TrimSpace(text + "\n" + cmd)
			}
		}
		if text == "" {
			text = str(m["thought"])
		}
		if role == "" || text == "" {
			continue
		}
		kind := str(m["message_type"])
		tool := role == "tool" || role == "environment" || role == "function" || kind == "observation" ||
			str(m["observation"]) != "" || (agentRun && role == "user" && agentSpoke && kind != "user")
		if role == "assistant" || role == "agent" {
			agentSpoke = true
		}
		turns = append(turns, chatTurn{role: role, text: text, tool: tool})
	}
	return turns
}

// contentText is a message's content: a string, or the text parts of a list.
func contentText(c any) string {
	switch x := c.(type) {
	case string:
		return x
	case []any:
		var parts []string
		for _, p := range x {
			if m, ok := p.(map[string]any); ok {
				if t := str(m["text"]); t != "" {
					parts = append(parts, t)
				}
			} else if s, ok := p.(string); ok {
				parts = append(parts, s)
			}
		}
		return strings.Join(parts, "\n")
	}
	return ""
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// findPatch returns the value of a patch-like key anywhere in v: a final
// patch that is not in info.submission.
func findPatch(v any) string {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch k {
			case "submission", "git_patch", "model_patch", "patch", "final_patch":
				if s, ok := x[k].(string); ok && textkit.IsPatch(strings.TrimLeft(s, "\r\n")) {
					return s
				}
			}
		}
		for _, k := range keys {
			if p := findPatch(x[k]); p != "" {
				return p
			}
		}
	case []any:
		for _, e := range x {
			if p := findPatch(e); p != "" {
				return p
			}
		}
	}
	return ""
}

// compactOutput keeps tool output short: whole when it is short, a patch
// or code; else its head, the lines that report a failure, and its tail,
// with markers that carry no counts.
func compactOutput(s string) string {
	if len(s) <= toolKeepChars || textkit.IsPatch(strings.TrimLeft(s, "\r\n")) {
		return s
	}
	lines := strings.Split(s, "\n")
	if len(lines) < 16 {
		r := []rune(s)
		if len(r) <= toolKeepChars {
			return s
		}
		return string(textkit.WordCut(r[:toolKeepChars*2/3], false)) + " …[folded]… " + string(textkit.WordCut(r[len(r)-toolKeepChars/3:], true))
	}
	const headLines, tailLines, signals = 6, 8, 20
	var b strings.Builder
	b.WriteString(strings.Join(lines[:headLines], "\n"))
	skipped, kept := false, 0
	for _, l := range lines[headLines : len(lines)-tailLines] {
		if kept < signals && textkit.IsFailureLine(l) {
			if skipped {
				b.WriteString("\n…[lines folded]…")
				skipped = false
			}
			b.WriteString("\n" + l)
			kept++
			continue
		}
		skipped = true
	}
	if skipped {
		b.WriteString("\n…[lines folded]…")
	}
	b.WriteString("\n" + strings.Join(lines[len(lines)-tailLines:], "\n"))
	if out := b.String(); len(out) < len(s) {
		return out
	}
	return s
}
