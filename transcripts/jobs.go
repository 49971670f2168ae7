package transcripts

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/stages"
)

// Jobs runs the transcript behaviours on JSON requests, the same way in
// process (publisher --local) and on the fleet (as tasks).
type Jobs struct {
	Config Config
	Model  ChatModel // nil: no model; every behaviour falls back
	Store  Store     // sessions; required by Session
	// Log gets a WARN line for every model failure, rejected answer and
	// fallback (counts, kinds and reasons; never the text). nil: slog.Default().
	Log *slog.Logger
}

// model returns the model a job may call: none unless the entry point
// allows model calls and the mode is llm or hybrid, the same gates as the
// llm_summary node (design.md, Pipeline). Algorithmic mode never calls a
// model.
func (j Jobs) model(req JobRequest) ChatModel {
	if !req.AllowLLM || !req.Mode.UsesLLM() {
		return nil
	}
	return j.Model
}

func (j Jobs) log() *slog.Logger {
	if j.Log != nil {
		return j.Log
	}
	return slog.Default()
}

// skipped logs that a job could not use its model, when the mode wanted one.
func (j Jobs) skipped(ctx context.Context, job string, req JobRequest, reason string) {
	if req.AllowLLM && req.Mode.UsesLLM() {
		j.log().WarnContext(ctx, "[Compression] "+job+": model skipped", slog.String("reason", reasonKind(reason)))
	}
}

// reasonKind keeps a reason's lead, before any detail that may quote a
// server's error or a model's words: logs carry kinds, never text.
func reasonKind(r string) string {
	if i := strings.IndexAny(r, ":(\"["); i >= 0 {
		r = r[:i]
	}
	return strings.TrimSpace(r)
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
	JobDecide   = "decide"
)

// JobNames lists every job.
func JobNames() []string { return []string{JobDebate, JobEvidence, JobSession, JobMeeting, JobDecide} }

// Run dispatches to the named job.
func (j Jobs) Run(ctx context.Context, name string, req JobRequest) ([]byte, []stages.NodeReport, error) {
	switch name {
	case JobDebate:
		return j.Debate(ctx, req)
	case JobEvidence:
		return j.Evidence(ctx, req)
	case JobSession:
		return j.Session(ctx, req)
	case JobMeeting:
		return j.Meeting(ctx, req)
	case JobDecide:
		return j.Decide(ctx, req)
	}
	return nil, nil, fmt.Errorf("%w: unknown job %q", ErrInvalid, name)
}

// Debate compresses a debate for the chairman and returns the debate JSON
// with response_compressed filled where compression applied.
func (j Jobs) Debate(ctx context.Context, req JobRequest) ([]byte, []stages.NodeReport, error) {
	start := time.Now()
	d, err := ParseDebate(bytes.NewReader(req.Body))
	if err != nil {
		return nil, nil, err
	}
	cfg := j.Config.Debate
	cfg.Mode, cfg.AllowLLM = req.Mode, req.AllowLLM
	var lookup ModelLookup
	if m := j.model(req); m != nil {
		lookup = SameModel(m)
	}
	out, rep, err := CompressDebate(ctx, d, cfg, lookup)
	if err != nil {
		return nil, nil, err
	}
	if rep.LLMGate != "" {
		j.skipped(ctx, "debate", req, rep.LLMGate)
	}
	for _, a := range rep.Answers {
		if a.Method != MethodLLM && a.Method != MethodVerbatim && rep.LLMGate == "" && a.Reason != "" {
			j.log().WarnContext(ctx, "[Compression] debate: model summary not used", slog.Int("seat", a.Seat), slog.String("reason", reasonKind(a.Reason)))
		}
	}
	body, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	reports := []stages.NodeReport{{
		Key: stages.JobStepKey(JobDebate, "gate"), CharsIn: rep.CharsIn, CharsOut: rep.CharsOut,
		Skipped: !rep.Gate.Compress, Reason: rep.Gate.Reason, Duration: time.Since(start),
	}}
	if rep.Overflow != "" {
		reports = append(reports, stages.NodeReport{Key: stages.JobStepKey(JobDebate, "window"), CharsIn: rep.CharsIn, CharsOut: rep.CharsOut, Reason: rep.Overflow})
	}
	for _, a := range rep.Answers {
		reason := a.Method
		if a.Reason != "" {
			reason += ": " + a.Reason
		}
		reports = append(reports, stages.NodeReport{
			Key:     stages.JobStepKey(JobDebate, "seat"+strconv.Itoa(a.Seat)),
			CharsIn: a.CharsIn, CharsOut: a.CharsOut, Reason: reason,
			Skipped: a.Method == MethodVerbatim || a.Method == MethodUnchanged,
		})
	}
	return append(body, '\n'), reports, nil
}

