package pipeline

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const reproDir = "../../shared/repros/logs/"

func readRepro(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(reproDir + name)
	if os.IsNotExist(err) {
		t.Skip("repro " + name + " not found (../shared is absent)")
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// mustKeep fails for every want that out does not contain.
func mustKeep(t *testing.T, out string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(out, w) {
			t.Errorf("output lost %q:\n%s", w, out)
		}
	}
}

// TestReprosHeaderOfAnyShape: a log whose header is not a stamp first (a
// long file-name prefix, the level first, a compact stamp with '|'
// fields) compacts as its control does: the same events kept, the same
// rare event, a ratio within 1.5x.
func TestReprosHeaderOfAnyShape(t *testing.T) {
	for _, tc := range []struct {
		file, control string
		rare          string
	}{
		{"A_long_prefix.log", "A_control.log", "reindex finished for 3 shards"},
		{"L_level_first.log", "L_control.log", "reindex finished for 3 shards"},
		{"B_compact_stamp.log", "B_control.log", "profile reloaded from cache"},
		{"C3_pipe_fields.log", "C3_control.log", "reloadProfile"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			out, ratio := compactLog(t, readRepro(t, tc.file))
			ctl, ctlRatio := compactLog(t, readRepro(t, tc.control))
			mustKeep(t, out, tc.rare)
			if got, want := strings.Count(out, "\n"), strings.Count(ctl, "\n"); got != want {
				t.Errorf("%d lines kept, the control keeps %d:\n%s\ncontrol:\n%s", got, want, out, ctl)
			}
			if ratio > 1.5*ctlRatio || ratio > 0.6 {
				t.Errorf("ratio %.3f, control %.3f", ratio, ctlRatio)
			}
		})
	}
}

// TestReprosEventNamesStay: words that name events (one-word events, verbs
// in a frame, '|'-joined fields) are never merged as a parameter.
func TestReprosEventNamesStay(t *testing.T) {
	events := []string{"openDrawer", "closeDrawer", "expandPanel", "collapsePanel", "lockScreen", "unlockScreen"}
	for _, file := range []string{"C_one_word_events.log", "C2_verb_in_frame.log"} {
		t.Run(file, func(t *testing.T) {
			out, _ := compactLog(t, readRepro(t, file))
			mustKeep(t, out, events...)
		})
	}
	t.Run("C3_pipe_fields.log", func(t *testing.T) {
		out, _ := compactLog(t, readRepro(t, "C3_pipe_fields.log"))
		mustKeep(t, out, "openDrawer", "closeDrawer", "flushPending", "radioWake", "reloadProfile", "pushBatch size=", "pushBatch done in")
	})
}

// TestReproSequenceCounter: a sequence number first, crossing a width
// boundary (99999 -> 100000), is a log of records throughout: repeats
// collapse on both sides and the rare event stays.
func TestReproSequenceCounter(t *testing.T) {
	text := readRepro(t, "D_seq_counter.log")
	out, ratio := compactLog(t, text)
	mustKeep(t, out, "node-9 state", "maintenance window opened", "status running", "fan speed normal", "link up on port", "disk check clean")
	if ratio > 0.3 {
		t.Errorf("ratio %.3f: repeats were not collapsed:\n%s", ratio, out)
	}
}

// TestReproNumberGroups: grouped numbers, dotted and dated tokens and UUIDs
// carry facts and stay as written.
func TestReproNumberGroups(t *testing.T) {
	out, _ := compactLog(t, readRepro(t, "G_number_groups.log"))
	mustKeep(t, out, "1440,900", "2024-03-01_10,00,02.123456", "3F2A9C1E-77B0-4D2E-9A61-0C5E8B7D4F10", "512,384", "2024-03-01 10:00:01")
}

// TestReproJSONLines: a JSON-lines log collapses like any log, and each
// representative is a real line that still parses.
func TestReproJSONLines(t *testing.T) {
	text := readRepro(t, "K_json_lines.log")
	out, ratio := compactLog(t, text)
	if ratio > 0.5 {
		t.Errorf("ratio %.3f: JSON lines were not collapsed:\n%s", ratio, out)
	}
	mustKeep(t, out, "cache refresh took", "worker heartbeat seq", "GET /v1/items status")
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		end := strings.LastIndexByte(line, '}')
		var m map[string]any
		if end < 0 || json.Unmarshal([]byte(line[:end+1]), &m) != nil {
			t.Errorf("representative does not parse: %q", line)
		}
		if !strings.Contains(text, line[:end+1]) {
			t.Errorf("representative is not a line of the input: %q", line)
		}
	}
}
