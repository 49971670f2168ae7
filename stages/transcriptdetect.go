package stages

import (
	"strings"
)

// Chat and agent transcripts are told apart before logs: an aider history
// or a Markdown chat has timestamps and tool output in it, and a log
// verdict would send it through nodes that drop what the user asked for.
// The classes:
//   - Markdown turns: aider's "#### " user requests, "> " tool output and
//     edit blocks; or turn headings ("## User", "**Assistant:**");
//   - JSON chats: role/content messages, SWE-agent trajectories (history,
//     trajectory, info.submission), OpenHands event lists (source, action,
//     observation).

// transcriptSampleBytes bounds how much of a text the detection reads.
const transcriptSampleBytes = 64 << 10

// isAgentTranscript reports a chat or agent transcript in one of the
// classes above.
func isAgentTranscript(text string) bool {
	head := text[:min(len(text), transcriptSampleBytes)]
	trimmed := strings.TrimLeft(head, " \t\r\n\ufeff")
	if trimmed == "" {
		return false
	}
	if trimmed[0] == '{' || trimmed[0] == '[' {
		return isJSONChat(trimmed)
	}
	return isMarkdownChat(head)
}

// isJSONChat reports JSON whose start reads as messages or agent steps.
func isJSONChat(head string) bool {
	has := func(key string) bool { return strings.Contains(head, `"`+key+`"`) }
	switch {
	case has("trajectory") && (has("history") || has("info")):
		return true // SWE-agent
	case has("role") && has("content"):
		return strings.Contains(head, `"assistant"`) || strings.Contains(head, `"user"`)
	case has("source") && (has("action") || has("observation")):
		return strings.Contains(head, `"agent"`) // OpenHands events
	}
	return false
}

// isMarkdownChat reports aider's history format or Markdown turn headings,
// outside fenced blocks.
func isMarkdownChat(head string) bool {
	requests, toolLines, turns, lines := 0, 0, 0, 0
	fence := ""
	for line := range strings.SplitSeq(head, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if fence != "" {
			if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := fenceMarker(line); f != "" {
			fence = f
			continue
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		lines++
		switch {
		case strings.HasPrefix(line, "# aider chat started at"):
			return true
		case isRequestLine(line):
			requests++
		case strings.HasPrefix(line, "> "):
			toolLines++
		case isTurnHeading(line):
			turns++
		}
	}
	if requests >= 2 && (toolLines > 0 || requests*20 >= lines) {
		return true
	}
	return turns >= 4 && turns*20 >= lines
}

// isRequestLine reports a user request in aider's history: "#### text".
func isRequestLine(line string) bool {
	return strings.HasPrefix(line, "#### ") && len(strings.TrimSpace(line)) > 5
}

// isTurnHeading reports a Markdown line that opens a turn: "## User",
// "### Assistant:", "**user**:".
func isTurnHeading(line string) bool {
	s := strings.TrimLeft(line, "#")
	if len(s) == len(line) && !strings.HasPrefix(line, "**") {
		return false
	}
	s = strings.TrimSpace(strings.Trim(strings.TrimSpace(s), "*:"))
	s = strings.ToLower(strings.TrimSuffix(strings.TrimSpace(s), ":"))
	switch s {
	case "user", "assistant", "system", "human", "ai", "tool", "model", "agent":
		return true
	}
	return false
}
