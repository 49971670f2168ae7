package manifesttest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

var (
	workerOnce sync.Once
	workerBin  string
	workerErr  error
)

// worker builds the product's worker, whose `--print-permissions --config F`
// prints jetstream.RolePermissions for F's fleet as an authorization block.
func worker(t *testing.T) string {
	t.Helper()
	workerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jetcompact-worker-")
		if err != nil {
			workerErr = err
			return
		}
		workerBin = filepath.Join(dir, "worker")
		cmd := exec.Command("go", "build", "-o", workerBin, "./cmd/worker")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			workerErr = fmt.Errorf("go build ./cmd/worker: %v\n%s", err, out)
		}
	})
	if workerErr != nil {
		t.Fatal(workerErr)
	}
	return workerBin
}

// roleUser is one user of an authorization block.
type roleUser struct {
	Role, Inbox, User, PasswordEnv string
	Publish, Subscribe             []string
	AllowResponses                 bool
}

var (
	roleComment = regexp.MustCompile(`^\s*# (.+); inbox (\S+)$`)
	userLine    = regexp.MustCompile(`^\s*\{ user: "([^"]+)", password: \$([A-Z0-9_]+), permissions: \{$`)
	allowLine   = regexp.MustCompile(`^\s*(publish|subscribe): \{ allow: (\[.*\]) \}$`)
)

// parseAuthorization reads the block `worker --print-permissions` prints
// (and the chart renders) into its users by role; any line it does not
// understand inside the users list fails.
func parseAuthorization(t *testing.T, text string) map[string]roleUser {
	t.Helper()
	out := map[string]roleUser{}
	var cur *roleUser
	in := false
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "users = [":
			in = true
		case !in || trimmed == "":
		case trimmed == "]":
			in = false
		case roleComment.MatchString(line):
			m := roleComment.FindStringSubmatch(line)
			cur = &roleUser{Role: m[1], Inbox: m[2]}
		case userLine.MatchString(line) && cur != nil:
			m := userLine.FindStringSubmatch(line)
			cur.User, cur.PasswordEnv = m[1], m[2]
		case allowLine.MatchString(line) && cur != nil:
			m := allowLine.FindStringSubmatch(line)
			var list []string
			if err := json.Unmarshal([]byte(m[2]), &list); err != nil {
				t.Fatalf("%s allow list: %v", m[1], err)
			}
			if m[1] == "publish" {
				cur.Publish = list
			} else {
				cur.Subscribe = list
			}
		case trimmed == "allow_responses: true" && cur != nil:
			cur.AllowResponses = true
		case trimmed == "} }" && cur != nil:
			if _, dup := out[cur.Role]; dup {
				t.Fatalf("role %s twice", cur.Role)
			}
			out[cur.Role] = *cur
			cur = nil
		default:
			t.Fatalf("unexpected line in the authorization block: %q", line)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no users in:\n%s", text)
	}
	return out
}

