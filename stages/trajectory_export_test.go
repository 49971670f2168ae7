package stages

import (
	"context"
	"fmt"
)

// SlimTrajectoryForTest exposes slimTrajectory to the external tests.
func SlimTrajectoryForTest(text string) (any, bool) { return slimTrajectory(text) }

// ChatTurnsForTest prints what chatTurns reads from v.
func ChatTurnsForTest(v any) string {
	turns, final, status := chatTurns(v)
	s := fmt.Sprintf("final %q status %q\n", final, status)
	for _, t := range turns {
		s += fmt.Sprintf("%s tool=%v %q\n", t.role, t.tool, t.text)
	}
	return s
}

func FoldToolRunsForTest(s string) string { return foldToolRuns(context.Background(), s) }
