package transcripts_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

// corpusDir is the shared debate corpus: /work/shared/corpus/debate seen
// from this package's directory. CI does not have it.
const corpusDir = "../../shared/corpus/debate"

// TestCorpusDebateCompression runs the debate compression over the real
// multi-agent logs of the shared corpus (MAD, NYU debates, ChatDev) and
// checks that no fenced code block is lost and no supporter count or
// majority phrase is introduced. It runs each debate twice: with the default
// 60,000-character gate, and with the gate forced open so every answer
// below the top two is compressed. Run with -v to see the numbers.
func TestCorpusDebateCompression(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus evaluation skipped in -short mode")
	}
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("debate corpus not present at %s (only on the shared dev machine): %v", corpusDir, err)
	}
	sources := []struct {
		name  string
		build func(t *testing.T) []corpusDebate
	}{
		{"mad_commonmt", madDebates},
		{"nyu_debate", nyuDebates},
		{"chatdev", chatdevDebates},
	}
	forced := transcripts.DefaultDebateConfig()
	forced.GateRatio = 1e-9 // gate of 0 chars; the window stays the default
	for _, src := range sources {
		debates := src.build(t)
		if len(debates) == 0 {
			t.Errorf("%s: no debates built", src.name)
			continue
		}
		for _, cfg := range []struct {
			name string
			c    transcripts.DebateConfig
		}{{"seed gate", transcripts.DefaultDebateConfig()}, {"forced gate", forced}} {
			var st evalStats
			for _, cd := range debates {
				st.add(t, src.name+"/"+cd.name, cd.debate, cfg.c)
			}
			t.Logf("%-12s %-11s %s", src.name, cfg.name, st)
		}
	}
}

type corpusDebate struct {
	name   string
	debate transcripts.Debate
}

type evalStats struct {
	debates, overGate, answers, compressed, unchanged int
	charsIn, charsOut                                 int
	blocks, blocksLost                                int
	indentedFences, indentedFencesLost                int
	tallies, talliesInInput                           int
	overWindow                                        int
}

func (s evalStats) String() string {
	ratio := 1.0
	if s.charsIn > 0 {
		ratio = float64(s.charsOut) / float64(s.charsIn)
	}
	return fmt.Sprintf("debates %d (over gate %d, over the window after compression %d), answers %d: compressed %d, folded-nothing %d; chars %d -> %d (%.3f); fenced blocks %d, lost %d; indented fence lines %d, dropped %d; tallies/majority phrases in input %d, introduced %d",
		s.debates, s.overGate, s.overWindow, s.answers, s.compressed, s.unchanged, s.charsIn, s.charsOut, ratio, s.blocks, s.blocksLost, s.indentedFences, s.indentedFencesLost, s.talliesInInput, s.tallies)
}

var indentedFence = regexp.MustCompile("(?m)^[ \t]+(?:```|~~~)")

func (s *evalStats) add(t *testing.T, name string, d transcripts.Debate, c transcripts.DebateConfig) {
	t.Helper()
	before, _ := json.Marshal(d)
	out, rep, err := transcripts.CompressDebate(context.Background(), d, c, nil)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if after, _ := json.Marshal(d); string(after) != string(before) {
		t.Errorf("%s: input modified", name)
	}
	s.debates++
	if rep.Gate.Compress {
		s.overGate++
	}
	if rep.Overflow != "" {
		s.overWindow++
		t.Logf("%s: %s", name, rep.Overflow)
	}
	view := transcripts.ChairmanView(out)
	for seat, ar := range rep.Answers {
		a, got := out.Answers[ar.Index], view[ar.Index]
		s.answers++
		s.charsIn += stages.Chars(a.ResponseRaw)
		s.charsOut += stages.Chars(got)
		if a.ResponseRaw != d.Answers[ar.Index].ResponseRaw {
			t.Errorf("%s: answer %d response_raw changed", name, ar.Index)
		}
		if seat < c.KeepVerbatim && a.ResponseCompressed != "" && rep.Overflow == "" {
			t.Errorf("%s: top-%d answer %d compressed under the window", name, c.KeepVerbatim, ar.Index)
		}
		switch ar.Method {
		case transcripts.MethodStructural:
			s.compressed++
		case transcripts.MethodUnchanged:
			s.unchanged++
		}
		if !utf8.ValidString(got) {
			t.Errorf("%s: answer %d: invalid UTF-8 out", name, ar.Index)
		}
		for _, b := range fencedBlocks(a.ResponseRaw) {
			s.blocks++
			if strings.Count(got, b) < strings.Count(a.ResponseRaw, b) {
				s.blocksLost++
				t.Errorf("%s: answer %d (%s): code block lost:\n%.200s", name, ar.Index, a.Model, b)
			}
		}
		in, kept := len(indentedFence.FindAllString(a.ResponseRaw, -1)), len(indentedFence.FindAllString(got, -1))
		s.indentedFences += in
		if kept < in {
			s.indentedFencesLost += in - kept
			t.Errorf("%s: answer %d (%s): %d of %d indented fence lines dropped", name, ar.Index, a.Model, in-kept, in)
		}
		s.talliesInInput += len(transcripts.Tallies(a.ResponseRaw)) + len(transcripts.MajorityPhrases(a.ResponseRaw))
		if added := transcripts.IntroducedTallies(a.ResponseRaw, got); len(added) > 0 {
			s.tallies += len(added)
			t.Errorf("%s: answer %d (%s): tallies introduced %q", name, ar.Index, a.Model, added)
		}
	}
}

