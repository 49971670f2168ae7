package transcripts_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact/transcripts"
)

func ExampleCompressStructural() {
	var lines []string
	for i := 1; i <= 15; i++ {
		lines = append(lines, fmt.Sprintf("head %d", i))
	}
	lines = append(lines,
		"## Plan",
		"The current numbers come from one laptop run, which is not enough to decide anything.",
		"- measure first",
		"```sh\nmake bench\n```",
		"Then compare the p99 of both variants under the same load, three runs each.")
	for i := 1; i <= 10; i++ {
		lines = append(lines, fmt.Sprintf("tail %d", i))
	}
	res := transcripts.CompressStructural(strings.Join(lines, "\n"), transcripts.DefaultDebateConfig())
	out := strings.Split(res.Text, "\n")
	fmt.Println(strings.Join(out[14:20], "\n"))
	// Output:
	// head 15
	// [... 4 lines compressed. Key points: Plan; measure first ...]
	// ```sh
	// make bench
	// ```
	// tail 1
}

func ExampleValidateSummary() {
	req := transcripts.EvidenceRequest{
		Decision: "Pick a supplier",
		Options:  []string{"PackPro", "BoxWest"},
		Transcript: transcripts.Transcript{
			{Speaker: "Maria Lopez", Text: "PackPro is cheaper."},
			{Speaker: "Chen Wei", Text: "BoxWest is faster."},
		},
	}
	c := transcripts.DefaultEvidenceConfig()
	c.Table = false
	for _, s := range []string{
		"1. PackPro is cheaper. For: PackPro. Against: BoxWest.",
		"1. Maria showed PackPro is cheaper.",
		"1. Two of the analysts prefer BoxWest.",
		"1. Everyone agreed BoxWest is faster.",
	} {
		fmt.Println(transcripts.ValidateSummary(req, c, s))
	}
	// Output:
	// []
	// [{author name Maria}]
	// [{supporter count two of the analysts}]
	// [{majority phrasing everyone agreed}]
}

func ExampleCompactor() {
	ctx := context.Background()
	store := transcripts.NewMemoryStore()
	for i := 1; i <= 8; i++ {
		kind := transcripts.KindProse
		if i == 3 {
			kind = transcripts.KindState
		}
		_, _ = store.Append(ctx, "s1", transcripts.Message{Role: "user", Kind: kind, Text: strings.Repeat("words ", 40)})
	}
	model := transcripts.ChatModelFunc(func(ctx context.Context, system, user string, maxTokens int) (string, error) {
		return "the user asked for a landing page", nil
	})
	c, _ := transcripts.NewCompactor(transcripts.DefaultCompactionConfig(), store, model)
	res, _ := c.CompactNow(ctx, "s1")
	snap, _ := store.Load(ctx, "s1")
	fmt.Println(res.Outcome, "through", snap.SummaryThroughID)
	for _, m := range transcripts.CompactedView(snap) {
		fmt.Println(m.ID, m.Kind, m.Archived)
	}
	// Output:
	// applied through 2
	// summary-through-2 summary false
	// 3 state false
	// 4 prose false
	// 5 prose false
	// 6 prose false
	// 7 prose false
	// 8 prose false
}
