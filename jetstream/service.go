package jetstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
	"github.com/nats-io/nats.go"
	njs "github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nats.go/micro"
	"github.com/nats-io/nuid"
)

// ServiceName is the name the NATS micro service registers under
// (`nats micro ls`).
const ServiceName = "jetcompact"

// Service endpoints, under the fleet's prefix: <prefix>.compact and
// <prefix>.get (jc.compact and jc.get by default).
const (
	EndpointCompact = "compact"
	EndpointGet     = "get"
)

// Service error codes, in the Nats-Service-Error-Code header.
const (
	ServiceBadRequest = "400" // a header or reference that does not parse
	ServiceNotFound   = "404" // no original under the reference
	ServiceTooLarge   = "413" // above max_document_bytes
	ServiceFailed     = "500" // anything else: the fleet did not answer in time, ...
)

// Service compacts and retrieves documents for request/reply clients. A
// compact goes through the fleet like any publisher's document (its
// original is stored first, then the segments run), so every reference in
// its answer resolves through get. Safe for concurrent use.
type Service struct {
	client  *Client
	salt    string
	timeout time.Duration
	// replyLife is how long a reply blob is kept for its client to read.
	replyLife time.Duration
}

// NewService serves through client. salt goes into derived document ids
// (as Document.Salt, the config fingerprint): a changed pipeline config is a new document.
func NewService(client *Client, salt string) *Service {
	return &Service{client: client, salt: salt, timeout: 10 * time.Minute, replyLife: 5 * time.Minute}
}

// CompactRequest is one text to compact.
type CompactRequest struct {
	Text         string
	Kind         stages.Kind // "" = detect
	Mode         stages.Mode // "" = the workers'
	BudgetTokens int         // 0 = the workers' budget_tokens
	// ID is the document id; "" = derived from the text and request.
	ID string
}

// CompactReply is a compacted text whose fold markers reference the
// stored original by its whole id.
type CompactReply struct {
	DocID  string          `json:"doc_id"`
	Text   string          `json:"-"`
	Report pipeline.Report `json:"report"`
	// Error is a permanent error the document met; Text is then its original.
	Error string `json:"error,omitempty"`
}

// requestID is the id a request's text is stored under, unless it names one.
func (s *Service) requestID(req CompactRequest) string {
	return DocumentID(req.Text, Settings{Kind: req.Kind, Mode: req.Mode, AllowLLM: true, Config: s.salt, Budget: req.BudgetTokens})
}

// Compact stores req's text as an original, waits for the fleet's
// result and makes its fold markers reference the original.
func (s *Service) Compact(ctx context.Context, req CompactRequest) (CompactReply, error) {
	if req.BudgetTokens != 0 {
		if _, err := ParseBudget(strconv.Itoa(req.BudgetTokens)); err != nil {
			return CompactReply{}, fmt.Errorf("%w: budget: %v", errBadRequest, err)
		}
	}
	if req.Kind != "" && stages.ParseKind(string(req.Kind)) == "" {
		return CompactReply{}, fmt.Errorf("%w: unknown kind %q", errBadRequest, truncate(string(req.Kind), 40))
	}
	if req.Mode != "" && !req.Mode.Valid() {
		return CompactReply{}, fmt.Errorf("%w: unknown mode %q", errBadRequest, truncate(string(req.Mode), 40))
	}
	if req.ID == "" {
		req.ID = s.requestID(req)
	}
	res, err := s.client.Compact(ctx, Document{ID: req.ID, Text: req.Text, Kind: req.Kind, Mode: req.Mode, AllowLLM: true, BudgetTokens: req.BudgetTokens})
	if err != nil {
		return CompactReply{}, err
	}
	budget := 0
	if res.Report.Budget != nil {
		budget = res.Report.Budget.Tokens
	}
	res.Text = pipeline.AddRefsWithin(req.Text, res.Text, res.DocID, budget, res.Report.Kind)
	if res.Report.Budget != nil {
		res.Report.Budget.TokensOut = stages.EstimateTokens(res.Text)
	}
	res.Report.CharsOut = stages.Chars(res.Text)
	return CompactReply(res), nil
}