// EvidenceJob is the evidence job's request: an EvidenceRequest, and
// Debug to keep the matched text of violations in the output (operators
// only: it may hold a participant's name).
type EvidenceJob struct {
	EvidenceRequest
	Debug bool `json:"debug,omitempty"`
}

// Evidence writes the evidence-balanced summary for a final decider. Only
// its "summary" field is for the decider; "trace" maps facts to turns, and
// violations are reported by kind only unless the request asks for debug.
func (j Jobs) Evidence(ctx context.Context, req JobRequest) ([]byte, []stages.NodeReport, error) {
	start := time.Now()
	var ej EvidenceJob
	if err := json.Unmarshal(req.Body, &ej); err != nil {
		return nil, nil, fmt.Errorf("%w: evidence request JSON: %w", ErrInvalid, err)
	}
	er := ej.EvidenceRequest
	if err := er.Validate(); err != nil {
		return nil, nil, err
	}
	model := j.model(req)
	if model == nil {
		j.skipped(ctx, "evidence", req, "no model configured")
	}
	s, err := NewEvidenceSummarizer(j.Config.Evidence, model)
	if err != nil {
		return nil, nil, err
	}
	res, err := s.Summarize(ctx, er)
	if err != nil {
		return nil, nil, err
	}
	for _, a := range res.Attempts {
		if a.Error == "" && len(a.Violations) == 0 {
			continue // the accepted one
		}
		kinds := make([]string, 0, len(a.Violations))
		for _, v := range a.Violations {
			kinds = append(kinds, v.Rule)
		}
		j.log().WarnContext(ctx, "[Compression] evidence: model summary rejected",
			slog.Int("attempt", a.Attempt), slog.Bool("call_failed", a.Error != ""), slog.Any("violations", kinds))
	}
	if model != nil && res.Source == SourceExtractive {
		j.log().WarnContext(ctx, "[Compression] evidence: extractive fallback used", slog.Int("attempts", len(res.Attempts)))
	}
	if !ej.Debug {
		res = res.WithoutMatches()
	}
	body, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	rep := stages.NodeReport{
		Key: JobEvidence, CharsIn: stages.Chars(RenderTranscript(er)), CharsOut: stages.Chars(res.Summary),
		Reason: "source " + res.Source, Duration: time.Since(start),
	}
	return append(body, '\n'), []stages.NodeReport{rep}, nil
}

// DecideRequest is the decider's whole input (design.md, Evidence): the task,
// the options and the balanced summary, nothing else.
type DecideRequest struct {
	Task    string   `json:"task"`
	Options []string `json:"options"`
	Summary string   `json:"summary"`
	// ShowBalance asks the decider to count the facts for and against each
	// option before choosing. Default true.
	ShowBalance *bool `json:"show_balance,omitempty"`
}

// DecideResponse is the decider's answer.
type DecideResponse struct {
	Decision string `json:"decision"`
}

// Decide is the separate decider call. It needs a model, so it fails
// (permanently) when the mode or the entry point forbids model calls.
func (j Jobs) Decide(ctx context.Context, req JobRequest) ([]byte, []stages.NodeReport, error) {
	start := time.Now()
	var dr DecideRequest
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&dr); err != nil {
		return nil, nil, fmt.Errorf("%w: decide request: %v", ErrInvalid, err)
	}
	if strings.TrimSpace(dr.Task) == "" || len(dr.Options) < 2 || strings.TrimSpace(dr.Summary) == "" {
		return nil, nil, fmt.Errorf("%w: decide request: want a task, at least 2 options and a summary", ErrInvalid)
	}
	model := j.model(req)
	switch {
	case !req.AllowLLM:
		return nil, nil, fmt.Errorf("%w: decide calls a model, and this entry point allows none (drop --no-llm)", ErrInvalid)
	case !req.Mode.UsesLLM():
		return nil, nil, fmt.Errorf("%w: decide calls a model, and mode %s never does (use --mode llm or hybrid)", ErrInvalid, modeName(req.Mode))
	case model == nil:
		return nil, nil, fmt.Errorf("%w: decide: %w (set llm.model, $OPENAI_MODEL or --model)", ErrInvalid, ErrNoDecider)
	}
	show := dr.ShowBalance == nil || *dr.ShowBalance
	answer, err := Decide(ctx, model, dr.Task, dr.Options, dr.Summary, show, 0)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil, ctx.Err()
		}
		j.log().WarnContext(ctx, "[Compression] decide: model failed")
		return nil, nil, fmt.Errorf("decide: %w", err)
	}
	body, err := json.MarshalIndent(DecideResponse{Decision: answer}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	rep := stages.NodeReport{Key: JobDecide, CharsIn: stages.Chars(dr.Summary), CharsOut: stages.Chars(answer), Duration: time.Since(start)}
	return append(body, '\n'), []stages.NodeReport{rep}, nil
}