// The per-role users the chart renders equal what the worker prints with
// --print-permissions for the same rendered config, role by role, for
// several fleets (prefixes, cuts into segments, task lists); and each
// segment's workers and the topology Job connect as their role.
func TestRolePermissionsMatchTheWorker(t *testing.T) {
	bin := worker(t)
	const algo = "structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact"
	fleets := map[string]string{
		"defaults": `nats: {roles: {enabled: true, existingSecret: roles}}
segments:
- {name: algorithmic, stages: [` + algo + `]}
- {name: llm-summary, stages: [llm_summary]}
- {name: guard, stages: [guard]}
`,
		"prefix team-a four segments one task": `nats: {roles: {enabled: true, existingSecret: roles}}
config: {fleet: {prefix: team-a, tasks: [debate]}}
segments:
- {name: structured, stages: [structured, dedup]}
- {name: rest, stages: [whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact]}
- {name: llm, stages: [llm_summary], natsSecret: llm-only}
- {name: guard, stages: [guard]}
`,
		"fused no tasks": `nats: {roles: {enabled: true, existingSecret: roles}}
config: {fleet: {prefix: acme, tasks: []}}
segments:
- {name: fused, stages: [` + algo + `, llm_summary]}
- {name: guard, stages: [guard]}
`,
	}
	for name, values := range fleets {
		t.Run(name, func(t *testing.T) {
			m := render(t, withValues(t, values)...)
			chart := parseAuthorization(t, configMap(t, m, fullname+"-nats-auth").Data["auth.conf"])

			cfg := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(cfg, []byte(configMap(t, m, fullname).Data["config.yaml"]), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "--print-permissions", "--config", cfg).CombinedOutput()
			if err != nil {
				t.Fatalf("worker --print-permissions: %v\n%s", err, out)
			}
			code := parseAuthorization(t, string(out))
			if got, want := keys(chart), keys(code); !slices.Equal(got, want) {
				t.Fatalf("chart roles %v, worker roles %v", got, want)
			}
			for role, want := range code {
				got := chart[role]
				if got.User != want.User || got.PasswordEnv != want.PasswordEnv || got.Inbox != want.Inbox {
					t.Errorf("%s: chart user %s/$%s/%s, worker %s/$%s/%s", role, got.User, got.PasswordEnv, got.Inbox, want.User, want.PasswordEnv, want.Inbox)
				}
				if !slices.Equal(got.Publish, want.Publish) {
					t.Errorf("%s publish:\nchart  %v\nworker %v", role, got.Publish, want.Publish)
				}
				if got.AllowResponses != want.AllowResponses {
					t.Errorf("%s allow_responses: chart %v, worker %v", role, got.AllowResponses, want.AllowResponses)
				}
				if !slices.Equal(got.Subscribe, want.Subscribe) {
					t.Errorf("%s subscribe:\nchart  %v\nworker %v", role, got.Subscribe, want.Subscribe)
				}
			}

			// Each segment connects as "segment <first stage>", the Job as setup.
			for _, d := range Of[*appsv1.Deployment](m) {
				c := container(t, d.Spec.Template.Spec)
				first := strings.Split(d.Annotations["jetcompact.io/stages"], ",")[0]
				checkRoleEnv(t, "Deployment/"+d.Name, c.Env, c.Args, code["segment "+first], d.Name == fullname+"-llm")
			}
			jobs := Of[*batchv1.Job](m)
			if len(jobs) != 1 {
				t.Fatalf("Jobs = %d", len(jobs))
			}
			jc := container(t, jobs[0].Spec.Template.Spec)
			checkRoleEnv(t, "topology Job", jc.Env, nil, code["setup"], false)
		})
	}
}

func checkRoleEnv(t *testing.T, what string, envs []corev1.EnvVar, args []string, want roleUser, ownSecret bool) {
	t.Helper()
	get := func(name string) *corev1.EnvVar {
		for i := range envs {
			if envs[i].Name == name {
				return &envs[i]
			}
		}
		return nil
	}
	if e := get("NATS_USER"); e == nil || e.Value != want.User {
		t.Errorf("%s NATS_USER = %+v, want %s", what, e, want.User)
	}
	if e := get("NATS_INBOX_PREFIX"); e == nil || e.Value != want.Inbox {
		t.Errorf("%s NATS_INBOX_PREFIX = %+v, want %s", what, e, want.Inbox)
	}
	secret := "roles"
	if ownSecret {
		secret = "llm-only"
	}
	e := get("NATS_PASSWORD")
	if e == nil || e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
		e.ValueFrom.SecretKeyRef.Name != secret || e.ValueFrom.SecretKeyRef.Key != want.PasswordEnv {
		t.Errorf("%s NATS_PASSWORD = %+v, want secretKeyRef %s/%s", what, e, secret, want.PasswordEnv)
	}
	if args != nil && !slices.Contains(args, "--skip-setup") {
		t.Errorf("%s runs without --skip-setup under per-role users: %v", what, args)
	}
}

// Per-role users refuse what cannot work, naming the value to fix.
func TestRolesInvalidValuesFail(t *testing.T) {
	for name, tc := range map[string]struct{ values, want string }{
		"no secret":         {"nats: {roles: {enabled: true}}\nsegments: [{name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary]}, {name: g, stages: [guard]}]\n", "nats.roles.existingSecret"},
		"segment tasks":     {"nats: {roles: {enabled: true, existingSecret: r}}\n", "serves tasks"},
		"shared user too":   {"nats: {roles: {enabled: true, existingSecret: r}, auth: {token: {value: t}}}\nsegments: [{name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary]}, {name: g, stages: [guard]}]\n", "unset nats.auth"},
		"embedded":          {"embedded: {enabled: true, allowUnauthenticated: true}\nnetworkPolicy: {ingress: {allowAnyClient: true}}\nnats: {roles: {enabled: true, existingSecret: r}}\n", "keeps a full-access user of its own"},
		"segment no secret": {"topology: {enabled: false}\nnats: {roles: {enabled: true}}\nsegments: [{name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary], natsSecret: s}, {name: g, stages: [guard]}]\n", "segment g has no credentials"},
	} {
		t.Run(name, func(t *testing.T) {
			_, stderr, err := helmTemplate(t, withValues(t, tc.values)...)
			if err == nil || !strings.Contains(stderr, tc.want) {
				t.Errorf("err %v, %s; want %q", err, strings.TrimSpace(stderr), tc.want)
			}
		})
	}
	// Off by default: no auth ConfigMap, no role users.
	m := render(t)
	for _, d := range Of[*appsv1.Deployment](m) {
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "NATS_USER" || e.Name == "NATS_INBOX_PREFIX" {
				t.Errorf("%s has %s by default", d.Name, e.Name)
			}
		}
	}
	for _, it := range m.Items {
		if it.Name == fullname+"-nats-auth" {
			t.Error("the authorization ConfigMap is rendered by default")
		}
	}
}

