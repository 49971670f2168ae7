package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// Jobs runs the transcript behaviours on JSON requests, the same way in
// process (publisher --local) and on the fleet (as tasks).
type Jobs struct {
	Config Config
	Model  ChatModel // nil: no model; every behaviour falls back
	Store  Store     // sessions; required by Session
}

// JobRequest is one request body with the entry point's LLM gates.
type JobRequest struct {
	Body     []byte
	Mode     stages.Mode
	AllowLLM bool
}

// Job names, as used for fleet tasks and publisher flags.
const (
	JobDebate   = "debate"
	JobEvidence = "evidence"
	JobSession  = "session"
	JobMeeting  = "meeting"
)

// JobNames lists every job.
func JobNames() []string { return []string{JobDebate, JobEvidence, JobSession, JobMeeting} }

// Run dispatches to the named job.
func (j Jobs) Run(ctx context.Context, name string, req JobRequest) ([]byte, []pipeline.NodeReport, error) {
	switch name {
	case JobDebate:
		return j.Debate(ctx, req)
	case JobEvidence:
		return j.Evidence(ctx, req)
	case JobSession:
		return j.Session(ctx, req)
	case JobMeeting:
		return j.Meeting(ctx, req)
	}
	return nil, nil, fmt.Errorf("%w: unknown job %q", ErrInvalid, name)
}

// Debate compresses a debate for the chairman and returns the debate JSON
// with response_compressed filled where compression applied.
func (j Jobs) Debate(ctx context.Context, req JobRequest) ([]byte, []pipeline.NodeReport, error) {
	start := time.Now()
	d, err := ParseDebate(bytes.NewReader(req.Body))
	if err != nil {
		return nil, nil, err
	}
	cfg := j.Config.Debate
	cfg.Mode, cfg.AllowLLM = req.Mode, req.AllowLLM
	var lookup ModelLookup
	if j.Model != nil {
		lookup = SameModel(j.Model)
	}
	out, rep, err := CompressDebate(ctx, d, cfg, lookup)
	if err != nil {
		return nil, nil, err
	}
	body, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	reports := []pipeline.NodeReport{{
		Key: "debate.gate", CharsIn: rep.Gate.TotalChars, CharsOut: rep.Gate.TotalChars,
		Skipped: !rep.Gate.Compress, Reason: rep.Gate.Reason, Duration: time.Since(start),
	}}
	for _, a := range rep.Answers {
		reason := a.Method
		if a.Reason != "" {
			reason += ": " + a.Reason
		}
		reports = append(reports, pipeline.NodeReport{
			Key:     stages.Key(fmt.Sprintf("debate.seat%d", a.Seat)),
			CharsIn: a.CharsIn, CharsOut: a.CharsOut, Reason: reason,
			Skipped: a.Method == MethodVerbatim || a.Method == MethodUnchanged,
		})
	}
	return append(body, '\n'), reports, nil
}

// Evidence writes the evidence-balanced summary for a final decider. Only
// its "summary" field is for the decider; "trace" maps facts to turns.
func (j Jobs) Evidence(ctx context.Context, req JobRequest) ([]byte, []pipeline.NodeReport, error) {
	start := time.Now()
	er, err := ParseEvidenceRequest(bytes.NewReader(req.Body))
	if err != nil {
		return nil, nil, err
	}
	var model ChatModel
	if req.AllowLLM {
		model = j.Model
	}
	s, err := NewEvidenceSummarizer(j.Config.Evidence, model)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.Summarize(ctx, er)
	if err != nil {
		return nil, nil, err
	}
	body, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	rep := pipeline.NodeReport{
		Key: "evidence", CharsIn: stages.Chars(RenderTranscript(er)), CharsOut: stages.Chars(res.Summary),
		Reason: "source " + res.Source, Duration: time.Since(start),
	}
	return append(body, '\n'), []pipeline.NodeReport{rep}, nil
}

// SessionRequest appends messages to a session, then compacts it when its
// usage has reached the threshold (or at once with Force).
type SessionRequest struct {
	Session  string    `json:"session"`
	Messages []Message `json:"messages,omitempty"`
	Force    bool      `json:"force,omitempty"`
}

// SessionResponse is the outcome and what the model would be sent now.
type SessionResponse struct {
	Result   CompactionResult `json:"result"`
	Revision uint64           `json:"revision"`
	View     []Message        `json:"view"`
}

