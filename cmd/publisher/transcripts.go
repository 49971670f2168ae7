package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log/slog"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/jetcompact/jetcompact/transcripts"
)

// transcriptFlags are the flags that refine a transcript job.
type transcriptFlags struct {
	chairman bool // --debate: print the text the chairman reads
	decide   bool // --evidence: then ask the separate decider
	debug    bool // --evidence: keep the matched text of violations
	history  bool // --session: print the full history, archived marked
	model    string
	edit     string // --session: the page under edit
}

func (f *transcriptFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&f.chairman, "chairman", false, "with --debate: print the text the chairman reads instead of the JSON")
	fs.BoolVar(&f.decide, "decide", false, "with --evidence: then run the decider, which sees only the task, the options and the summary")
	fs.BoolVar(&f.debug, "debug", false, "with --evidence: show the matched text of violations (may hold participants' names)")
	fs.BoolVar(&f.history, "history", false, "with --session: print the full history, archived messages marked")
	fs.StringVar(&f.edit, "edit", "", "with --session: the page under edit, sent whole (default: the page of the latest state message); other pages become digests")
	fs.StringVar(&f.model, "model", "", "default chat model (llm.model); default: the config's, else $OPENAI_MODEL")
}

// check refuses a refining flag without the job it refines.
func (f transcriptFlags) check(o options) error {
	for _, c := range []struct {
		set      bool
		flag     string
		needs    string
		needsSet bool
	}{
		{f.chairman, "--chairman", "--debate", o.debate != ""},
		{f.decide, "--decide", "--evidence", o.evidence != ""},
		{f.debug, "--debug", "--evidence", o.evidence != ""},
		{f.history, "--history", "--session", o.session != ""},
		{f.edit != "", "--edit", "--session", o.session != ""},
	} {
		if c.set && !c.needsSet {
			return fmt.Errorf("%s needs %s", c.flag, c.needs)
		}
	}
	return nil
}

