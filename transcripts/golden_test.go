package transcripts_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/jetcompact/jetcompact/transcripts"
)

// update rewrites every golden file of the package: go test ./stages ./transcripts -update.
var update = flag.Bool("update", false, "rewrite the golden files under testdata/")

// TestDebateGolden compresses testdata/debate.input.json with the gate
// forced open (window 1,000 characters) and compares with the golden file;
// compressing the golden output again must not change it.
func TestDebateGolden(t *testing.T) {
	in, err := os.Open(filepath.Join("testdata", "debate.input.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	d, err := transcripts.ParseDebate(in)
	if err != nil {
		t.Fatal(err)
	}
	c := transcripts.DefaultDebateConfig()
	c.WindowChars, c.GateRatio = 100000, 0.006 // gate 600, window large
	out, rep, err := transcripts.CompressDebate(context.Background(), d, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.MarshalIndent(struct {
		Debate transcripts.Debate       `json:"debate"`
		Report transcripts.DebateReport `json:"report"`
	}{out, rep}, "", " ")
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "debate.golden.json")
	if *update {
		if err := os.WriteFile(golden, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(append(got, '\n'), want) {
		t.Errorf("output differs from %s; run go test -run Golden -update and review the diff\n%s", golden, got)
	}
	again, _, err := transcripts.CompressDebate(context.Background(), out, c, nil)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(again)
	o, _ := json.Marshal(out)
	if !bytes.Equal(a, o) {
		t.Errorf("compressing the golden output again changed it")
	}
}