// Embedded mode: the worker's own server loads the chart's authorization
// block (--embedded-authorization, mounted from the ConfigMap, passwords
// from the role Secret as environment), which equals --print-permissions
// for the embedded fleet; the worker binary starts its server with that
// very file, and refuses it when a role's password is missing.
func TestEmbeddedRoleUsers(t *testing.T) {
	bin := worker(t)
	m := render(t, append(embedded(), withValues(t, `nats:
  auth:
    token: null
    userPassword: {existingSecret: embedded-worker}
  roles: {enabled: true, existingSecret: roles}
`)...)...)
	authConf := configMap(t, m, fullname+"-nats-auth").Data["auth.conf"]
	chart := parseAuthorization(t, authConf)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(configMap(t, m, fullname).Data["config.yaml"]), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(bin, "--print-permissions", "--config", cfg).CombinedOutput()
	if err != nil {
		t.Fatalf("worker --print-permissions: %v\n%s", err, out)
	}
	code := parseAuthorization(t, string(out))
	if fmt.Sprint(chart) != fmt.Sprint(code) {
		t.Errorf("embedded roles differ:\nchart  %v\nworker %v", chart, code)
	}

	d := deployments(m)[fullname]
	spec := d.Spec.Template.Spec
	c := container(t, spec)
	path, _ := argValue(c.Args, "--embedded-authorization")
	if path != "/etc/jetcompact/nats-auth/auth.conf" {
		t.Errorf("--embedded-authorization = %q", path)
	}
	if v := volume(spec, "nats-auth"); v == nil || v.ConfigMap == nil || v.ConfigMap.Name != fullname+"-nats-auth" {
		t.Errorf("nats-auth volume = %+v", v)
	}
	if len(c.EnvFrom) != 1 || c.EnvFrom[0].SecretRef == nil || c.EnvFrom[0].SecretRef.Name != "roles" {
		t.Errorf("envFrom = %+v, want the role Secret", c.EnvFrom)
	}
	if e := env(c, "NATS_USER"); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef.Name != "embedded-worker" {
		t.Errorf("the worker's own NATS_USER = %+v", e)
	}

	// The product's embedded server starts with this file.
	authFile := filepath.Join(dir, "auth.conf")
	if err := os.WriteFile(authFile, []byte(authConf), 0o600); err != nil {
		t.Fatal(err)
	}
	run := func(skip string) ([]byte, error) {
		cmd := exec.Command(bin, "--embedded", "--setup-only", "--config", cfg, "--store-dir", t.TempDir(),
			"--embedded-listen", "127.0.0.1:0", "--embedded-authorization", authFile, "--http-addr", "")
		for _, e := range os.Environ() {
			if !strings.HasPrefix(e, "NATS_") {
				cmd.Env = append(cmd.Env, e)
			}
		}
		cmd.Env = append(cmd.Env, "NATS_USER=embedded-worker", "NATS_PASSWORD=pw-worker")
		for _, r := range code {
			if r.Role != skip {
				cmd.Env = append(cmd.Env, r.PasswordEnv+"=pw-"+strings.ReplaceAll(r.Role, " ", "-"))
			}
		}
		return cmd.CombinedOutput()
	}
	if out, err := run(""); err != nil {
		t.Errorf("worker --embedded --embedded-authorization with the chart's block: %v\n%s", err, out)
	}
	if out, err := run("publisher"); err == nil || !strings.Contains(string(out), code["publisher"].PasswordEnv) {
		t.Errorf("without the publisher's password: err %v\n%s", err, out)
	}
}
