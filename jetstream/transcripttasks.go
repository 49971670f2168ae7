package jetstream

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"

	"github.com/jetcompact/jetcompact/failure"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

// TranscriptTasks exposes the transcript jobs (debate, evidence, session,
// meeting, decide) as fleet tasks. An invalid request (transcripts.ErrInvalid)
// is a permanent error; a model's error is classified by the llm client.
func TranscriptTasks(jobs transcripts.Jobs) map[string]TaskFunc {
	tasks := map[string]TaskFunc{}
	for _, name := range transcripts.JobNames() {
		tasks[name] = func(ctx context.Context, req TaskRequest) ([]byte, []pipeline.NodeReport, error) {
			out, reports, err := jobs.Run(ctx, name, transcripts.JobRequest{Body: req.Body, Mode: req.Mode, AllowLLM: req.AllowLLM})
			if errors.Is(err, transcripts.ErrInvalid) {
				err = failure.Permanent(err)
			}
			return out, reports, err
		}
	}
	return tasks
}

// TranscriptDocument is the fleet document for one transcript job. The
// pure jobs (debate, evidence, meeting, decide) derive their id from the
// body and salt, so a republished request returns its stored result. A
// session job reads and changes a session: the same body later is a new
// operation on a newer session, so its id carries a fresh nonce and its
// result is never deduplicated (no stale view, no second "applied").
func TranscriptDocument(job string, body []byte, mode stages.Mode, allowLLM bool, salt string) (Document, error) {
	doc := Document{Text: string(body), Mode: mode, AllowLLM: allowLLM, Salt: salt}
	if job == transcripts.JobSession {
		var nonce [12]byte
		if _, err := rand.Read(nonce[:]); err != nil {
			return Document{}, err
		}
		settings := doc.Settings(job)
		settings.Nonce = hex.EncodeToString(nonce[:])
		doc.ID = DocumentID(doc.Text, settings)
	}
	return doc, nil
}
