package jetstream

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/jetcompact/jetcompact/stages"
)

// Permissions is what one role of a fleet may do on the bus: the
// subjects it may publish to (the JetStream API included) and subscribe
// to. Everything else is denied. Each role connects with its own inbox
// prefix (ConnectOptions.InboxPrefix = Inbox), so that no role reads
// the replies another one gets (pulled work, object chunks).
type Permissions struct {
	Inbox     string
	Publish   []string
	Subscribe []string
	// AllowResponses lets the role reply to the requests it receives
	// (the micro service), whatever the requester's inbox.
	AllowResponses bool
}

// Role names of RolePermissions besides one per segment ("segment <first
// stage>") and per task ("task <name>").
const (
	RolePublisher = "publisher" // submits documents, replays, runs tasks, reads results
	RoleSetup     = "setup"     // creates and updates the topology (worker --setup-only)
)

// RolePermissions returns least-privilege permissions for every role of
// cfg's fleet:
//   - publisher: publishes <p>.original.* (a new document), the task and
//     replay entries (<p>.original.task.*, <p>.work.task.*, and
//     <p>.work.<first stage>, which only replays publish to); reads
//     originals and results.
//   - segment <first>: consumes its own consumer (and the intake, for the
//     first segment), publishes to the next segment and its own
//     <p>.dead.<first>; only the guard's segment publishes <p>.result.*.
//     A segment before it hands the result of a document it dead-letters
//     to the guard (<p>.work.guard). The segment that runs llm_summary
//     also creates, reads and writes the LLM cache bucket; no other
//     segment may touch it.
//     Every segment also serves the micro service (Service.Serve): it
//     receives <p>.compact, <p>.get and the $SRV discovery requests,
//     replies to them, and submits documents as a publisher does.
//   - task <name>: consumes its consumer, publishes results; the LLM
//     cache as above.
//   - setup: the JetStream API of this prefix's streams (the topology job).
//
// Workers run with --skip-setup under these permissions.
func RolePermissions(cfg Config) map[string]Permissions {
	n := Names{cfg.Prefix}
	P := n.upper()
	api := "$JS.API."
	read := func(stream string) []string { // look up and read a stream's messages
		return []string{api + "STREAM.INFO." + stream, api + "DIRECT.GET." + stream, api + "DIRECT.GET." + stream + ".>", api + "STREAM.MSG.GET." + stream}
	}
	watch := func(stream string) []string { // ordered consumers of a stream (results watch, object reads)
		return []string{api + "CONSUMER.CREATE." + stream, api + "CONSUMER.CREATE." + stream + ".>", api + "CONSUMER.DELETE." + stream + ".>",
			api + "CONSUMER.INFO." + stream + ".>", api + "CONSUMER.MSG.NEXT." + stream + ".>", "$JS.FC." + stream + ".>"}
	}
	objRead := func(bucket string) []string { return append(read("OBJ_"+bucket), watch("OBJ_"+bucket)...) }
	objWrite := func(bucket string) []string {
		return append(objRead(bucket), "$O."+bucket+".>", api+"STREAM.PURGE.OBJ_"+bucket)
	}
	kv := func(bucket string) []string { // create or update a KV bucket, read and write it (NewLLMCache)
		s := "KV_" + bucket
		return []string{api + "INFO", api + "STREAM.CREATE." + s, api + "STREAM.UPDATE." + s, api + "STREAM.INFO." + s,
			api + "DIRECT.GET." + s + ".>", api + "STREAM.MSG.GET." + s, "$KV." + bucket + ".>"}
	}
	consume := func(stream, consumer string) []string {
		return []string{api + "CONSUMER.INFO." + stream + "." + consumer, api + "CONSUMER.MSG.NEXT." + stream + "." + consumer, "$JS.ACK." + stream + "." + consumer + ".>"}
	}
	inbox := func(role string) string { return "_INBOX_" + n.Prefix + "_" + role }
	role := func(name string, pub ...[]string) Permissions {
		p := Permissions{Inbox: inbox(name), Subscribe: []string{inbox(name) + ".>"}}
		for _, s := range pub {
			p.Publish = append(p.Publish, s...)
		}
		sort.Strings(p.Publish)
		return p
	}
	worker := [][]string{
		read(n.OriginalsStream()), read(n.ResultsStream()), {api + "STREAM.INFO." + n.WorkStream()},
		objWrite(n.BlobBucket()), objRead(n.OriginalBlobBucket()),
	}
	out := map[string]Permissions{}
	// The micro service: its requests in, and what it needs to submit a
	// document and wait for its result.
	serveSubscribe := []string{n.Prefix + "." + EndpointCompact, n.Prefix + "." + EndpointGet,
		"$SRV.*", "$SRV.*." + ServiceName, "$SRV.*." + ServiceName + ".*"}
	servePublish := append([]string{n.Prefix + ".original.*", api + "CONSUMER.INFO." + n.OriginalsStream() + "." + n.IntakeConsumer()},
		append(watch(n.ResultsStream()), objWrite(n.OriginalBlobBucket())...)...)
	entries := []string{n.Prefix + ".original.*", n.WorkSubject(cfg.Segments[0][0]), n.Prefix + "." + EndpointCompact, n.Prefix + "." + EndpointGet}
	if len(cfg.Tasks) > 0 {
		entries = append(entries, n.Prefix+".original.task.*", n.Prefix+".work.task.*")
	}
	out[RolePublisher] = role("publisher", entries,
		read(n.OriginalsStream()), read(n.ResultsStream()), read(n.DeadStream()), watch(n.ResultsStream()),
		[]string{api + "CONSUMER.INFO." + n.OriginalsStream() + "." + n.IntakeConsumer()},
		objWrite(n.OriginalBlobBucket()), objRead(n.BlobBucket()))
	for i, seg := range cfg.Segments {
		first := seg[0]
		next := []string{n.ResultSubject("*")} // the guard's segment
		if seg[len(seg)-1] != stages.KeyGuard {
			// The next segment, and the guard for a dead letter's result.
			next = []string{n.WorkSubject(cfg.Segments[i+1][0]), n.WorkSubject(stages.KeyGuard)}
		}
		perms := append([][]string{next, {n.DeadSubject(string(first))}, consume(n.WorkStream(), n.Consumer(first)), servePublish}, worker...)
		if i == 0 {
			perms = append(perms, consume(n.OriginalsStream(), n.IntakeConsumer()))
		}
		if OpensLLMCache([][]stages.Key{seg}, nil) {
			perms = append(perms, kv(n.LLMCacheBucket()))
		}
		p := role(string(first), perms...)
		p.Publish = slices.Compact(p.Publish)
		p.Subscribe, p.AllowResponses = append(p.Subscribe, serveSubscribe...), true
		out["segment "+string(first)] = p
	}
	// Tasks keep transcript sessions (NewSessionStore): append to and read
	// the session stream, and its state bucket.
	sess := SessionStoreConfigFor(cfg)
	sessions := append([]string{sess.Prefix + ".session.>", api + "STREAM.CREATE." + sess.SessionStream(), api + "STREAM.UPDATE." + sess.SessionStream()},
		read(sess.SessionStream())...)
	for _, task := range cfg.Tasks {
		perms := append([][]string{{n.ResultSubject("*"), n.DeadSubject("task_" + task)}, consume(n.WorkStream(), n.TaskConsumer(task))}, worker...)
		perms = append(perms, kv(n.LLMCacheBucket()), sessions, kv(sess.SessionBucket()))
		p := role("task_"+task, perms...)
		p.Publish = slices.Compact(p.Publish)
		out["task "+task] = p
	}
	setup := []string{api + "INFO", api + "STREAM.NAMES", api + "STREAM.LIST"}
	for _, s := range []string{n.WorkStream(), n.OriginalsStream(), n.ResultsStream(), n.DeadStream(), "OBJ_" + n.BlobBucket(), "OBJ_" + n.OriginalBlobBucket()} {
		setup = append(setup, api+"STREAM.*."+s, api+"CONSUMER.*."+s, api+"CONSUMER.*."+s+".>", api+"CONSUMER.*.*."+s+".>")
	}
	out[RoleSetup] = role("setup", setup, []string{"$O." + P + "_BLOBS.>", "$O." + P + "_ORIGINAL_BLOBS.>"})
	return out
}

