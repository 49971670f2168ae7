package pipeline

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/stages"
)

// Helpers shared by the log-format tests: the scorer's template-matching
// rule (../shared/eval/score.py, score_loghub) re-implemented, and the
// pipeline run as a user runs it.

var (
	loosePlaceholder = regexp.MustCompile(`<(?:\*|[A-Za-z_]{1,12})>|\d+`)
	looseSpace       = regexp.MustCompile(`\s+`)
)

// loose folds digits and placeholders to "0" and runs of blanks to one.
func loose(s string) string {
	return strings.TrimSpace(looseSpace.ReplaceAllString(loosePlaceholder.ReplaceAllString(s, "0"), " "))
}

// templateMatcher tests a line against a template with <*> slots: its
// longest literal part as a quick filter, then the parts in order.
type templateMatcher struct {
	key string
	rx  *regexp.Regexp
}

func newTemplateMatcher(t string) templateMatcher {
	parts := strings.Split(t, "<*>")
	key := ""
	for i, p := range parts {
		parts[i] = loose(p)
		if len(parts[i]) > len(key) {
			key = parts[i]
		}
		parts[i] = regexp.QuoteMeta(parts[i])
	}
	return templateMatcher{key: key, rx: regexp.MustCompile(strings.Join(parts, ".*?"))}
}

func (m templateMatcher) match(looseLine string) bool {
	return strings.Contains(looseLine, m.key) && m.rx.MatchString(looseLine)
}

// coverage returns the share of templates that match a line of out. Lines
// holding a JSON object or logfmt pairs are also read as their decoded
// values, as a reader of such a log reads them.
func coverage(templates []string, out string) (float64, []string) {
	var lines []string
	for _, l := range strings.Split(out, "\n") {
		lines = append(lines, loose(l))
		if d := decodedRecord(l); d != "" {
			lines = append(lines, loose(d))
		}
	}
	var missing []string
	for _, t := range templates {
		m := newTemplateMatcher(t)
		found := false
		for _, l := range lines {
			if m.match(l) {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, t)
		}
	}
	if len(templates) == 0 {
		return 1, nil
	}
	return 1 - float64(len(missing))/float64(len(templates)), missing
}

// decodedRecord returns the values of a JSON-object or logfmt record line
// joined by blanks, or "".
func decodedRecord(line string) string {
	if i, j := strings.IndexByte(line, '{'), strings.LastIndexByte(line, '}'); i >= 0 && j > i {
		var m map[string]any
		if json.Unmarshal([]byte(line[i:j+1]), &m) == nil {
			var b strings.Builder
			for _, k := range []string{"time", "ts", "level", "msg", "message", "log"} {
				if v, ok := m[k]; ok {
					b.WriteString(strings.TrimSpace(toString(v)) + " ")
				}
			}
			return b.String()
		}
	}
	if strings.Contains(line, "msg=") {
		var b strings.Builder
		for _, k := range []string{"time=", "level=", "msg="} {
			i := strings.Index(line, k)
			if i < 0 {
				continue
			}
			v := line[i+len(k):]
			if strings.HasPrefix(v, `"`) {
				if q, err := strconv.QuotedPrefix(v); err == nil {
					v, _ = strconv.Unquote(q)
				}
			} else if e := strings.IndexByte(v, ' '); e >= 0 {
				v = v[:e]
			}
			b.WriteString(v + " ")
		}
		return b.String()
	}
	return ""
}

func toString(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// compactLog runs the default pipeline on text, LLM off, and returns the
// output and its ratio in characters.
func compactLog(t testing.TB, text string) (string, float64) {
	t.Helper()
	p, err := New(DefaultConfig(), stages.Deps{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.CompactAlgorithmic(context.Background(), text)
	if err != nil {
		t.Fatal(err)
	}
	return res.Text, float64(stages.Chars(res.Text)) / float64(max(1, stages.Chars(text)))
}

// loghubSample is one LogHub *_2k.log with its per-line ground truth.
type loghubSample struct {
	name     string
	lines    []string
	rows     []map[string]string // structured.csv, one per line
	template []string            // per line: the (corrected) template
	alert    []bool              // per line: labelled as an alert
}

// readLoghub reads the LogHub samples of ../shared, or skips the test.
func readLoghub(t *testing.T) []loghubSample {
	t.Helper()
	dirs, _ := os.ReadDir(loghubDir)
	var out []loghubSample
	for _, d := range dirs {
		base := loghubDir + "/" + d.Name() + "/" + d.Name() + "_2k.log"
		raw, err := os.ReadFile(base)
		if err != nil {
			continue
		}
		s := loghubSample{name: d.Name(), lines: strings.Split(strings.TrimRight(string(raw), "\n"), "\n")}
		s.rows = readCSV(t, base+"_structured.csv")
		corrected := readCSV(t, base+"_structured_corrected.slim.csv")
		if len(s.rows) != len(s.lines) {
			t.Fatalf("%s: %d lines, %d rows", s.name, len(s.lines), len(s.rows))
		}
		byID := map[string]string{}
		for _, r := range corrected {
			byID[r["LineId"]] = r["EventTemplate"]
		}
		for _, r := range s.rows {
			tpl := r["EventTemplate"]
			if c, ok := byID[r["LineId"]]; ok && len(corrected) > 0 {
				tpl = c
			}
			s.template = append(s.template, tpl)
			s.alert = append(s.alert, r["Label"] != "" && r["Label"] != "-")
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		t.Skip("LogHub samples not found in " + loghubDir + " (../shared is absent)")
	}
	return out
}

const loghubDir = "../../shared/corpus/loghub"

func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, k := range recs[0] {
			if i < len(r) {
				m[k] = r[i]
			}
		}
		out = append(out, m)
	}
	return out
}

// distinct returns the distinct strings of xs where keep is true (all
// when keep is nil), in first-seen order.
func distinct(xs []string, keep []bool) []string {
	seen := map[string]bool{}
	var out []string
	for i, x := range xs {
		if (keep == nil || keep[i]) && !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
