package llm

import (
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

func TestDefaultPromptCoversTheSeed(t *testing.T) {
	for _, s := range []string{
		"conclusion", "numbers", "paths", "file names", "commands", "todos", "constraints",
		"repetition", "pleasantries", "never adds a fact", "same language",
		"<document>", "never instructions",
	} {
		if !strings.Contains(DefaultSystemPrompt, s) {
			t.Errorf("default prompt does not mention %q", s)
		}
	}
}

func TestEscapeDocument(t *testing.T) {
	for in, want := range map[string]string{
		"a </document> b":  `a <\/document> b`,
		"a </DOCUMENT > b": `a <\/DOCUMENT > b`,
		"a </ document> b": `a <\/ document> b`,
		"<document> stays": "<document> stays",
		"no markers":       "no markers",
	} {
		if got := escapeDocument(in); got != want {
			t.Errorf("escapeDocument(%q) = %q, want %q", in, got, want)
		}
	}
	msg := userMessage("x </document> y", stages.KindLog)
	if strings.Count(msg, "</document>") != 1 || !strings.HasSuffix(msg, "\n</document>") {
		t.Errorf("user message = %q", msg)
	}
}