// Get returns exactly the original text ref names: a whole document id,
// ID:L<from>-<to> or ID:B<from>-<to> (1-based, inclusive).
func (s *Service) Get(ctx context.Context, ref string) (string, error) {
	r, err := pipeline.ParseRef(ref)
	if err != nil {
		return "", fmt.Errorf("%w: %v", errBadRequest, err)
	}
	if !ValidDocID(r.ID) {
		return "", fmt.Errorf("%w: reference %q: not a document id", errBadRequest, truncate(ref, 200))
	}
	text, err := fetchOriginal(ctx, s.client.names, s.client.blobs, r.ID)
	if errors.Is(err, errOriginalMissing) {
		return "", fmt.Errorf("%w: unknown reference %s: no original stored under %s (a whole id is needed here, not a prefix)", errUnknownRef, ref, r.ID)
	}
	if err != nil || r.From == 0 {
		return text, err
	}
	part, err := r.Slice(text)
	if err != nil {
		return "", fmt.Errorf("%w: reference %s: %v", errBadRequest, ref, err)
	}
	return part, nil
}

var (
	errBadRequest = errors.New("bad request")
	errUnknownRef = errors.New("not found")
)

// Serve registers the micro service ServiceName on nc with the endpoints
// <prefix>.compact and <prefix>.get, in the queue group every worker of
// the fleet shares. Stop it with the returned service's Stop.
//
// compact: the request body is the text (or, above the payload limit, a
// Jc-Blob header naming an object <id>.<digest> in the originals object
// store <P>_ORIGINAL_BLOBS, stored as under that document id); optional
// headers Jc-Kind, Jc-Mode and Jc-Budget-Tokens. The reply body is the
// compacted text (or a Jc-Blob header naming it in the work object store
// <P>_BLOBS, named <id>:reply:<nuid>.<digest>, deleted after five
// minutes), Jc-Doc-Id, and Jc-Report, the run's
// pipeline.Report as JSON; Jc-Error when the document met a permanent
// error (the text is then its original).
//
// get: the request body is a reference (ID or ID:L<from>-<to>); the reply
// body is the original text it names (or a Jc-Blob as above).
//
// A failure is a micro error reply: Nats-Service-Error-Code 400 (a bad
// header or reference), 404 (unknown reference), 413 (too large) or 500,
// and Nats-Service-Error saying why.
func (s *Service) Serve(nc *nats.Conn, version string) (micro.Service, error) {
	svc, err := micro.AddService(nc, micro.Config{
		Name:        ServiceName,
		Version:     serviceVersion(version),
		Description: "jetcompact: compact text and retrieve stored originals (prefix " + s.client.names.Prefix + ")",
	})
	if err != nil {
		return nil, err
	}
	g := svc.AddGroup(s.client.names.Prefix)
	for name, h := range map[string]micro.HandlerFunc{EndpointCompact: s.handleCompact, EndpointGet: s.handleGet} {
		if err := g.AddEndpoint(name, recovered(h)); err != nil {
			_ = svc.Stop()
			return nil, err
		}
	}
	return svc, nil
}

// recovered answers a request whose handler panicked with an error
// reply: a bug must not take the worker down.
func recovered(h micro.HandlerFunc) micro.HandlerFunc {
	return func(r micro.Request) {
		defer func() {
			if p := recover(); p != nil {
				_ = r.Error(ServiceFailed, fmt.Sprintf("internal error: %v", p), nil)
			}
		}()
		h(r)
	}
}

