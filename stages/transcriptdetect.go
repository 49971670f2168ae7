package stages

import (
	"regexp"
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
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
	return mayBeMarkdownChat(head) && isMarkdownChat(head)
}

// mayBeMarkdownChat reports a line opening with '#' or '*': every line
// isMarkdownChat counts (aider's header and requests, turn headings) does,
// and a log has none, so most texts skip its line-by-line read.
func mayBeMarkdownChat(head string) bool {
	return hasLineOpenedBy(head, '#') || hasLineOpenedBy(head, '*')
}

// hasLineOpenedBy reports a line of s whose first byte is c. It looks
// for c, not for line breaks: c is rarer than '\n' in most texts, and
// strings.Contains(s, "\n#") stops at every line break.
func hasLineOpenedBy(s string, c byte) bool {
	for i := 0; ; i++ {
		j := strings.IndexByte(s[i:], c)
		if j < 0 {
			return false
		}
		if i += j; i == 0 || s[i-1] == '\n' {
			return true
		}
	}
}

var (
	jsonRole       = regexp.MustCompile(`"role"\s*:\s*"(?:user|assistant|system|tool|human|ai)"`)
	jsonTrajectory = regexp.MustCompile(`"trajectory"\s*:\s*\[`)
	jsonAgentEvent = regexp.MustCompile(`"source"\s*:\s*"(?:agent|user|environment)"`)
)

// isJSONChat reports JSON whose start reads as messages or agent steps:
// two role-tagged messages, a SWE-agent trajectory, or OpenHands events.
// A payload that only mentions a role once is not a chat.
func isJSONChat(head string) bool {
	switch {
	case jsonTrajectory.MatchString(head) && (strings.Contains(head, `"history"`) || strings.Contains(head, `"info"`)):
		return true
	case jsonTrajectory.MatchString(head) && strings.Contains(head, `"action"`) && strings.Contains(head, `"observation"`):
		// Steps first (SWE-agent writes the trajectory before its history
		// and info): steps of actions and what they observed.
		return true
	case len(jsonRole.FindAllStringIndex(head, 2)) == 2 && strings.Contains(head, `"content"`):
		return true
	case len(jsonAgentEvent.FindAllStringIndex(head, 2)) == 2 && (strings.Contains(head, `"action"`) || strings.Contains(head, `"observation"`)):
		return true
	}
	return false
}

// isMarkdownChat reports aider's history format or Markdown turn headings,
// outside fenced blocks.
func isMarkdownChat(head string) bool {
	requests, aiderTool, turns, lines := 0, 0, 0, 0
	fence := ""
	for line := range strings.SplitSeq(head, "\n") {
		line = strings.TrimSuffix(line, "\r")
		if fence != "" {
			if strings.HasPrefix(line, fence) && strings.Trim(line, fence[:1]) == "" {
				fence = ""
			}
			continue
		}
		if f := textkit.FenceMarker(line); f != "" {
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
			if isAiderToolLine(line) {
				aiderTool++
			}
		case isTurnHeading(line):
			turns++
		}
	}
	if requests >= 2 && (aiderTool > 0 || hasEditMarkers(head)) {
		// "#### " alone is a Markdown h4: aider's tool lines or edit
		// blocks tell its requests apart.
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

// isAiderToolLine reports a line aider writes about its own work.
func isAiderToolLine(line string) bool {
	for _, p := range [...]string{"> Applied edit to ", "> Added ", "> Commit ", "> Tokens: ", "> Git repo", "> Aider v", "> $ aider", "> aider ", "> Repo-map", "> Add ", "> Run shell command", "> Create new file", "> Allow edits to"} {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	return false
}

// hasEditMarkers reports SEARCH/REPLACE markers anywhere in head.
func hasEditMarkers(head string) bool {
	return strings.Contains(head, "<<<<<<< SEARCH") || strings.Contains(head, "<<<<<<< ORIGINAL") ||
		strings.Contains(head, ">>>>>>> REPLACE") || strings.Contains(head, ">>>>>>> UPDATED")
}
