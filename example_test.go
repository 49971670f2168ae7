package jetcompact_test

import (
	"context"
	"fmt"
	"strings"

	"github.com/jetcompact/jetcompact"
)

// A service log of 300 lines compacts to a few, its error kept.
func Example() {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "2026-12-01T10:%02d:%02dZ INFO GET /api/items/%d 200 in %dms\n", i/60, i%60, i, 3+i%7)
	}
	b.WriteString("2026-12-01T10:05:00Z ERROR db: connection refused (pool exhausted)\n")
	log := b.String()

	res, err := jetcompact.Compact(context.Background(), log, jetcompact.WithKind(jetcompact.KindLog))
	if err != nil {
		panic(err)
	}
	fmt.Println("kind:", res.Report.Kind)
	fmt.Println("error kept:", strings.Contains(res.Text, "connection refused (pool exhausted)"))
	fmt.Println("under a tenth:", len(res.Text) < len(log)/10)
	// Output:
	// kind: log
	// error kept: true
	// under a tenth: true
}

// A Compactor is built once and reused; a budget caps each output.
func ExampleNew() {
	c, err := jetcompact.New(jetcompact.DefaultConfig(), jetcompact.WithMode(jetcompact.ModeAlgorithmic))
	if err != nil {
		panic(err)
	}
	var b strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&b, "worker %d: processed batch %d with checksum %08x\n", i%13, i, i*2654435761)
	}
	res, err := c.Compact(context.Background(), b.String(), jetcompact.WithBudget(500))
	if err != nil {
		panic(err)
	}
	fmt.Println("within budget:", res.Report.Budget != nil && res.Report.Budget.TokensOut <= 500)
	// Output:
	// within budget: true
}
