package stages

import (
	"strings"

	"github.com/jetcompact/jetcompact/stages/textkit"
)

// Source code read as a log loses what it says: its lines open alike
// (assignments, cases, calls), so log_dedup folded runs of them and
// keywords the rest (a Go file of 1.4 KB became one marker). Its
// repeated lines are statements, not repeats (a decorator on each test).

// codeStarts open a statement or a declaration in common languages.
var codeStarts = [...]string{
	"func ", "def ", "class ", "import ", "from ", "package ", "#include", "#define", "#import",
	"public ", "private ", "protected ", "static ", "return", "if ", "if(", "for ", "for(",
	"while ", "else", "elif ", "switch ", "case ", "const ", "var ", "let ", "fn ", "use ",
	"struct ", "type ", "interface ", "enum ", "@", "try", "catch", "except", "async ", "export ",
	"pub ", "impl ", "mod ", "module ", "namespace ", "using ",
}

// closesBrackets reports a trimmed line that only closes brackets ("}",
// "];", "});", "end").
func closesBrackets(t string) bool {
	return t == "end" || len(t) <= 3 && t != "" && strings.Trim(t, "}]);,") == ""
}

// opensCode reports a trimmed line that opens a statement or a
// declaration.
func opensCode(t string) bool {
	for _, s := range codeStarts {
		if strings.HasPrefix(t, s) {
			return true
		}
	}
	return false
}

// sourceCode reports sample lines (non-blank, the first of a text) that
// read as source code: most are code by textkit.IsCode; hardly any is a
// stack frame ("at pkg.Fn(File.java:3)", "File \"x.py\", line 3"), for a
// trace quotes code and its log is no code; and either one line in ten
// opens a statement or a declaration or closes brackets, or the text is
// one enclosed declaration, a table of data in code: its first line
// opens one and last, the text's last non-blank line, closes it.
func sourceCode(sample []string, last string) bool {
	if len(sample) < 4 || !textkit.IsCode(sample) {
		return false
	}
	statements, frames := 0, 0
	for _, l := range sample {
		switch t := strings.TrimSpace(l); {
		case strings.HasPrefix(t, "at ") || strings.HasPrefix(t, "File \""):
			frames++
		case closesBrackets(t) || opensCode(t):
			statements++
		}
	}
	if frames*20 >= len(sample) {
		return false
	}
	enclosed := opensCode(strings.TrimSpace(sample[0])) && closesBrackets(strings.TrimSpace(last))
	return statements*10 >= len(sample) || enclosed && statements >= 2
}

// sourceCodeText is sourceCode over the first 400 non-blank lines of text.
func sourceCodeText(text string) bool {
	return sourceCode(headLines(text), lastLine(text))
}

// lastLine is the last non-blank line of text.
func lastLine(text string) string {
	t := strings.TrimRight(text, " \t\r\n")
	return t[strings.LastIndexByte(t, '\n')+1:]
}
