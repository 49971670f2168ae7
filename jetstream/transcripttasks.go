package jetstream

import (
	"context"
	"errors"
	"fmt"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/transcripts"
)

// TranscriptTasks exposes the transcript jobs (debate, evidence, session)
// as fleet tasks. Invalid requests are permanent errors.
func TranscriptTasks(jobs transcripts.Jobs) map[string]TaskFunc {
	tasks := map[string]TaskFunc{}
	for _, name := range transcripts.JobNames() {
		tasks[name] = func(ctx context.Context, req TaskRequest) ([]byte, []pipeline.NodeReport, error) {
			out, reports, err := jobs.Run(ctx, name, transcripts.JobRequest{Body: req.Body, Mode: req.Mode, AllowLLM: req.AllowLLM})
			if errors.Is(err, transcripts.ErrInvalid) {
				return nil, nil, fmt.Errorf("%w: %v", ErrPermanentTask, err)
			}
			return out, reports, err
		}
	}
	return tasks
}