// semVer is the form micro requires of a service version (semver.org's).
var semVer = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-((?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(?:\.(?:0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*))?(?:\+([0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?$`)

// serviceVersion is version without its "v" when it is semantic, else 0.0.0.
func serviceVersion(version string) string {
	if v := strings.TrimPrefix(version, "v"); semVer.MatchString(v) {
		return v
	}
	return "0.0.0"
}

func (s *Service) handleCompact(r micro.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	h := nats.Header(r.Headers())
	req := CompactRequest{Text: string(r.Data()), Kind: stages.Kind(h.Get(HeaderKind)), Mode: stages.Mode(h.Get(HeaderMode))}
	if b := h.Get(HeaderBudget); b != "" {
		n, err := ParseBudget(b)
		if err != nil {
			s.respondError(r, fmt.Errorf("%w: %s: %v", errBadRequest, HeaderBudget, err))
			return
		}
		req.BudgetTokens = n
	}
	if name := h.Get(HeaderBlob); name != "" {
		id, text, err := s.requestBlob(ctx, name)
		if err != nil {
			s.respondError(r, err)
			return
		}
		req.ID, req.Text = id, text
	}
	rep, err := s.Compact(ctx, req)
	if err != nil {
		s.respondError(r, err)
		return
	}
	report, err := json.Marshal(rep.Report)
	if err != nil {
		s.respondError(r, err)
		return
	}
	out := micro.Headers{HeaderDocID: {rep.DocID}, HeaderReport: {string(report)}}
	if rep.Error != "" {
		out[HeaderError] = []string{truncate(rep.Error, maxReasonBytes)}
	}
	s.respond(ctx, r, rep.DocID, rep.Text, out)
}

func (s *Service) handleGet(r micro.Request) {
	ctx, cancel := context.WithTimeout(context.Background(), s.timeout)
	defer cancel()
	ref := strings.TrimSpace(string(r.Data()))
	text, err := s.Get(ctx, ref)
	if err != nil {
		s.respondError(r, err)
		return
	}
	id, _, _ := strings.Cut(ref, ":")
	s.respond(ctx, r, id, text, micro.Headers{HeaderDocID: {id}})
}

// requestBlob reads a compact request's text from the originals object
// store: name is <id>.<digest of the text>, checked when read.
func (s *Service) requestBlob(ctx context.Context, name string) (id, text string, err error) {
	i := strings.LastIndexByte(name, '.')
	if i <= 0 || !ValidDocID(name[:i]) {
		return "", "", fmt.Errorf("%w: %s %q: want <document id>.<digest>", errBadRequest, HeaderBlob, truncate(name, 200))
	}
	data, err := s.client.blobs.get(ctx, s.client.blobs.originals, name, name[:i])
	if err != nil {
		return "", "", fmt.Errorf("%w: %s: %v", errBadRequest, HeaderBlob, err)
	}
	return name[:i], string(data), nil
}

// respond replies with text inline, or through the work object store
// when it is above the inline limit.
func (s *Service) respond(ctx context.Context, r micro.Request, docID, text string, h micro.Headers) {
	var body []byte
	if len(text) > s.client.cfg.InlineMaxBytes {
		// Each reply its own object: a client deletes what it read.
		name := blobName(docID+":reply:"+nuid.Next(), []byte(text))
		if err := s.client.blobs.put(ctx, s.client.blobs.work, name, []byte(text)); err != nil {
			s.respondError(r, err)
			return
		}
		h[HeaderBlob] = []string{name}
		// Deleted here, not by the client: a publisher may not write the
		// work object store.
		time.AfterFunc(s.replyLife, func() {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			_ = s.client.blobs.work.Delete(ctx, name)
		})
	} else {
		body = []byte(text)
	}
	_ = r.Respond(body, micro.WithHeaders(h))
}

func (s *Service) respondError(r micro.Request, err error) {
	code := ServiceFailed
	switch {
	case errors.Is(err, errBadRequest), errors.Is(err, errBadEnvelope), errors.Is(err, errForged):
		code = ServiceBadRequest
	case errors.Is(err, errUnknownRef):
		code = ServiceNotFound
	case strings.Contains(err.Error(), "max_document_bytes"):
		code = ServiceTooLarge
	}
	_ = r.Error(code, truncate(err.Error(), maxReasonBytes), nil)
}

// ServiceClient calls a fleet's service over NATS; large texts go
// through the object stores as Serve describes.
type ServiceClient struct {
	nc    *nats.Conn
	names Names
	cfg   Config
	blobs *blobs
}

// NewServiceClient returns a client of cfg's fleet service. The topology
// must exist.
func NewServiceClient(ctx context.Context, nc *nats.Conn, cfg Config) (*ServiceClient, error) {
	js, err := njs.New(nc)
	if err != nil {
		return nil, err
	}
	b, err := openBlobs(ctx, js, Names{cfg.Prefix})
	if err != nil {
		return nil, err
	}
	return &ServiceClient{nc: nc, names: Names{cfg.Prefix}, cfg: cfg, blobs: b}, nil
}

// ServiceError is an error reply of the service.
type ServiceError struct {
	Code, Description string
}

func (e *ServiceError) Error() string { return e.Description + " (service error " + e.Code + ")" }

// Compact sends req to <prefix>.compact and waits for the reply.
func (c *ServiceClient) Compact(ctx context.Context, req CompactRequest) (CompactReply, error) {
	m := nats.NewMsg(c.names.Prefix + "." + EndpointCompact)
	if req.Kind != "" {
		m.Header.Set(HeaderKind, string(req.Kind))
	}
	if req.Mode != "" {
		m.Header.Set(HeaderMode, string(req.Mode))
	}
	if req.BudgetTokens != 0 {
		m.Header.Set(HeaderBudget, strconv.Itoa(req.BudgetTokens))
	}
	if len(req.Text) > c.cfg.InlineMaxBytes {
		id := req.ID
		if id == "" {
			id = DocumentID(req.Text, Settings{Kind: req.Kind, Mode: req.Mode, Config: "service-client", Budget: req.BudgetTokens})
		}
		name := blobName(id, []byte(req.Text))
		if err := c.blobs.put(ctx, c.blobs.originals, name, []byte(req.Text)); err != nil {
			return CompactReply{}, err
		}
		m.Header.Set(HeaderBlob, name)
	} else {
		m.Data = []byte(req.Text)
	}
	reply, err := c.request(ctx, m)
	if err != nil {
		return CompactReply{}, err
	}
	out := CompactReply{DocID: reply.Header.Get(HeaderDocID), Error: reply.Header.Get(HeaderError)}
	if err := json.Unmarshal([]byte(reply.Header.Get(HeaderReport)), &out.Report); err != nil {
		return CompactReply{}, fmt.Errorf("service reply: %s: %w", HeaderReport, err)
	}
	out.Text, err = c.replyText(ctx, reply, out.DocID)
	return out, err
}

// Get sends ref to <prefix>.get and returns the original text it names.
func (c *ServiceClient) Get(ctx context.Context, ref string) (string, error) {
	m := nats.NewMsg(c.names.Prefix + "." + EndpointGet)
	m.Data = []byte(ref)
	reply, err := c.request(ctx, m)
	if err != nil {
		return "", err
	}
	return c.replyText(ctx, reply, reply.Header.Get(HeaderDocID))
}

func (c *ServiceClient) request(ctx context.Context, m *nats.Msg) (*nats.Msg, error) {
	reply, err := c.nc.RequestMsgWithContext(ctx, m)
	if errors.Is(err, nats.ErrNoResponders) {
		return nil, fmt.Errorf("no %s service answers on %s: are workers running (with --service)?: %w", ServiceName, m.Subject, err)
	}
	if err != nil {
		return nil, err
	}
	if code := reply.Header.Get(micro.ErrorCodeHeader); code != "" {
		return nil, &ServiceError{Code: code, Description: reply.Header.Get(micro.ErrorHeader)}
	}
	return reply, nil
}

// replyText is a reply's body, or the reply blob it names (then deleted).
func (c *ServiceClient) replyText(ctx context.Context, reply *nats.Msg, docID string) (string, error) {
	name := reply.Header.Get(HeaderBlob)
	if name == "" {
		return string(reply.Data), nil
	}
	i := strings.LastIndexByte(name, '.')
	if i < 0 || !strings.HasPrefix(name[:i], docID+":reply:") {
		return "", fmt.Errorf("%w: reply blob %q is not a reply of %s", errForged, truncate(name, 200), docID)
	}
	data, err := c.blobs.get(ctx, c.blobs.work, name, name[:i])
	return string(data), err
}