func modeName(m stages.Mode) string {
	if m == "" {
		return string(stages.ModeAlgorithmic)
	}
	return string(m)
}

// SessionRequest appends messages to a session, then compacts it when its
// usage has reached the threshold (or at once with Force).
type SessionRequest struct {
	Session  string    `json:"session"`
	Messages []Message `json:"messages,omitempty"`
	Force    bool      `json:"force,omitempty"`
	// History asks for the full history too, archived messages marked.
	History bool `json:"history,omitempty"`
	// Edit names the page under edit, sent verbatim in the view; other
	// pages are digests. Default: the page of the latest state message.
	Edit string `json:"edit,omitempty"`
}

// SessionResponse is the outcome and what the model would be sent now.
type SessionResponse struct {
	Result   CompactionResult `json:"result"`
	Revision uint64           `json:"revision"`
	View     []Message        `json:"view"`
	// History is every message, archived ones marked "archived": true
	// (only when the request asked for it).
	History []Message `json:"history,omitempty"`
}

// Session runs auto-compaction for one session.
func (j Jobs) Session(ctx context.Context, req JobRequest) ([]byte, []stages.NodeReport, error) {
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
	model := j.model(req)
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
	if res.Outcome == OutcomeNoSummary || res.Outcome == OutcomeDeclined {
		j.skipped(ctx, "session", req, res.Outcome+": "+res.Reason)
	}
	snap, err := j.Store.Load(ctx, sr.Session)
	if err != nil {
		return nil, nil, err
	}
	view := CompactedViewFor(snap, sr.Edit, nil)
	resp := SessionResponse{Result: res, Revision: snap.Revision, View: view}
	if sr.History {
		resp.History = FullHistory(snap)
	}
	body, err := json.MarshalIndent(resp, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	rep := stages.NodeReport{
		Key: JobSession, CharsIn: charsOf(FullHistory(snap)), CharsOut: charsOf(view),
		Skipped: res.Outcome != "applied", Reason: res.Outcome + reasonSuffix(res.Reason), Duration: time.Since(start),
	}
	return append(body, '\n'), []stages.NodeReport{rep}, nil
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
func (j Jobs) Meeting(ctx context.Context, req JobRequest) ([]byte, []stages.NodeReport, error) {
	start := time.Now()
	var mr MeetingRequest
	dec := json.NewDecoder(bytes.NewReader(req.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&mr); err != nil {
		return nil, nil, fmt.Errorf("%w: meeting request: %v", ErrInvalid, err)
	}
	model := j.model(req)
	m, err := NewContextManager(j.Config.Meeting, model)
	if err != nil {
		return nil, nil, err
	}
	bg, err := m.PrepareBackground(ctx, &mr.State)
	if err != nil {
		return nil, nil, err
	}
	if bg.Summary == "" && bg.Tokens > j.Config.Meeting.BackgroundTokens {
		j.skipped(ctx, "meeting", req, "background: "+bg.Note)
	}
	if bg.ModelFailed {
		// The client already retried under its time budget: a second call
		// for the whiteboard would only double a hang.
		if m, err = NewContextManager(j.Config.Meeting, nil); err != nil {
			return nil, nil, err
		}
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
	if rep.Whiteboard.Note != "" {
		j.skipped(ctx, "meeting", req, rep.Whiteboard.Note)
	}
	body, err := json.MarshalIndent(MeetingResponse{Context: text, Report: rep, BackgroundSummary: mr.State.BackgroundSummary}, "", "  ")
	if err != nil {
		return nil, nil, err
	}
	report := stages.NodeReport{
		Key: JobMeeting, CharsIn: stages.Chars(formatEntries(mr.State.Scratchpad)), CharsOut: stages.Chars(rep.Whiteboard.Text),
		Skipped: rep.Whiteboard.Level == 0, Reason: fmt.Sprintf("level %d, background %s", rep.Whiteboard.Level, rep.Background), Duration: time.Since(start),
	}
	return append(body, '\n'), []stages.NodeReport{report}, nil
}