// fencedBlocks returns the fenced code blocks of text, as stages.Protect
// finds them (fences at the start of a line, closed).
func fencedBlocks(text string) []string {
	protected, stash := stages.Protect(text)
	var out []string
	for _, line := range strings.Split(protected, "\n") {
		if !stages.IsProtectedLine(line) {
			continue
		}
		// Restore each placeholder on its own by restoring a text that
		// holds every placeholder but only keeping the slice for this one.
		out = append(out, line)
	}
	if len(out) == 0 {
		return nil
	}
	all, ok := stash.Restore(strings.Join(out, "\n\x00\n"))
	if !ok {
		return nil
	}
	return strings.Split(all, "\n\x00\n")
}

func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// madDebates: one debate per MAD translation debate; each player's answer is
// its assistant turns in order (compare mode, players in file order).
func madDebates(t *testing.T) []corpusDebate {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "mad_commonmt", "MAD_Debate_Process", "*.json"))
	sort.Strings(files)
	var out []corpusDebate
	for _, f := range files {
		var raw struct {
			Source  string `json:"source"`
			Players map[string][]struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"players"`
		}
		readJSON(t, f, &raw)
		names := make([]string, 0, len(raw.Players))
		for n := range raw.Players {
			names = append(names, n)
		}
		sort.Strings(names)
		d := transcripts.Debate{Question: "Translate: " + raw.Source, Mode: transcripts.ModeCompare}
		for i, n := range names {
			var turns []string
			for _, m := range raw.Players[n] {
				if m.Role == "assistant" {
					turns = append(turns, m.Content)
				}
			}
			d.Answers = append(d.Answers, transcripts.Answer{Model: n, Priority: i + 1, ResponseRaw: strings.Join(turns, "\n\n")})
		}
		out = append(out, corpusDebate{filepath.Base(f), d})
	}
	return out
}

// nyuDebates: one debate per NYU debate; each debater's answer is its
// speeches (quotes resolved from the story), scored by the judge's
// probabilities for its answer; the judge's feedback is a third answer.
func nyuDebates(t *testing.T) []corpusDebate {
	files, _ := filepath.Glob(filepath.Join(corpusDir, "nyu_debate", "debates", "*.json"))
	sort.Strings(files)
	type content struct {
		Text  *struct{ Text string } `json:"Text"`
		Quote *struct{ Span [2]int } `json:"Quote"`
	}
	type speech struct {
		Speaker string    `json:"speaker"`
		Content []content `json:"content"`
	}
	var out []corpusDebate
	for _, f := range files {
		var raw struct {
			Setup struct {
				Question       string
				Answers        []string
				Roles          map[string]string
				SourceMaterial struct {
					QuALITYSourceMaterial struct{ Contents []string }
				}
			}
			Rounds []map[string]json.RawMessage
		}
		readJSON(t, f, &raw)
		tokens := raw.Setup.SourceMaterial.QuALITYSourceMaterial.Contents
		render := func(cs []content) string {
			var b strings.Builder
			for _, c := range cs {
				switch {
				case c.Text != nil:
					b.WriteString(c.Text.Text)
				case c.Quote != nil:
					lo, hi := c.Quote.Span[0], min(c.Quote.Span[1], len(tokens))
					if lo >= 0 && lo < hi {
						b.WriteString(`"` + strings.Join(tokens[lo:hi], " ") + `"`)
					}
				}
			}
			return b.String()
		}
		texts := map[string][]string{}
		var scores [2][]float64
		for _, r := range raw.Rounds {
			for kind, body := range r {
				switch kind {
				case "SimultaneousSpeeches", "SequentialSpeeches":
					var s struct{ Speeches map[string]speech }
					_ = json.Unmarshal(body, &s)
					for _, k := range []string{"0", "1"} {
						if sp, ok := s.Speeches[k]; ok {
							texts[k] = append(texts[k], render(sp.Content))
						}
					}
				case "JudgeFeedback":
					var jf struct {
						Distribution []float64
						Feedback     speech
					}
					_ = json.Unmarshal(body, &jf)
					if len(jf.Distribution) == 2 {
						scores[0] = append(scores[0], jf.Distribution[0])
						scores[1] = append(scores[1], jf.Distribution[1])
					}
					if txt := render(jf.Feedback.Content); txt != "" {
						texts["judge"] = append(texts["judge"], txt)
					}
				}
			}
		}
		d := transcripts.Debate{Question: raw.Setup.Question, Mode: transcripts.ModeDebate}
		for i, k := range []string{"0", "1"} {
			d.Answers = append(d.Answers, transcripts.Answer{
				Model: "Debater " + string(rune('A'+i)), Priority: i + 1, ReviewScores: scores[i],
				ResponseRaw: strings.Join(texts[k], "\n\n"),
			})
		}
		d.Answers = append(d.Answers, transcripts.Answer{Model: "Judge", Priority: 3, ResponseRaw: strings.Join(texts["judge"], "\n\n")})
		out = append(out, corpusDebate{filepath.Base(f), d})
	}
	return out
}

var chatdevTurn = regexp.MustCompile(`^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} INFO\] (?:([A-Z][A-Za-z]*(?: [A-Z][A-Za-z]*){0,3}): )?`)

// chatdevDebates: each ChatDev log twice, as one answer per role (all of a
// role's turns) and as one answer per turn, in compare mode by order of
// appearance.
func chatdevDebates(t *testing.T) []corpusDebate {
	logs, _ := filepath.Glob(filepath.Join(corpusDir, "chatdev", "*", "*.log"))
	sort.Strings(logs)
	var out []corpusDebate
	for _, f := range logs {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		type turn struct{ speaker, text string }
		var turns []turn
		cur := -1
		for _, line := range strings.Split(string(b), "\n") {
			if m := chatdevTurn.FindStringSubmatch(line); m != nil {
				cur = -1
				if m[1] != "" && m[1] != "System" {
					turns = append(turns, turn{m[1], strings.TrimPrefix(line, m[0])})
					cur = len(turns) - 1
				}
				continue
			}
			if cur >= 0 {
				turns[cur].text += "\n" + line
			}
		}
		byRole := transcripts.Debate{Question: filepath.Base(filepath.Dir(f)), Mode: transcripts.ModeCompare}
		byTurn := byRole
		index := map[string]int{}
		for i, tu := range turns {
			byTurn.Answers = append(byTurn.Answers, transcripts.Answer{Model: tu.speaker, Priority: i + 1, ResponseRaw: tu.text})
			j, ok := index[tu.speaker]
			if !ok {
				j = len(byRole.Answers)
				index[tu.speaker] = j
				byRole.Answers = append(byRole.Answers, transcripts.Answer{Model: tu.speaker, Priority: j + 1})
			}
			if byRole.Answers[j].ResponseRaw != "" {
				byRole.Answers[j].ResponseRaw += "\n\n"
			}
			byRole.Answers[j].ResponseRaw += tu.text
		}
		base := filepath.Base(filepath.Dir(f))
		out = append(out, corpusDebate{base + "/by-role", byRole}, corpusDebate{base + "/by-turn", byTurn})
	}
	return out
}

// TestCorpusEvidenceSummariesPassTheValidator turns every corpus debate
// into an evidence request (the answers' authors are the options, each
// paragraph a turn), writes the extractive summary and runs the evidence
// validator over every one: zero violations, so no count, majority,
// repetition or name reaches a decider.
func TestCorpusEvidenceSummariesPassTheValidator(t *testing.T) {
	if testing.Short() {
		t.Skip("corpus evaluation skipped in -short mode")
	}
	if _, err := os.Stat(corpusDir); err != nil {
		t.Skipf("debate corpus not present at %s (only on the shared dev machine): %v", corpusDir, err)
	}
	cfg := transcripts.DefaultEvidenceConfig()
	for _, src := range []struct {
		name  string
		build func(t *testing.T) []corpusDebate
	}{{"mad_commonmt", madDebates}, {"nyu_debate", nyuDebates}, {"chatdev", chatdevDebates}} {
		var summaries, facts, leaksInInput, stripped int
		for _, cd := range src.build(t) {
			req := transcripts.EvidenceRequest{Decision: cd.debate.Question}
			if req.Decision == "" {
				req.Decision = "Which answer should the chairman adopt?"
			}
			seen := map[string]bool{}
			for _, a := range cd.debate.Answers {
				if !seen[a.Model] {
					seen[a.Model] = true
					req.Options = append(req.Options, a.Model)
				}
				for _, para := range strings.Split(a.ResponseRaw, "\n\n") {
					if strings.TrimSpace(para) != "" {
						req.Transcript = append(req.Transcript, transcripts.Turn{Speaker: a.Model, Text: para})
						leaksInInput += len(transcripts.FindCounts(para))
					}
				}
			}
			if len(req.Options) < 2 || len(req.Transcript) == 0 {
				continue
			}
			ex := transcripts.ExtractiveSummary(req, cfg)
			summaries++
			facts += len(ex.Facts)
			if v := transcripts.ValidateSummary(req, cfg, ex.Summary); len(v) > 0 {
				t.Errorf("%s/%s: the summary violates %+v", src.name, cd.name, v)
			}
			for _, f := range ex.Facts {
				if strings.Contains(f.Text, "said") || strings.Contains(f.Text, "agreed") {
					stripped++
				}
			}
		}
		t.Logf("%-12s summaries %d, facts %d, count leaks in the input %d, all removed", src.name, summaries, facts, leaksInInput)
		if summaries == 0 {
			t.Errorf("%s: no summary produced", src.name)
		}
	}
}