// Session runs auto-compaction for one session.
func (j Jobs) Session(ctx context.Context, req JobRequest) ([]byte, []pipeline.NodeReport, error) {
	start := time.Now()
	if j.Store == nil {
		return nil, nil, fmt.Errorf("%w: no session store", ErrInvalid)
	}
	var sr SessionRequest
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sr); err != nil {
		return nil, nil, fmt.Errorf("%w: session request: %v", ErrInvalid, err)
	}
	if sr.Session == "" {
		return nil, nil, fmt.Errorf("%w: session request: session is required", ErrInvalid)
	}
	for _, m := range sr.Messages {
		if _, err := j.Store.Append(ctx, sr.Session, m); err != nil {
			return nil, nil, err
		}
	}
	var model ChatModel
	if req.AllowLLM {
		model = j.Model
	}
	c, err := NewCompactor(j.Config.Session, j.Store, model)
	if err != nil {
		return nil, nil, err
	}
	compact := c.Compact
	if sr.Force {
		compact = c.CompactNow
	}
	res, err := compact(ctx, sr.Session)
	if err != nil {
		return nil, nil, err
	}
	snap, err := j.Store.Load(ctx, sr.Session)
	if err != nil {
		return nil, nil, err
	}
	view := CompactedView(snap)
	body, err := json.MarshalIndent(SessionResponse{Result: res, Revision: snap.Revision, View: view}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	rep := pipeline.NodeReport{
		Key: "session", CharsIn: charsOf(FullHistory(snap)), CharsOut: charsOf(view),
		Skipped: res.Outcome != "applied", Reason: res.Outcome + reasonSuffix(res.Reason), Duration: time.Since(start),
	}
	return append(body, '\n'), []pipeline.NodeReport{rep}, nil
}

func reasonSuffix(r string) string {
	if r == "" {
		return ""
	}
	return ": " + r
}

// MeetingRequest asks for one participant's context: the chair's ("chair")
// or an agent's ("agent", with the chair's question to it).
type MeetingRequest struct {
	State    MeetingState `json:"state"`
	For      string       `json:"for"`
	Question string       `json:"question,omitempty"`
}

// MeetingResponse is the context to send, how it was built, and the
// background summary to keep in the meeting state for later rounds.
type MeetingResponse struct {
	Context           string        `json:"context"`
	Report            MeetingReport `json:"report"`
	BackgroundSummary string        `json:"background_summary,omitempty"`
}

// Meeting builds a meeting participant's context under the token budget.
func (j Jobs) Meeting(ctx context.Context, req JobRequest) ([]byte, []pipeline.NodeReport, error) {
	start := time.Now()
	var mr MeetingRequest
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mr); err != nil {
		return nil, nil, fmt.Errorf("%w: meeting request: %v", ErrInvalid, err)
	}
	var model ChatModel
	if req.AllowLLM {
		model = j.Model
	}
	m, err := NewContextManager(j.Config.Meeting, model)
	if err != nil {
		return nil, nil, err
	}
	if _, err := m.PrepareBackground(ctx, &mr.State); err != nil {
		return nil, nil, err
	}
	var text string
	var rep MeetingReport
	switch mr.For {
	case "chair":
		text, rep, err = m.ChairContext(ctx, mr.State)
	case "agent":
		text, rep, err = m.AgentContext(ctx, mr.State, mr.Question)
	default:
		return nil, nil, fmt.Errorf("%w: meeting request: for must be chair or agent, got %q", ErrInvalid, mr.For)
	}
	if err != nil {
		return nil, nil, err
	}
	body, err := json.MarshalIndent(MeetingResponse{Context: text, Report: rep, BackgroundSummary: mr.State.BackgroundSummary}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	report := pipeline.NodeReport{
		Key: "meeting", CharsIn: stages.Chars(formatEntries(mr.State.Scratchpad)), CharsOut: stages.Chars(rep.Whiteboard.Text),
		Skipped: rep.Whiteboard.Level == 0, Reason: fmt.Sprintf("level %d, background %s", rep.Whiteboard.Level, rep.Background), Duration: time.Since(start),
	}
	return append(body, '\n'), []pipeline.NodeReport{report}, nil
}