// OpensLLMCache reports whether a worker serving segs and tasks calls the
// LLM, and so opens the LLM cache: it runs llm_summary or a transcript
// task. RolePermissions grants the cache to those roles alone.
func OpensLLMCache(segs [][]stages.Key, tasks []string) bool {
	for _, seg := range segs {
		if slices.Contains(seg, stages.KeyLLMSummary) {
			return true
		}
	}
	return len(tasks) > 0
}

// PermissionsConfig renders RolePermissions as the authorization block
// of a nats-server config file: one user per role, named
// <prefix>-<role> (spaces as dashes), whose password the server reads
// from the environment variable shown (e.g. $JC_PUBLISHER_PASSWORD).
func PermissionsConfig(cfg Config) string {
	perms := RolePermissions(cfg)
	roles := make([]string, 0, len(perms))
	for r := range perms {
		roles = append(roles, r)
	}
	sort.Strings(roles)
	var b strings.Builder
	fmt.Fprintf(&b, "# jetcompact fleet %q: one NATS user per role (jetstream.RolePermissions).\n", cfg.Prefix)
	b.WriteString("# Each role connects with --nats-user <user> and --nats-inbox-prefix <inbox>.\n")
	b.WriteString("authorization {\n  users = [\n")
	for _, r := range roles {
		p := perms[r]
		user, env := RoleUser(cfg.Prefix, r)
		fmt.Fprintf(&b, "    # %s; inbox %s\n", r, p.Inbox)
		fmt.Fprintf(&b, "    { user: %q, password: $%s, permissions: {\n", user, env)
		fmt.Fprintf(&b, "        publish: { allow: %s }\n", quoteList(p.Publish))
		fmt.Fprintf(&b, "        subscribe: { allow: %s }\n", quoteList(p.Subscribe))
		if p.AllowResponses {
			b.WriteString("        allow_responses: true\n")
		}
		b.WriteString("      } }\n")
	}
	b.WriteString("  ]\n}\n")
	return b.String()
}

// RoleUser is the user name PermissionsConfig gives a role, and the
// environment variable its password is read from.
func RoleUser(prefix, role string) (user, passwordEnv string) {
	user = prefix + "-" + strings.ReplaceAll(role, " ", "-")
	env := strings.ToUpper(strings.NewReplacer("-", "_", " ", "_").Replace(prefix+" "+role)) + "_PASSWORD"
	return user, env
}

func quoteList(ss []string) string {
	q := make([]string, len(ss))
	for i, s := range ss {
		q[i] = strconv.Quote(s)
	}
	return "[" + strings.Join(q, ", ") + "]"
}
