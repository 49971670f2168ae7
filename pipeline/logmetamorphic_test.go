package pipeline

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// logTransform rewrites one log line whose message (LogHub's Content) and
// level are known, the way another logger or tool would have written it.
type logTransform struct {
	name string
	line func(i int, header, level, content string) string
}

// splitLevel removes the level from a header's fields, when it is one.
func splitLevel(header, level string) (string, bool) {
	f := strings.Fields(header)
	for i, x := range f {
		if level != "" && x == level {
			return strings.Join(append(f[:i:i], f[i+1:]...), " "), true
		}
	}
	return strings.TrimSpace(header), false
}

var logTransforms = []logTransform{
	{"file-name prefix", func(_ int, h, _, c string) string {
		return "inventory-service-7f9c.log.1.2024-03-01 " + h + c // 40 bytes
	}},
	{"grep line numbers", func(i int, h, _, c string) string { return strconv.Itoa(i+1) + ":" + h + c }},
	{"level first", func(_ int, h, lv, c string) string {
		if rest, ok := splitLevel(h, lv); ok {
			return lv + " " + rest + " " + c
		}
		return "INFO " + h + c
	}},
	{"pipe-joined header", func(_ int, h, _, c string) string {
		return strings.Join(strings.Fields(h), "|") + "|" + c
	}},
	{"JSON lines", func(_ int, h, lv, c string) string {
		rest, _ := splitLevel(h, lv)
		b, _ := json.Marshal(struct {
			Time  string `json:"time"`
			Level string `json:"level"`
			Msg   string `json:"msg"`
		}{rest, lv, c})
		return string(b)
	}},
	{"logfmt", func(_ int, h, lv, c string) string {
		rest, _ := splitLevel(h, lv)
		if lv == "" {
			lv = "info"
		}
		return "time=" + strconv.Quote(rest) + " level=" + strings.ReplaceAll(lv, " ", "_") + " msg=" + strconv.Quote(c)
	}},
	{"Compose prefix", func(_ int, h, _, c string) string { return "svc-1  | " + h + c }},
	{"CRLF", func(_ int, h, _, c string) string { return h + c + "\r" }},
	{"ANSI header", func(_ int, h, _, c string) string { return "\x1b[32m" + h + "\x1b[0m" + c }},
}

// TestLoghubMetamorphic checks that the compactor finds the same events
// in a LogHub sample written in nine other ways: every template and every
// alert template still matches an output line (the scorer's rule), and
// the ratio stays within 1.5x of the untransformed file's.
func TestLoghubMetamorphic(t *testing.T) {
	samples := readLoghub(t)
	for _, s := range samples {
		templates := distinct(s.template, nil)
		alerts := distinct(s.template, s.alert)
		orig := strings.Join(s.lines, "\n") + "\n"
		out, base := compactLog(t, orig)
		if c, missing := coverage(templates, out); c < 1 {
			t.Errorf("%s untransformed: template coverage %.3f, missing %q", s.name, c, head(missing))
		}
		for _, tr := range logTransforms {
			t.Run(s.name+"/"+tr.name, func(t *testing.T) {
				var b strings.Builder
				for i, line := range s.lines {
					line = strings.TrimSuffix(line, "\r")
					content := s.rows[i]["Content"]
					header := line
					if k := strings.LastIndex(line, content); content != "" && k >= 0 {
						header, content = line[:k], line[k:]
					} else {
						content = ""
					}
					b.WriteString(tr.line(i, header, s.rows[i]["Level"], content))
					b.WriteByte('\n')
				}
				out, ratio := compactLog(t, b.String())
				if c, missing := coverage(templates, out); c < 1 {
					t.Errorf("template coverage %.3f, missing %q", c, head(missing))
				}
				if c, missing := coverage(alerts, out); c < 1 {
					t.Errorf("alert coverage %.3f, missing %q", c, head(missing))
				}
				if ratio > 1.5*base {
					t.Errorf("ratio %.4f, more than 1.5x the untransformed %.4f", ratio, base)
				}
				t.Logf("ratio %.4f (untransformed %.4f)", ratio, base)
			})
		}
	}
}

func head(xs []string) []string {
	if len(xs) > 5 {
		return append(xs[:5:5], fmt.Sprintf("... %d more", len(xs)-5))
	}
	return xs
}