// transcriptJob turns --debate, --evidence, --meeting and --session into a
// job name and its JSON request body.
func (a *app) transcriptJob() (string, []byte, error) {
	if err := a.o.tx.check(a.o); err != nil {
		return "", nil, err
	}
	if a.o.tx.decide && (a.o.noLLM || !a.effectiveMode().UsesLLM()) {
		return "", nil, fmt.Errorf("--decide calls a model (the decider), and mode %s with --no-llm=%v never does: use --mode llm or hybrid", a.effectiveMode(), a.o.noLLM)
	}
	switch {
	case a.o.debate != "":
		body, err := readInput(a.o.debate, a.stdin)
		return transcripts.JobDebate, []byte(body), err
	case a.o.evidence != "":
		body, err := readInput(a.o.evidence, a.stdin)
		if err != nil || !a.o.tx.debug {
			return transcripts.JobEvidence, []byte(body), err
		}
		var req map[string]json.RawMessage
		if err := json.Unmarshal([]byte(body), &req); err != nil {
			return "", nil, fmt.Errorf("--evidence %s: %w", a.o.evidence, err)
		}
		req["debug"] = json.RawMessage("true")
		data, err := json.Marshal(req)
		return transcripts.JobEvidence, data, err
	case a.o.meeting != "":
		body, err := readInput(a.o.meeting, a.stdin)
		return transcripts.JobMeeting, []byte(body), err
	case a.o.session != "":
		req := transcripts.SessionRequest{Session: a.o.session, Force: a.o.compactNow, History: a.o.tx.history, Edit: a.o.tx.edit}
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

// jobRunner runs transcript jobs in process or on one fleet connection.
type jobRunner struct {
	a        *app
	client   *jetstream.Client
	closeAll func()
	store    transcripts.Store
}

func (r *jobRunner) close() {
	if r.closeAll != nil {
		r.closeAll()
	}
}

func (r *jobRunner) run(ctx context.Context, name string, body []byte) ([]byte, []pipeline.NodeReport, error) {
	a := r.a
	if a.o.local {
		if r.store == nil {
			r.store = transcripts.NewMemoryStore()
		}
		jobs := transcripts.Jobs{Config: a.file.Transcripts, Model: a.chatModel, Store: r.store, Log: slog.New(slog.NewTextHandler(a.stderr, nil))}
		out, reports, err := jobs.Run(ctx, name, transcripts.JobRequest{Body: body, Mode: a.effectiveMode(), AllowLLM: !a.o.noLLM})
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		return out, reports, nil
	}
	if r.client == nil {
		client, closeAll, err := a.fleetClient(ctx)
		if err != nil {
			return nil, nil, err
		}
		r.client, r.closeAll = client, closeAll
	}
	doc, err := jetstream.TranscriptDocument(name, body, a.mode, !a.o.noLLM, a.rt.Fingerprint())
	if err != nil {
		return nil, nil, err
	}
	res, err := r.client.RunTask(ctx, name, doc)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	if res.Error != "" {
		return nil, nil, fmt.Errorf("%s (doc %s): %s", name, res.DocID, res.Error)
	}
	return []byte(res.Text), res.Report.Nodes, nil
}

func (a *app) runTranscriptJob(ctx context.Context, name string, body []byte) error {
	if a.o.local && name == transcripts.JobSession {
		slog.Info("--local sessions are per-process: they live in memory and end with this run; drop --local to keep them in JetStream (with --store-dir DIR across runs)")
	}
	if !a.o.local {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.o.timeout)
		defer cancel()
	}
	r := &jobRunner{a: a}
	defer r.close()
	out, reports, err := r.run(ctx, name, body)
	if err != nil {
		return err
	}
	a.writeJobReport(name, reports)
	switch name {
	case transcripts.JobDebate:
		out = a.debateRefs(out)
	case transcripts.JobMeeting:
		out = a.meetingRefs(body, out)
	}
	switch {
	case name == transcripts.JobEvidence && a.o.tx.decide:
		if out, err = a.decide(ctx, r, body, out); err != nil {
			return err
		}
	case name == transcripts.JobDebate && a.o.tx.chairman:
		d, err := transcripts.ParseDebate(bytesReader(out))
		if err != nil {
			return err
		}
		out = []byte(transcripts.ChairmanText(d))
	}
	_, err = a.stdout.Write(out)
	return err
}

// decide runs the decider on the evidence summary: a separate call that
// sees only the task, the options and the summary.
func (a *app) decide(ctx context.Context, r *jobRunner, reqBody, evidence []byte) ([]byte, error) {
	var req transcripts.EvidenceRequest
	if err := json.Unmarshal(reqBody, &req); err != nil {
		return nil, err
	}
	var res map[string]any
	if err := json.Unmarshal(evidence, &res); err != nil {
		return nil, err
	}
	summary, _ := res["summary"].(string)
	body, err := json.Marshal(transcripts.DecideRequest{Task: req.Decision, Options: req.Options, Summary: summary})
	if err != nil {
		return nil, err
	}
	out, reports, err := r.run(ctx, transcripts.JobDecide, body)
	if err != nil {
		return nil, err
	}
	a.writeJobReport(transcripts.JobDecide, reports)
	var dr transcripts.DecideResponse
	if err := json.Unmarshal(out, &dr); err != nil {
		return nil, err
	}
	res["decision"] = dr.Decision
	data, err := json.MarshalIndent(res, "", "  ")
	return append(data, '\n'), err
}

// writeJobReport prints a job's steps; the first step is the whole job, so
// its characters in and out give the ratio.
func (a *app) writeJobReport(name string, reports []pipeline.NodeReport) {
	if !a.o.report {
		return
	}
	rep := pipeline.Report{Nodes: reports, Mode: a.effectiveMode(), Guard: "not applied to " + name}
	if len(reports) > 0 {
		rep.CharsIn, rep.CharsOut = reports[0].CharsIn, reports[0].CharsOut
	}
	fmt.Fprintf(a.stderr, "== %s\n", name)
	_ = rep.WriteText(a.stderr)
}

func (a *app) effectiveMode() stages.Mode {
	if a.mode != "" {
		return a.mode
	}
	return a.file.Pipeline.Mode
}

func bytesReader(b []byte) *bytes.Reader { return bytes.NewReader(b) }

// debateRefs stores each compressed answer's raw response as an original
// of its own and makes the fold marker of its compressed view reference
// the lines it stands for. Without a store, or when the debate cannot be
// read back, out stays as it is: a reference must resolve.
func (a *app) debateRefs(out []byte) []byte {
	if a.o.noStore {
		return out
	}
	d, err := transcripts.ParseDebate(bytes.NewReader(out))
	if err != nil {
		return out
	}
	changed := false
	for i, ans := range d.Answers {
		if ans.ResponseCompressed == "" || !strings.Contains(ans.ResponseCompressed, "[... ") {
			continue
		}
		text := ans.ResponseCompressed
		var rep pipeline.Report
		a.keepOriginal(jetstream.DocumentID(ans.ResponseRaw, jetstream.Settings{Task: "debate answer", Config: version}), ans.ResponseRaw, &text, &rep)
		if text != ans.ResponseCompressed {
			d.Answers[i].ResponseCompressed, changed = text, true
		}
	}
	if !changed {
		return out
	}
	data, err := json.MarshalIndent(d, "", "  ")
	if err != nil {
		return out
	}
	return append(data, '\n')
}

// meetingRefs stores a meeting's scratchpad as an original of its own and
// makes every cut in the context (an entry cut short, a summary's header)
// reference the entries it stands for (transcripts.MeetingRefs). Without
// a store, or when request or response cannot be read back, out stays as
// it is.
func (a *app) meetingRefs(body, out []byte) []byte {
	if a.o.noStore {
		return out
	}
	var req transcripts.MeetingRequest
	var res transcripts.MeetingResponse
	if json.Unmarshal(body, &req) != nil || json.Unmarshal(out, &res) != nil || res.Report.Whiteboard.Level == 0 {
		return out
	}
	original := transcripts.ScratchpadText(req.State.Scratchpad)
	prefix, ok := a.storeOriginal(jetstream.DocumentID(original, jetstream.Settings{Task: "meeting scratchpad", Config: version}), original)
	if !ok {
		return out
	}
	ref := func(from, to int) string { return prefix + ":L" + strconv.Itoa(from) + "-" + strconv.Itoa(to) }
	res.Context = transcripts.MeetingRefs(res.Context, req.State.Scratchpad, ref)
	res.Report.Whiteboard.Text = transcripts.MeetingRefs(res.Report.Whiteboard.Text, req.State.Scratchpad, ref)
	res.Report.Whiteboard.Tokens = transcripts.MeetingTokens(res.Report.Whiteboard.Text)
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return out
	}
	return append(data, '\n')
}
