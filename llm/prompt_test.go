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

func TestKeepPlaceholders(t *testing.T) {
	// Real placeholders, made by the code that makes them.
	masked, _ := stages.Protect("intro\n```\na\n```\nmid\n~~~\nb\n~~~\nend")
	ph := placeholders(masked)
	if len(ph) != 2 {
		t.Fatalf("placeholders = %q", ph)
	}
	p0, p1 := ph[0], ph[1]
	for _, tc := range []struct{ name, summary, want string }{
		{"kept", "sum " + p0 + "\n" + p1, "sum " + p0 + "\n" + p1},
		{"missing appended", "sum", "sum\n" + p0 + "\n" + p1},
		{"one missing", p1 + " sum", p1 + " sum\n" + p0},
		{"duplicate dropped", p0 + "\n" + p0 + "\n" + p1, p0 + "\n\n" + p1},
		{"unknown dropped", "x \uE000\uE01F\uE001 y\n" + p0 + p1, "x  y\n" + p0 + p1},
		{"stray rune dropped", "x \uE000 y\n" + p0 + p1, "x  y\n" + p0 + p1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := keepPlaceholders(masked, tc.summary)
			if got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	if got := keepPlaceholders("plain text", "summary"); got != "summary" {
		t.Errorf("plain text: %q", got)
	}
}
