package main

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

// transcriptJob turns --debate, --evidence and --session into a job name
// and its JSON request body.
func (a *app) transcriptJob() (string, []byte, error) {
	switch {
	case a.o.debate != "":
		body, err := readInput(a.o.debate, a.stdin)
		return transcripts.JobDebate, []byte(body), err
	case a.o.evidence != "":
		body, err := readInput(a.o.evidence, a.stdin)
		return transcripts.JobEvidence, []byte(body), err
	case a.o.meeting != "":
		body, err := readInput(a.o.meeting, a.stdin)
		return transcripts.JobMeeting, []byte(body), err
	case a.o.session != "":
		req := transcripts.SessionRequest{Session: a.o.session, Force: a.o.compactNow}
		if a.o.messages != "" {
			data, err := readInput(a.o.messages, a.stdin)
			if err != nil {
				return "", nil, err
			}
			if err := json.Unmarshal([]byte(data), &req.Messages); err != nil {
				return "", nil, fmt.Errorf("--messages %s: want a JSON array of messages: %w", a.o.messages, err)
			}
		}
		body, err := json.Marshal(req)
		return transcripts.JobSession, body, err
	}
	return "", nil, nil
}

func (a *app) runTranscriptJob(ctx context.Context, name string, body []byte) error {
	var (
		out     []byte
		reports []pipeline.NodeReport
		err     error
	)
	if a.o.local {
		jobs := transcripts.Jobs{Config: a.file.Transcripts, Model: a.chatModel, Store: transcripts.NewMemoryStore()}
		out, reports, err = jobs.Run(ctx, name, transcripts.JobRequest{Body: body, Mode: a.effectiveMode(), AllowLLM: !a.o.noLLM})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	} else {
		ctx, cancel := context.WithTimeout(ctx, a.o.timeout)
		defer cancel()
		client, closeAll, err := a.fleetClient(ctx)
		if err != nil {
			return err
		}
		defer closeAll()
		res, err := client.RunTask(ctx, name, jetstream.Document{Text: string(body), Mode: a.mode, AllowLLM: !a.o.noLLM, Salt: a.salt()})
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if res.Error != "" {
			return fmt.Errorf("%s (doc %s): %s", name, res.DocID, res.Error)
		}
		out, reports = []byte(res.Text), res.Report.Nodes
	}
	if _, err := a.stdout.Write(out); err != nil {
		return err
	}
	if a.o.report {
		fmt.Fprintf(a.stderr, "== %s\n", name)
		_ = pipeline.Report{Nodes: reports, Mode: a.effectiveMode(), Guard: "not applied to " + name}.WriteText(a.stderr)
	}
	return nil
}

func (a *app) effectiveMode() stages.Mode {
	if a.mode != "" {
		return a.mode
	}
	return a.file.Pipeline.Mode
}
