package manifesttest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// Stage keys in pipeline order; the default segments split them 9/1/1.
var (
	algorithmicStages = []string{"structured", "dedup", "whitespace", "log_dedup", "near_dup", "number_normalize", "stopwords", "keywords", "headtail", "redact"}
	allStages         = append(slices.Clone(algorithmicStages), "llm_summary", "guard")
)

const fullname = release + "-jetcompact"

func production() []string { return []string{"-f", valuesFile("ci/values-production.yaml")} }
func embedded() []string   { return []string{"-f", valuesFile("ci/values-embedded.yaml")} }

// withValues writes a values file for one render and returns its -f args.
func withValues(t *testing.T, values string) []string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "values.yaml")
	if err := os.WriteFile(p, []byte(values), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"-f", p}
}

// Inline secrets: the chart must create Secrets from them and reference
// those, never copy the values into a pod spec or the ConfigMap.
const (
	inlineLLMKey   = "sk-inline-llm-key-7f3a9c"
	inlineUser     = "inline-nats-user-51ab"
	inlinePassword = "inline-nats-password-c0ffee"
	inlineCA       = "-----BEGIN CERTIFICATE-----\ninline-ca-d41d8c\n-----END CERTIFICATE-----\n"
	inlineCert     = "-----BEGIN CERTIFICATE-----\ninline-cert-98f00b\n-----END CERTIFICATE-----\n"
	inlineKey      = "-----BEGIN PRIVATE KEY-----\ninline-key-204e98\n-----END PRIVATE KEY-----\n"
	inlineCreds    = "-----BEGIN NATS USER JWT-----\ninline-creds-jwt-0e5a1\n------END NATS USER JWT------\n"
	inlineToken    = "inline-nats-token-77e1d2"
)

func inlineSecretsValues() string {
	b, _ := yaml.Marshal(map[string]any{
		"llm": map[string]any{"apiKey": inlineLLMKey},
		"nats": map[string]any{
			"auth": map[string]any{"userPassword": map[string]any{"username": inlineUser, "password": inlinePassword}},
			"tls":  map[string]any{"enabled": true, "ca": inlineCA, "cert": inlineCert, "key": inlineKey},
		},
		"networkPolicy": map[string]any{"egress": map[string]any{"llm": map[string]any{"cidrs": []string{"203.0.113.0/24"}}}},
	})
	return string(b)
}

// ---- helpers over a render ----

func deployments(m *Manifests) map[string]*appsv1.Deployment {
	out := map[string]*appsv1.Deployment{}
	for _, d := range Of[*appsv1.Deployment](m) {
		out[d.Name] = d
	}
	return out
}

// podTemplates returns every pod template: Deployments and Jobs.
func podTemplates(m *Manifests) map[string]corev1.PodTemplateSpec {
	out := map[string]corev1.PodTemplateSpec{}
	for _, d := range Of[*appsv1.Deployment](m) {
		out["Deployment/"+d.Name] = d.Spec.Template
	}
	for _, j := range Of[*batchv1.Job](m) {
		out["Job/"+j.Name] = j.Spec.Template
	}
	return out
}

func container(t *testing.T, spec corev1.PodSpec) corev1.Container {
	t.Helper()
	if len(spec.Containers) != 1 {
		t.Fatalf("want 1 container, got %d", len(spec.Containers))
	}
	return spec.Containers[0]
}

func env(c corev1.Container, name string) *corev1.EnvVar {
	for i := range c.Env {
		if c.Env[i].Name == name {
			return &c.Env[i]
		}
	}
	return nil
}

func volume(spec corev1.PodSpec, name string) *corev1.Volume {
	for i := range spec.Volumes {
		if spec.Volumes[i].Name == name {
			return &spec.Volumes[i]
		}
	}
	return nil
}

func configMap(t *testing.T, m *Manifests, name string) *corev1.ConfigMap {
	t.Helper()
	for _, cm := range Of[*corev1.ConfigMap](m) {
		if cm.Name == name {
			return cm
		}
	}
	t.Fatalf("no ConfigMap %s", name)
	return nil
}

// fleetConfig decodes the worker config file from the chart's ConfigMap.
type fleetConfig struct {
	Pipeline map[string]any `json:"pipeline"`
	LLM      map[string]any `json:"llm"`
	Fleet    struct {
		Prefix       string            `json:"prefix"`
		Replicas     int               `json:"replicas"`
		Segments     [][]string        `json:"segments"`
		SegmentNames map[string]string `json:"segment_names"`
	} `json:"fleet"`
	Telemetry map[string]any `json:"telemetry"`
}

func workerConfig(t *testing.T, m *Manifests, cmName string) fleetConfig {
	t.Helper()
	var c fleetConfig
	if err := yaml.Unmarshal([]byte(configMap(t, m, cmName).Data["config.yaml"]), &c); err != nil {
		t.Fatalf("config.yaml: %v", err)
	}
	return c
}

func argValue(args []string, flag string) (string, bool) {
	for _, a := range args {
		if v, ok := strings.CutPrefix(a, flag+"="); ok {
			return v, true
		}
		if a == flag {
			return "", true
		}
	}
	return "", false
}

// ---- tests ----

// kubeVersions are the Kubernetes versions the chart is rendered for: the
// oldest and newest of those issue 18 names, and the current one.
var kubeVersions = []string{"1.29.0", "1.33.0", kubeVersion}

// The chart renders offline as it is: no dependencies to fetch, a
// kubeVersion that admits every version rendered, and every values set
// renders at each of them with helm's network and repositories cut off.
func TestChartRendersOfflineAsItIs(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(chartPath, "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var chart map[string]any
	if err := yaml.Unmarshal(data, &chart); err != nil {
		t.Fatal(err)
	}
	if chart["apiVersion"] != "v2" {
		t.Errorf("apiVersion = %v, want v2", chart["apiVersion"])
	}
	if deps, ok := chart["dependencies"]; ok {
		t.Errorf("Chart.yaml declares dependencies %v; the chart must render offline", deps)
	}
	if kv, _ := chart["kubeVersion"].(string); kv == "" {
		t.Error("Chart.yaml has no kubeVersion")
	}
	for _, kube := range kubeVersions {
		for name, args := range map[string][]string{"defaults": nil, "production": production(), "embedded": embedded(), "roles": {"-f", valuesFile("ci/values-roles.yaml")}} {
			out, stderr, err := helmTemplateAt(t, kube, args...)
			if err != nil {
				t.Errorf("Kubernetes %s, %s: %v\n%s", kube, name, err, stderr)
				continue
			}
			if _, err := decodeAll(out); err != nil {
				t.Errorf("Kubernetes %s, %s: %v", kube, name, err)
			}
		}
	}
	// Below the chart's kubeVersion the render is refused.
	if _, stderr, err := helmTemplateAt(t, "1.20.0"); err == nil || !strings.Contains(stderr, "kubeVersion") {
		t.Errorf("Kubernetes 1.20: err %v, %s", err, stderr)
	}
}

// The strict decoder must refuse what the API server would: unknown
// fields, wrong types, unknown kinds; and the CRD structs likewise.
func TestStrictDecoderRejectsMistakes(t *testing.T) {
	bad := map[string]string{
		"unknown field": `apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  selector: {matchLabels: {a: b}}
  template:
    metadata: {labels: {a: b}}
    spec:
      containers:
        - name: c
          image: i
          imagePullPolcy: Always
`,
		"wrong type": `apiVersion: apps/v1
kind: Deployment
metadata: {name: x}
spec:
  replicas: two
  selector: {matchLabels: {a: b}}
  template: {metadata: {labels: {a: b}}, spec: {containers: [{name: c, image: i}]}}
`,
		"duplicate field": `apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data: {a: "1"}
data: {b: "2"}
`,
		"unknown kind": `apiVersion: example.com/v1
kind: Widget
metadata: {name: x}
`,
		"ScaledObject misspelt field": `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: x}
spec:
  scaleTargetRef: {name: x}
  minReplicas: 1
  triggers: [{type: nats-jetstream, metadata: {stream: S}}]
`,
		"ScaledObject non-string metadata": `apiVersion: keda.sh/v1alpha1
kind: ScaledObject
metadata: {name: x}
spec:
  scaleTargetRef: {name: x}
  triggers: [{type: nats-jetstream, metadata: {lagThreshold: 10}}]
`,
		"ServiceMonitor misplaced field": `apiVersion: monitoring.coreos.com/v1
kind: ServiceMonitor
metadata: {name: x}
spec:
  selector: {matchLabels: {a: b}}
  path: /metrics
  endpoints: [{port: http}]
`,
	}
	for name, doc := range bad {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeOne([]byte(doc)); err == nil {
				t.Errorf("decoded without error:\n%s", doc)
			}
		})
	}
	good := `apiVersion: v1
kind: ConfigMap
metadata: {name: x}
data: {a: "1"}
`
	if _, err := decodeOne([]byte(good)); err != nil {
		t.Errorf("valid ConfigMap: %v", err)
	}
}

// Every manifest of every values set decodes strictly and carries valid
// names and labels.
func TestRenderedManifestsDecodeStrictly(t *testing.T) {
	sets := map[string]func(t *testing.T) []string{
		"defaults":       func(*testing.T) []string { return nil },
		"production":     func(*testing.T) []string { return production() },
		"embedded":       func(*testing.T) []string { return embedded() },
		"inline-secrets": func(t *testing.T) []string { return withValues(t, inlineSecretsValues()) },
		"inline-creds": func(t *testing.T) []string {
			return withValues(t, "nats:\n  auth:\n    creds:\n      content: |\n        "+strings.ReplaceAll(strings.TrimSpace(inlineCreds), "\n", "\n        ")+"\n")
		},
		"inline-token": func(*testing.T) []string { return []string{"--set", "nats.auth.token.value=" + inlineToken} },
		"hpa":          func(*testing.T) []string { return []string{"--set", "segmentDefaults.autoscaling.hpa.enabled=true"} },
		"roles":        func(*testing.T) []string { return []string{"-f", valuesFile("ci/values-roles.yaml")} },
	}
	for name, args := range sets {
		t.Run(name, func(t *testing.T) {
			m := render(t, args(t)...)
			if len(m.Items) == 0 {
				t.Fatal("rendered nothing")
			}
			for _, it := range m.Items {
				if errs := validation.IsDNS1123Subdomain(it.Name); len(errs) > 0 {
					t.Errorf("%s %q: %v", it.Kind, it.Name, errs)
				}
				if it.Kind == "Service" {
					if errs := validation.IsDNS1035Label(it.Name); len(errs) > 0 {
						t.Errorf("Service %q: %v", it.Name, errs)
					}
				}
				if mo, ok := it.Obj.(metav1.Object); ok {
					checkLabels(t, it.Kind+"/"+it.Name, mo.GetLabels())
				}
			}
			for name, pt := range podTemplates(m) {
				checkLabels(t, name+" pod", pt.Labels)
				for _, c := range pt.Spec.Containers {
					for _, p := range c.Ports {
						if errs := validation.IsValidPortName(p.Name); len(errs) > 0 {
							t.Errorf("%s port %q: %v", name, p.Name, errs)
						}
					}
				}
			}
		})
	}
}

func checkLabels(t *testing.T, what string, labels map[string]string) {
	t.Helper()
	for k, v := range labels {
		if errs := validation.IsQualifiedName(k); len(errs) > 0 {
			t.Errorf("%s label key %q: %v", what, k, errs)
		}
		if errs := validation.IsValidLabelValue(v); len(errs) > 0 {
			t.Errorf("%s label %s=%q: %v", what, k, v, errs)
		}
	}
}

func TestDefaultsOneDeploymentPerSegment(t *testing.T) {
	m := render(t)
	want := map[string][]string{
		fullname + "-algorithmic": algorithmicStages,
		fullname + "-llm-summary": {"llm_summary"},
		fullname + "-guard":       {"guard"},
	}
	deps := deployments(m)
	if len(deps) != len(want) {
		t.Fatalf("Deployments = %v, want %d", keys(deps), len(want))
	}
	services := map[string]*corev1.Service{}
	for _, s := range Of[*corev1.Service](m) {
		services[s.Name] = s
	}
	for name, stages := range want {
		d, ok := deps[name]
		if !ok {
			t.Errorf("no Deployment %s", name)
			continue
		}
		c := container(t, d.Spec.Template.Spec)
		if got, _ := argValue(c.Args, "--segment"); got != strings.Join(stages, ",") {
			t.Errorf("%s --segment = %q, want %q", name, got, strings.Join(stages, ","))
		}
		if got, _ := argValue(c.Args, "--config"); got != "/etc/jetcompact/config.yaml" {
			t.Errorf("%s --config = %q", name, got)
		}
		// Transcript tasks are served by the LLM segment only.
		wantTasks := "none"
		if name == fullname+"-llm-summary" {
			wantTasks = "debate,evidence,session,meeting,decide"
		}
		if got, _ := argValue(c.Args, "--tasks"); got != wantTasks {
			t.Errorf("%s --tasks = %q, want %q", name, got, wantTasks)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 {
			t.Errorf("%s replicas = %v, want 1", name, d.Spec.Replicas)
		}
		if e := env(c, "NATS_URL"); e == nil || e.Value != "nats://nats:4222" {
			t.Errorf("%s NATS_URL = %+v", name, e)
		}
		s, ok := services[name]
		if !ok {
			t.Errorf("no Service %s", name)
			continue
		}
		if len(s.Spec.Ports) != 1 || s.Spec.Ports[0].Name != "http" || s.Spec.Ports[0].Port != 8080 || s.Spec.Ports[0].TargetPort.StrVal != "http" {
			t.Errorf("Service %s ports = %+v", name, s.Spec.Ports)
		}
		for k, v := range s.Spec.Selector {
			if d.Spec.Template.Labels[k] != v {
				t.Errorf("Service %s selector %s=%s does not match its pods", name, k, v)
			}
		}
	}
	// One replica, no autoscaling: no PodDisruptionBudget, no autoscaler.
	if n := len(Of[*policyv1.PodDisruptionBudget](m)); n != 0 {
		t.Errorf("%d PodDisruptionBudgets at one replica each", n)
	}
	if n := len(Of[*autoscalingv2.HorizontalPodAutoscaler](m)) + len(Of[*ScaledObject](m)); n != 0 {
		t.Errorf("%d autoscalers by default", n)
	}
	if n := len(Of[*ServiceMonitor](m)); n != 0 {
		t.Errorf("ServiceMonitor rendered by default")
	}
}

func keys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func TestConfigMapCarriesFleetSegments(t *testing.T) {
	c := workerConfig(t, render(t), fullname)
	want := [][]string{algorithmicStages, {"llm_summary"}, {"guard"}}
	if fmt.Sprint(c.Fleet.Segments) != fmt.Sprint(want) {
		t.Errorf("fleet.segments = %v, want %v", c.Fleet.Segments, want)
	}
	// Metrics label each segment with its chart name, keyed by its first stage.
	wantNames := map[string]string{"structured": "algorithmic", "llm_summary": "llm-summary", "guard": "guard"}
	if fmt.Sprint(c.Fleet.SegmentNames) != fmt.Sprint(wantNames) {
		t.Errorf("fleet.segment_names = %v, want %v", c.Fleet.SegmentNames, wantNames)
	}
	if c.Fleet.Prefix != "jc" || c.Fleet.Replicas != 1 {
		t.Errorf("fleet = %+v", c.Fleet)
	}
	if c.Pipeline["mode"] != "algorithmic" || c.Telemetry["exporter"] == nil || c.LLM["model"] == nil {
		t.Errorf("config sections: pipeline=%v llm=%v telemetry=%v", c.Pipeline, c.LLM, c.Telemetry)
	}

	p := workerConfig(t, render(t, production()...), fullname)
	if p.Fleet.Replicas != 3 || len(p.Fleet.Segments) != 3 {
		t.Errorf("production fleet = %+v, want R3 streams and 3 segments", p.Fleet)
	}
}

func TestSecretsReferencedNeverInlined(t *testing.T) {
	m := render(t, withValues(t, inlineSecretsValues())...)
	secrets := map[string]*corev1.Secret{}
	for _, s := range Of[*corev1.Secret](m) {
		secrets[s.Name] = s
	}
	check := func(plain, secretName, key string) {
		t.Helper()
		if strings.Contains(m.Text, plain) {
			t.Errorf("secret value %q appears in plain text in the rendered manifests", plain)
		}
		enc := base64.StdEncoding.EncodeToString([]byte(plain))
		for _, it := range m.Items {
			if it.Kind != "Secret" && strings.Contains(string(it.Raw), enc) {
				t.Errorf("secret value %q appears (base64) in %s %s", plain, it.Kind, it.Name)
			}
		}
		s, ok := secrets[secretName]
		if !ok {
			t.Errorf("no Secret %s", secretName)
			return
		}
		if got := string(s.Data[key]); got != plain {
			t.Errorf("Secret %s[%s] = %q, want %q", secretName, key, got, plain)
		}
	}
	check(inlineLLMKey, fullname+"-llm", "api-key")
	check(inlineUser, fullname+"-nats-user", "username")
	check(inlinePassword, fullname+"-nats-user", "password")
	check(inlineCA, fullname+"-nats-tls", "ca.crt")
	check(inlineCert, fullname+"-nats-tls", "tls.crt")
	check(inlineKey, fullname+"-nats-tls", "tls.key")

	for name, pt := range podTemplates(m) {
		spec := pt.Spec
		c := container(t, spec)
		for _, e := range c.Env {
			for _, s := range []string{inlineLLMKey, inlineUser, inlinePassword} {
				if strings.Contains(e.Value, s) {
					t.Errorf("%s env %s holds a secret value", name, e.Name)
				}
			}
		}
		for _, want := range []struct{ env, secret, key string }{
			{"NATS_USER", fullname + "-nats-user", "username"},
			{"NATS_PASSWORD", fullname + "-nats-user", "password"},
		} {
			e := env(c, want.env)
			if e == nil || e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
				e.ValueFrom.SecretKeyRef.Name != want.secret || e.ValueFrom.SecretKeyRef.Key != want.key {
				t.Errorf("%s env %s = %+v, want secretKeyRef %s/%s", name, want.env, e, want.secret, want.key)
			}
		}
		v := volume(spec, "nats-tls")
		if v == nil || v.Secret == nil || v.Secret.SecretName != fullname+"-nats-tls" {
			t.Errorf("%s: nats-tls volume = %+v", name, v)
		}
		for flag, file := range map[string]string{"--tls-ca": "ca.crt", "--tls-cert": "tls.crt", "--tls-key": "tls.key"} {
			if got, _ := argValue(c.Args, flag); got != "/var/run/secrets/jetcompact/tls/"+file {
				t.Errorf("%s %s = %q", name, flag, got)
			}
		}
		mounted := false
		for _, vm := range c.VolumeMounts {
			if vm.Name == "nats-tls" && vm.MountPath == "/var/run/secrets/jetcompact/tls" && vm.ReadOnly {
				mounted = true
			}
		}
		if !mounted {
			t.Errorf("%s: nats-tls not mounted read-only", name)
		}
	}
	for _, cm := range Of[*corev1.ConfigMap](m) {
		for k, v := range cm.Data {
			if strings.Contains(v, inlineLLMKey) || strings.Contains(v, inlinePassword) {
				t.Errorf("ConfigMap %s[%s] holds a secret", cm.Name, k)
			}
		}
	}
}

func TestCredsAndTokenReferenced(t *testing.T) {
	creds := render(t, withValues(t, "nats:\n  auth:\n    creds:\n      content: |\n        "+strings.ReplaceAll(strings.TrimSpace(inlineCreds), "\n", "\n        ")+"\n")...)
	if strings.Contains(creds.Text, "inline-creds-jwt") {
		t.Error("creds content appears in plain text")
	}
	for name, pt := range podTemplates(creds) {
		c := container(t, pt.Spec)
		if got, _ := argValue(c.Args, "--nats-creds"); got != "/var/run/secrets/jetcompact/nats/nats.creds" {
			t.Errorf("%s --nats-creds = %q", name, got)
		}
		v := volume(pt.Spec, "nats-creds")
		if v == nil || v.Secret == nil || v.Secret.SecretName != fullname+"-nats-creds" ||
			len(v.Secret.Items) != 1 || v.Secret.Items[0].Path != "nats.creds" {
			t.Errorf("%s nats-creds volume = %+v", name, v)
		}
	}

	token := render(t, "--set", "nats.auth.token.value="+inlineToken)
	if strings.Contains(token.Text, inlineToken) {
		t.Error("token appears in plain text")
	}
	for name, pt := range podTemplates(token) {
		e := env(container(t, pt.Spec), "NATS_TOKEN")
		if e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != fullname+"-nats-token" {
			t.Errorf("%s NATS_TOKEN = %+v", name, e)
		}
	}

	// Existing secrets (production): referenced by name, nothing created.
	prod := render(t, production()...)
	if n := len(Of[*corev1.Secret](prod)); n != 0 {
		t.Errorf("production created %d Secrets; it names existing ones", n)
	}
	for name, pt := range podTemplates(prod) {
		if v := volume(pt.Spec, "nats-creds"); v == nil || v.Secret.SecretName != "jetcompact-nats-creds" {
			t.Errorf("%s: creds volume = %+v", name, v)
		}
		if v := volume(pt.Spec, "nats-tls"); v == nil || v.Secret.SecretName != "jetcompact-nats-client-tls" {
			t.Errorf("%s: tls volume = %+v", name, v)
		}
	}
}

// The LLM key goes only where llm_summary runs, by secretKeyRef.
func TestLLMKeyOnlyInLLMSegments(t *testing.T) {
	m := render(t, production()...)
	for name, pt := range podTemplates(m) {
		e := env(container(t, pt.Spec), "OPENAI_API_KEY")
		wantKey := name == "Deployment/"+fullname+"-llm-summary"
		if !wantKey {
			if e != nil {
				t.Errorf("%s has OPENAI_API_KEY; only the llm_summary segment needs it", name)
			}
			continue
		}
		if e == nil || e.Value != "" || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil ||
			e.ValueFrom.SecretKeyRef.Name != "jetcompact-llm" || e.ValueFrom.SecretKeyRef.Key != "api-key" {
			t.Errorf("%s OPENAI_API_KEY = %+v, want secretKeyRef jetcompact-llm/api-key", name, e)
		}
	}

	all := render(t, append(production(), "--set", "llm.onlyLLMSegments=false")...)
	for name, d := range deployments(all) {
		if env(container(t, d.Spec.Template.Spec), "OPENAI_API_KEY") == nil {
			t.Errorf("%s: no OPENAI_API_KEY with llm.onlyLLMSegments=false", name)
		}
	}
}

func TestProbesOnNamedHTTPPort(t *testing.T) {
	for _, args := range [][]string{nil, production(), embedded()} {
		m := render(t, args...)
		for name, d := range deployments(m) {
			c := container(t, d.Spec.Template.Spec)
			var http *corev1.ContainerPort
			for i := range c.Ports {
				if c.Ports[i].Name == "http" {
					http = &c.Ports[i]
				}
			}
			if http == nil || http.ContainerPort != 8080 {
				t.Errorf("%s: http port = %+v", name, http)
			}
			if got, _ := argValue(c.Args, "--http-addr"); got != ":8080" {
				t.Errorf("%s --http-addr = %q", name, got)
			}
			for probe, want := range map[*corev1.Probe]string{c.LivenessProbe: "/healthz", c.ReadinessProbe: "/readyz"} {
				if probe == nil || probe.HTTPGet == nil {
					t.Errorf("%s: missing %s probe", name, want)
					continue
				}
				if probe.HTTPGet.Path != want || probe.HTTPGet.Port.StrVal != "http" {
					t.Errorf("%s probe = %s on %v, want %s on port http", name, probe.HTTPGet.Path, probe.HTTPGet.Port.String(), want)
				}
			}
			a := d.Spec.Template.Annotations
			if a["prometheus.io/scrape"] != "true" || a["prometheus.io/port"] != "8080" || a["prometheus.io/path"] != "/metrics" {
				t.Errorf("%s prometheus annotations = %v", name, a)
			}
		}
	}
}

func TestPodsRunAsNonRootReadOnly(t *testing.T) {
	for _, args := range [][]string{nil, production(), embedded()} {
		m := render(t, args...)
		for name, pt := range podTemplates(m) {
			spec := pt.Spec
			psc := spec.SecurityContext
			if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 65532 ||
				psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("%s pod securityContext = %+v", name, psc)
			}
			if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
				t.Errorf("%s mounts a service account token", name)
			}
			c := container(t, spec)
			sc := c.SecurityContext
			if sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser != 65532 ||
				sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
				sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
				sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 ||
				sc.SeccompProfile == nil || sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
				t.Errorf("%s container securityContext = %+v", name, sc)
			}
			tmp := volume(spec, "tmp")
			if tmp == nil || tmp.EmptyDir == nil {
				t.Errorf("%s: /tmp is not an emptyDir: %+v", name, tmp)
			}
			writable := map[string]bool{}
			for _, vm := range c.VolumeMounts {
				if !vm.ReadOnly {
					writable[vm.MountPath] = true
				}
			}
			if !writable["/tmp"] {
				t.Errorf("%s: /tmp not mounted", name)
			}
			delete(writable, "/tmp")
			delete(writable, "/data") // the embedded JetStream store
			if len(writable) != 0 {
				t.Errorf("%s: writable mounts besides /tmp and the store: %v", name, keys(writable))
			}
		}
	}
}

func TestChecksumAnnotationFollowsConfig(t *testing.T) {
	sum := func(m *Manifests) string {
		data := configMap(t, m, fullname).Data["config.yaml"]
		h := sha256.Sum256([]byte(strings.TrimSuffix(data, "\n")))
		return hex.EncodeToString(h[:])
	}
	a := render(t)
	b := render(t, "--set", "config.pipeline.mode=hybrid", "--set", "networkPolicy.egress.llm.cidrs={203.0.113.0/24}")
	for _, m := range []*Manifests{a, b} {
		want := sum(m)
		for name, d := range deployments(m) {
			got := d.Spec.Template.Annotations["checksum/config"]
			if got != want {
				t.Errorf("%s checksum/config = %q, want sha256 of config.yaml %q", name, got, want)
			}
			if d.Spec.Template.Annotations["checksum/secrets"] == "" {
				t.Errorf("%s has no checksum/secrets", name)
			}
		}
	}
	if sum(a) == sum(b) {
		t.Error("changing the config did not change the checksum")
	}
	if workerConfig(t, b, fullname).Pipeline["mode"] != "hybrid" {
		t.Error("config.pipeline.mode did not reach the ConfigMap")
	}
}

func TestDrainTimeoutMatchesGracePeriod(t *testing.T) {
	for _, tc := range []struct {
		args        []string
		drain       string
		grace       int64
		description string
	}{
		{nil, "30s", 45, "defaults"},
		{[]string{"--set", "drainTimeoutSeconds=60"}, "60s", 75, "drainTimeoutSeconds=60"},
		{embedded(), "30s", 45, "embedded"},
	} {
		m := render(t, tc.args...)
		for name, d := range deployments(m) {
			spec := d.Spec.Template.Spec
			if spec.TerminationGracePeriodSeconds == nil || *spec.TerminationGracePeriodSeconds != tc.grace {
				t.Errorf("%s %s: terminationGracePeriodSeconds = %v, want %d", tc.description, name, spec.TerminationGracePeriodSeconds, tc.grace)
			}
			if got, _ := argValue(container(t, spec).Args, "--drain-timeout"); got != tc.drain {
				t.Errorf("%s %s: --drain-timeout = %q, want %s", tc.description, name, got, tc.drain)
			}
		}
	}
}

var kedaNATSMetadata = []string{"natsServerMonitoringEndpoint", "account", "stream", "consumer", "lagThreshold", "activationLagThreshold", "useHttps"}

func TestProductionScalesWithKEDAOnWorkStream(t *testing.T) {
	m := render(t, production()...)
	deps := deployments(m)
	if len(deps) != 3 {
		t.Fatalf("Deployments = %v, want 3 segments", keys(deps))
	}
	if n := len(Of[*autoscalingv2.HorizontalPodAutoscaler](m)); n != 0 {
		t.Errorf("production renders %d HPAs next to KEDA", n)
	}
	scaled := map[string]*ScaledObject{}
	for _, so := range Of[*ScaledObject](m) {
		scaled[so.Spec.ScaleTargetRef.Name] = so
	}
	pdbs := map[string]*policyv1.PodDisruptionBudget{}
	for _, p := range Of[*policyv1.PodDisruptionBudget](m) {
		pdbs[p.Name] = p
	}
	wantConsumer := map[string]string{
		fullname + "-algorithmic": "jc_structured",
		fullname + "-llm-summary": "jc_llm_summary",
		fullname + "-guard":       "jc_guard",
	}
	for name, d := range deps {
		if d.Spec.Replicas != nil {
			t.Errorf("%s sets replicas (%d) though KEDA owns them", name, *d.Spec.Replicas)
		}
		so, ok := scaled[name]
		if !ok {
			t.Errorf("no ScaledObject for %s", name)
			continue
		}
		if so.Spec.ScaleTargetRef.Kind != "Deployment" || so.Spec.ScaleTargetRef.APIVersion != "apps/v1" {
			t.Errorf("%s scaleTargetRef = %+v", name, so.Spec.ScaleTargetRef)
		}
		if so.Spec.MinReplicaCount == nil || so.Spec.MaxReplicaCount == nil || *so.Spec.MinReplicaCount > *so.Spec.MaxReplicaCount {
			t.Errorf("%s replica bounds %v..%v", name, so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount)
		}
		// The first segment scales on the intake (new documents) and on its
		// work consumer (replays); the others on their work consumer.
		want := []string{"JC_WORK/" + wantConsumer[name]}
		if name == fullname+"-algorithmic" {
			want = append([]string{"JC_ORIGINALS/jc_intake"}, want...)
		}
		var got []string
		for _, tr := range so.Spec.Triggers {
			if tr.Type != "nats-jetstream" {
				t.Errorf("%s trigger type %q", name, tr.Type)
			}
			got = append(got, tr.Metadata["stream"]+"/"+tr.Metadata["consumer"])
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s scales on %v, want %v", name, got, want)
		}
		if len(so.Spec.Triggers) == 0 {
			continue
		}
		md := so.Spec.Triggers[0].Metadata
		for k := range md {
			if !slices.Contains(kedaNATSMetadata, k) {
				t.Errorf("%s: unknown nats-jetstream metadata %q", name, k)
			}
		}
		if md["natsServerMonitoringEndpoint"] != "nats-headless.nats.svc:8222" || md["account"] != "JETCOMPACT" {
			t.Errorf("%s endpoint/account = %q/%q", name, md["natsServerMonitoringEndpoint"], md["account"])
		}
		if n, err := strconv.Atoi(md["lagThreshold"]); err != nil || n <= 0 {
			t.Errorf("%s lagThreshold = %q", name, md["lagThreshold"])
		}
		if md["useHttps"] != "true" && md["useHttps"] != "false" {
			t.Errorf("%s useHttps = %q", name, md["useHttps"])
		}
		if d.Annotations["jetcompact.io/consumer"] != wantConsumer[name] {
			t.Errorf("%s consumer annotation = %q", name, d.Annotations["jetcompact.io/consumer"])
		}
		if p, ok := pdbs[name]; !ok || p.Spec.MaxUnavailable == nil || p.Spec.MaxUnavailable.IntValue() != 1 {
			t.Errorf("%s PodDisruptionBudget = %+v", name, pdbs[name])
		}
	}
	sms := Of[*ServiceMonitor](m)
	if len(sms) != 1 {
		t.Fatalf("production ServiceMonitors = %d, want 1", len(sms))
	}
	sm := sms[0]
	if len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "http" || sm.Spec.Endpoints[0].Path != "/metrics" {
		t.Errorf("ServiceMonitor endpoints = %+v", sm.Spec.Endpoints)
	}
	if sm.Labels["release"] != "kube-prometheus-stack" {
		t.Errorf("ServiceMonitor labels = %v", sm.Labels)
	}
	for _, s := range Of[*corev1.Service](m) {
		for k, v := range sm.Spec.Selector.MatchLabels {
			if s.Labels[k] != v {
				t.Errorf("ServiceMonitor selector %s=%s misses Service %s", k, v, s.Name)
			}
		}
	}
}

func TestHPAWhenEnabled(t *testing.T) {
	m := render(t, "--set", "segmentDefaults.autoscaling.hpa.enabled=true")
	hpas := Of[*autoscalingv2.HorizontalPodAutoscaler](m)
	if len(hpas) != 3 || len(Of[*ScaledObject](m)) != 0 {
		t.Fatalf("HPAs = %d, ScaledObjects = %d; want 3 and 0", len(hpas), len(Of[*ScaledObject](m)))
	}
	deps := deployments(m)
	for _, h := range hpas {
		d, ok := deps[h.Spec.ScaleTargetRef.Name]
		if !ok || h.Spec.ScaleTargetRef.Kind != "Deployment" {
			t.Errorf("HPA %s targets %+v", h.Name, h.Spec.ScaleTargetRef)
			continue
		}
		if d.Spec.Replicas != nil {
			t.Errorf("%s sets replicas though the HPA owns them", d.Name)
		}
		if len(h.Spec.Metrics) != 1 || h.Spec.Metrics[0].Resource == nil || h.Spec.Metrics[0].Resource.Name != corev1.ResourceCPU ||
			h.Spec.Metrics[0].Resource.Target.AverageUtilization == nil {
			t.Errorf("HPA %s metrics = %+v", h.Name, h.Spec.Metrics)
		}
	}
	if n := len(Of[*policyv1.PodDisruptionBudget](m)); n != 3 {
		t.Errorf("PodDisruptionBudgets = %d, want one per autoscaled segment", n)
	}

	// A segment's explicit false and 0 override segmentDefaults.
	o := render(t, withValues(t, `segmentDefaults: {replicas: 2, autoscaling: {hpa: {enabled: true}}}
segments:
- {name: fused, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary]}
- {name: guard, stages: [guard], replicas: 0, autoscaling: {hpa: {enabled: false}}}
`)...)
	hpas = Of[*autoscalingv2.HorizontalPodAutoscaler](o)
	if len(hpas) != 1 || hpas[0].Spec.ScaleTargetRef.Name != fullname+"-fused" {
		t.Errorf("HPAs with guard opted out: %d", len(hpas))
	}
	if g := deployments(o)[fullname+"-guard"]; g == nil || g.Spec.Replicas == nil || *g.Spec.Replicas != 0 {
		t.Errorf("guard replicas: %+v", g)
	}
}

func TestPrefixNamesStreamAndConsumers(t *testing.T) {
	m := render(t, "--set", "config.fleet.prefix=acme", "--set", "segmentDefaults.autoscaling.keda.enabled=true",
		"--set", "nats.monitoringEndpoint=nats-headless:8222")
	for _, so := range Of[*ScaledObject](m) {
		for _, tr := range so.Spec.Triggers {
			md := tr.Metadata
			if (md["stream"] != "ACME_WORK" && md["stream"] != "ACME_ORIGINALS") || !strings.HasPrefix(md["consumer"], "acme_") {
				t.Errorf("%s: stream/consumer = %s/%s", so.Name, md["stream"], md["consumer"])
			}
		}
	}
	// Stream names upper-case the prefix and turn - into _, as the worker does.
	h := render(t, "--set", "config.fleet.prefix=team-a", "--set", "segmentDefaults.autoscaling.keda.enabled=true",
		"--set", "nats.monitoringEndpoint=nats-headless:8222")
	for _, so := range Of[*ScaledObject](h) {
		for _, tr := range so.Spec.Triggers {
			if st := tr.Metadata["stream"]; st != "TEAM_A_WORK" && st != "TEAM_A_ORIGINALS" {
				t.Errorf("%s: stream %q, want TEAM_A_WORK or TEAM_A_ORIGINALS", so.Name, st)
			}
		}
	}
	for name, pt := range podTemplates(m) {
		if got, _ := argValue(container(t, pt.Spec).Args, "--prefix"); got != "acme" {
			t.Errorf("%s --prefix = %q", name, got)
		}
	}
	if workerConfig(t, m, fullname).Fleet.Prefix != "acme" {
		t.Error("config fleet.prefix not acme")
	}
}

func TestEmbeddedSingleDeployment(t *testing.T) {
	m := render(t, embedded()...)
	deps := deployments(m)
	if len(deps) != 1 {
		t.Fatalf("embedded Deployments = %v, want 1", keys(deps))
	}
	d := deps[fullname]
	if d == nil {
		t.Fatalf("no Deployment %s", fullname)
	}
	if d.Spec.Replicas == nil || *d.Spec.Replicas != 1 || d.Spec.Strategy.Type != appsv1.RecreateDeploymentStrategyType {
		t.Errorf("replicas %v strategy %q, want 1 and Recreate", d.Spec.Replicas, d.Spec.Strategy.Type)
	}
	c := container(t, d.Spec.Template.Spec)
	if _, ok := argValue(c.Args, "--embedded"); !ok {
		t.Errorf("args %v lack --embedded", c.Args)
	}
	if got, _ := argValue(c.Args, "--segment"); got != "all" {
		t.Errorf("--segment = %q, want all", got)
	}
	store, _ := argValue(c.Args, "--store-dir")
	mounted := false
	for _, vm := range c.VolumeMounts {
		if vm.Name == "data" && vm.MountPath == store {
			mounted = true
		}
	}
	if store == "" || !mounted {
		t.Errorf("--store-dir %q is not the data volume's mount", store)
	}
	if v := volume(d.Spec.Template.Spec, "data"); v == nil || v.PersistentVolumeClaim == nil {
		t.Errorf("data volume = %+v, want the PVC", v)
	}
	if len(Of[*corev1.PersistentVolumeClaim](m)) != 1 {
		t.Error("no PersistentVolumeClaim for the store")
	}
	if e := env(c, "NATS_URL"); e != nil {
		t.Errorf("embedded worker has NATS_URL %q", e.Value)
	}
	if n := len(Of[*batchv1.Job](m)) + len(Of[*ScaledObject](m)) + len(Of[*autoscalingv2.HorizontalPodAutoscaler](m)); n != 0 {
		t.Errorf("embedded renders %d Jobs/autoscalers", n)
	}
	cfg := workerConfig(t, m, fullname)
	if len(cfg.Fleet.Segments) != 1 || !slices.Equal(cfg.Fleet.Segments[0], allStages) || cfg.Fleet.Replicas != 1 {
		t.Errorf("embedded fleet = %+v, want one segment of every stage, R1", cfg.Fleet)
	}
	svcs := Of[*corev1.Service](m)
	if len(svcs) != 1 || len(svcs[0].Spec.Ports) != 2 {
		t.Fatalf("embedded Services = %+v", svcs)
	}
	ports := map[string]int32{}
	for _, p := range svcs[0].Spec.Ports {
		ports[p.Name] = p.Port
	}
	if ports["http"] != 8080 || ports["nats"] != 4222 {
		t.Errorf("embedded Service ports = %v", ports)
	}

	// Without persistence the store is an emptyDir.
	e := render(t, append(embedded(), "--set", "embedded.persistence.enabled=false")...)
	if v := volume(deployments(e)[fullname].Spec.Template.Spec, "data"); v == nil || v.EmptyDir == nil {
		t.Errorf("data volume without persistence = %+v", v)
	}
}

func TestTopologyJobIsIdempotentHook(t *testing.T) {
	m := render(t, production()...)
	jobs := Of[*batchv1.Job](m)
	if len(jobs) != 1 {
		t.Fatalf("Jobs = %d, want 1", len(jobs))
	}
	j := jobs[0]
	hooks := strings.Split(j.Annotations["helm.sh/hook"], ",")
	slices.Sort(hooks)
	if !slices.Equal(hooks, []string{"post-install", "pre-upgrade"}) {
		t.Errorf("hook = %v", hooks)
	}
	if !strings.Contains(j.Annotations["helm.sh/hook-delete-policy"], "before-hook-creation") || j.Annotations["helm.sh/hook-weight"] == "" {
		t.Errorf("hook annotations = %v", j.Annotations)
	}
	spec := j.Spec.Template.Spec
	c := container(t, spec)
	if _, ok := argValue(c.Args, "--setup-only"); !ok {
		t.Errorf("job args %v lack --setup-only", c.Args)
	}
	if spec.RestartPolicy != corev1.RestartPolicyNever && spec.RestartPolicy != corev1.RestartPolicyOnFailure {
		t.Errorf("restartPolicy = %q", spec.RestartPolicy)
	}
	// The Job reads a hook ConfigMap created before it (lower weight), with
	// the same config as the workers'.
	cmName := volume(spec, "config").ConfigMap.Name
	hookCM := configMap(t, m, cmName)
	if hookCM.Annotations["helm.sh/hook"] != j.Annotations["helm.sh/hook"] {
		t.Errorf("ConfigMap %s hook = %q, want the Job's", cmName, hookCM.Annotations["helm.sh/hook"])
	}
	cw, _ := strconv.Atoi(hookCM.Annotations["helm.sh/hook-weight"])
	jw, _ := strconv.Atoi(j.Annotations["helm.sh/hook-weight"])
	if cw >= jw {
		t.Errorf("ConfigMap hook weight %d not below the Job's %d", cw, jw)
	}
	if hookCM.Data["config.yaml"] != configMap(t, m, fullname).Data["config.yaml"] {
		t.Error("the Job's config differs from the workers'")
	}
	// Same NATS connection as the workers.
	worker := container(t, deployments(m)[fullname+"-guard"].Spec.Template.Spec)
	for _, flag := range []string{"--prefix", "--nats-creds", "--tls-ca", "--tls-cert", "--tls-key"} {
		jv, jok := argValue(c.Args, flag)
		wv, wok := argValue(worker.Args, flag)
		if !jok || jv != wv || !wok {
			t.Errorf("job %s = %q, worker %q", flag, jv, wv)
		}
	}
	if e := env(c, "NATS_URL"); e == nil || e.Value != env(worker, "NATS_URL").Value {
		t.Errorf("job NATS_URL = %+v", e)
	}
	if env(c, "OPENAI_API_KEY") != nil {
		t.Error("the topology Job gets the LLM key")
	}
	if len(Of[*batchv1.Job](render(t, "--set", "topology.enabled=false"))) != 0 {
		t.Error("topology.enabled=false still renders the Job")
	}
}

func TestNetworkPolicyLimitsTraffic(t *testing.T) {
	type port struct {
		proto string
		port  string
	}
	egressPorts := func(np *networkingv1.NetworkPolicy) map[port]bool {
		out := map[port]bool{}
		for _, r := range np.Spec.Egress {
			for _, p := range r.Ports {
				out[port{string(*p.Protocol), p.Port.String()}] = true
			}
		}
		return out
	}
	policies := func(m *Manifests) map[string]*networkingv1.NetworkPolicy {
		out := map[string]*networkingv1.NetworkPolicy{}
		for _, np := range Of[*networkingv1.NetworkPolicy](m) {
			out[np.Name] = np
		}
		return out
	}
	// Each pod is selected by exactly the policy of its component.
	selects := func(np *networkingv1.NetworkPolicy, labels map[string]string) bool {
		for k, v := range np.Spec.PodSelector.MatchLabels {
			if labels[k] != v {
				return false
			}
		}
		return true
	}
	m := render(t)
	nps := policies(m)
	if got := keys(nps); len(got) != 4 {
		t.Fatalf("NetworkPolicies = %v, want one per segment and the topology Job", got)
	}
	base := map[port]bool{{"UDP", "53"}: true, {"TCP", "53"}: true, {"TCP", "4222"}: true}
	for name, np := range nps {
		if !slices.Equal(np.Spec.PolicyTypes, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}) {
			t.Errorf("%s policyTypes = %v", name, np.Spec.PolicyTypes)
		}
		// The LLM is not in use by default, and telemetry is not otlp.
		if got := egressPorts(np); fmt.Sprint(got) != fmt.Sprint(base) {
			t.Errorf("%s egress ports = %v, want %v", name, got, base)
		}
		if name != fullname+"-topology" && (len(np.Spec.Ingress) != 1 || len(np.Spec.Ingress[0].Ports) != 1 || np.Spec.Ingress[0].Ports[0].Port.String() != "http") {
			t.Errorf("%s ingress = %+v, want only the http port", name, np.Spec.Ingress)
		}
	}
	for name, pt := range podTemplates(m) {
		n := 0
		for _, np := range nps {
			if selects(np, pt.Labels) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%s is selected by %d NetworkPolicies, want 1", name, n)
		}
	}

	// Production: the LLM (hybrid) only from the segment that runs
	// llm_summary and the tasks, to its CIDR; OTLP (exporter otlp) from all;
	// NATS to a namespace.
	for name, np := range policies(render(t, production()...)) {
		llm, otlp := false, false
		for _, r := range np.Spec.Egress {
			switch r.Ports[0].Port.IntValue() {
			case 443:
				llm = true
				if len(r.To) != 1 || r.To[0].IPBlock == nil || r.To[0].IPBlock.CIDR != "203.0.113.0/24" {
					t.Errorf("%s LLM egress = %+v", name, r.To)
				}
			case 4317:
				otlp = true
			case 4222:
				if len(r.To) != 1 || r.To[0].NamespaceSelector == nil {
					t.Errorf("%s NATS egress = %+v", name, r.To)
				}
			}
		}
		if want := name == fullname+"-llm-summary"; llm != want {
			t.Errorf("%s LLM egress %v, want %v", name, llm, want)
		}
		if otlp != true {
			t.Errorf("%s has no OTLP egress with exporter otlp", name)
		}
	}
	if _, stderr, err := helmTemplate(t, append(production(), "--set", "networkPolicy.egress.llm.cidrs=null")...); err == nil || !strings.Contains(stderr, "networkPolicy.egress.llm.cidrs") {
		t.Errorf("the LLM in use without CIDRs: err %v, %s", err, stderr)
	}

	// Embedded: no NATS egress, NATS ingress for the publishers named.
	e := Of[*networkingv1.NetworkPolicy](render(t, embedded()...))
	if len(e) != 1 {
		t.Fatalf("embedded NetworkPolicies = %d, want 1", len(e))
	}
	if egressPorts(e[0])[port{"TCP", "4222"}] {
		t.Error("embedded policy allows NATS egress")
	}
	if len(e[0].Spec.Ingress) != 2 || e[0].Spec.Ingress[1].Ports[0].Port.String() != "nats" || len(e[0].Spec.Ingress[1].From) == 0 {
		t.Errorf("embedded ingress = %+v", e[0].Spec.Ingress)
	}

	if len(Of[*networkingv1.NetworkPolicy](render(t, "--set", "networkPolicy.enabled=false"))) != 0 {
		t.Error("networkPolicy.enabled=false still renders one")
	}
}

// Values the chart must refuse, with the message that names the fix.
func TestInvalidValuesFail(t *testing.T) {
	cases := []struct {
		name   string
		values string
		want   string
	}{
		{"hpa and keda", "nats: {monitoringEndpoint: m:8222}\nsegments:\n- {name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary], autoscaling: {hpa: {enabled: true}, keda: {enabled: true}}}\n- {name: g, stages: [guard]}\n",
			"enable at most one of autoscaling.hpa and autoscaling.keda"},
		{"stage order", "segments:\n- {name: a, stages: [dedup, structured, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary]}\n- {name: g, stages: [guard]}\n",
			"every stage once, in order"},
		{"missing stage", "segments:\n- {name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact]}\n- {name: g, stages: [guard]}\n",
			"every stage once, in order"},
		{"unknown stage", "segments:\n- {name: a, stages: [structured, summarise]}\n- {name: g, stages: [guard]}\n",
			`unknown stage "summarise"`},
		{"guard not alone", "segments:\n- {name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary, guard]}\n",
			"the last segment must be [guard] alone"},
		{"bad segment name", "segments:\n- {name: Fused_All, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary]}\n- {name: g, stages: [guard]}\n",
			"must be a DNS label"},
		{"duplicate segment name", "segments:\n- {name: a, stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact, llm_summary]}\n- {name: a, stages: [guard]}\n",
			"is used twice"},
		{"two auth methods", "nats: {auth: {token: {value: t}, creds: {existingSecret: c}}}\n", "at most one of creds, userPassword, token and nkey"},
		{"keda without endpoint", "segmentDefaults: {autoscaling: {keda: {enabled: true}}}\n", "needs nats.monitoringEndpoint"},
		{"no nats", "nats: {url: \"\"}\n", "set nats.url"},
		{"fleet segments set by hand", "config: {fleet: {segments: [[guard]]}}\n", "generated from `segments`"},
		{"R2 streams", "config: {fleet: {replicas: 2}}\n", "must be 1 or 3"},
		{"embedded R3", "embedded: {enabled: true}\nconfig: {fleet: {replicas: 3}}\n", "config.fleet.replicas must be 1"},
		{"embedded with creds", "embedded: {enabled: true}\nnats: {auth: {creds: {existingSecret: c}}}\n", "takes no nats.auth"},
		{"embedded without credentials", "embedded: {enabled: true}\nnetworkPolicy: {ingress: {natsFrom: [{podSelector: {}}]}}\n", "set nats.auth.token, nats.auth.userPassword or nats.auth.nkey"},
		{"embedded open to any pod", "embedded: {enabled: true}\nnats: {auth: {token: {existingSecret: t}}}\n", "networkPolicy.ingress.natsFrom"},
		{"llm without cidrs", "config: {pipeline: {mode: hybrid}}\n", "networkPolicy.egress.llm.cidrs"},
		{"two auth methods with nkey", "nats: {auth: {token: {value: t}, nkey: {existingSecret: nk}}}\n", "at most one of creds, userPassword, token and nkey"},
		{"tls without ca", "nats: {tls: {enabled: true}}\n", "nats.tls.existingSecret or nats.tls.ca"},
		{"tls cert without key", "nats: {tls: {enabled: true, ca: CA, cert: CERT}}\n", "both cert and key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, stderr, err := helmTemplate(t, withValues(t, tc.values)...)
			if err == nil {
				t.Fatalf("rendered; want failure %q", tc.want)
			}
			if !strings.Contains(stderr, tc.want) {
				t.Errorf("error %q does not say %q", strings.TrimSpace(stderr), tc.want)
			}
		})
	}
}

var (
	publisherOnce sync.Once
	publisherBin  string
	publisherErr  error
)

// publisher builds the product's publisher, whose `--describe --config F`
// loads F with the worker's strict config loader and exits.
func publisher(t *testing.T) string {
	t.Helper()
	publisherOnce.Do(func() {
		dir, err := os.MkdirTemp("", "jetcompact-publisher-")
		if err != nil {
			publisherErr = err
			return
		}
		publisherBin = filepath.Join(dir, "publisher")
		cmd := exec.Command("go", "build", "-o", publisherBin, "./cmd/publisher")
		cmd.Dir = filepath.Join("..", "..")
		if out, err := cmd.CombinedOutput(); err != nil {
			publisherErr = fmt.Errorf("go build ./cmd/publisher: %v\n%s", err, out)
		}
	})
	if publisherErr != nil {
		t.Fatal(publisherErr)
	}
	return publisherBin
}

// The config file the chart renders is one the product accepts: every
// section and field known, the segments valid, for each values set.
func TestRenderedConfigLoadsInProduct(t *testing.T) {
	bin := publisher(t)
	for name, args := range map[string][]string{"defaults": nil, "production": production(), "embedded": embedded(), "roles": {"-f", valuesFile("ci/values-roles.yaml")}} {
		m := render(t, args...)
		for _, cm := range Of[*corev1.ConfigMap](m) {
			if _, ok := cm.Data["config.yaml"]; !ok {
				continue // the dashboard, the authorization block
			}
			p := filepath.Join(t.TempDir(), "config.yaml")
			if err := os.WriteFile(p, []byte(cm.Data["config.yaml"]), 0o644); err != nil {
				t.Fatal(err)
			}
			out, err := exec.Command(bin, "--describe", "--config", p).CombinedOutput()
			if err != nil {
				t.Errorf("%s: ConfigMap %s is refused by the product: %v\n%s", name, cm.Name, err, out)
			}
		}
	}
}

// TestEmbeddedServerAuthAndTLS: the embedded worker gets the token its
// server requires and, given a certificate Secret, serves TLS from it; an
// NKey seed is mounted as a file and passed to every worker.
func TestEmbeddedServerAuthAndTLS(t *testing.T) {
	m := render(t, append(embedded(), "--set", "embedded.tls.existingSecret=embedded-tls")...)
	c := container(t, deployments(m)[fullname].Spec.Template.Spec)
	if e := env(c, "NATS_TOKEN"); e == nil || e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != "jetcompact-embedded-token" {
		t.Errorf("embedded NATS_TOKEN = %+v", e)
	}
	cert, _ := argValue(c.Args, "--embedded-tls-cert")
	key, _ := argValue(c.Args, "--embedded-tls-key")
	if v := volume(deployments(m)[fullname].Spec.Template.Spec, "embedded-tls"); v == nil || v.Secret == nil || v.Secret.SecretName != "embedded-tls" || cert == "" || key == "" {
		t.Errorf("embedded TLS: volume %+v, args %q %q", v, cert, key)
	}

	n := render(t, "--set", "nats.auth.nkey.existingSecret=worker-nkey")
	for name, d := range deployments(n) {
		c := container(t, d.Spec.Template.Spec)
		seed, _ := argValue(c.Args, "--nats-nkey")
		if v := volume(d.Spec.Template.Spec, "nats-nkey"); v == nil || v.Secret == nil || v.Secret.SecretName != "worker-nkey" || seed == "" {
			t.Errorf("%s nkey: volume %+v, --nats-nkey %q", name, v, seed)
		}
	}
}

// TestSegmentsServeSources: a segment that names sources runs its workers
// with --sources and scales on the sources' consumers too, the others run
// none, and the rendered config (with the sources section) loads in the
// product.
func TestSegmentsServeSources(t *testing.T) {
	m := render(t, withValues(t, `nats:
  monitoringEndpoint: nats:8222
config:
  sources:
    - {name: app, stream: LOGS, subjects: ["logs.>"], key: "subject:1"}
    - {name: audit, stream: AUDIT, subjects: ["audit.>"]}
segments:
  - name: algorithmic
    stages: [structured, dedup, whitespace, log_dedup, near_dup, number_normalize, stopwords, keywords, headtail, redact]
    sources: [app]
    autoscaling: {keda: {enabled: true}}
  - name: llm-summary
    stages: [llm_summary]
  - name: guard
    stages: [guard]
`)...)
	for name, d := range deployments(m) {
		got, ok := argValue(d.Spec.Template.Spec.Containers[0].Args, "--sources")
		if strings.HasSuffix(name, "-algorithmic") {
			if got != "app" {
				t.Errorf("%s --sources = %q, want app", name, got)
			}
		} else if ok {
			t.Errorf("%s runs sources %q", name, got)
		}
	}
	for _, so := range Of[*ScaledObject](m) {
		var got []string
		for _, tr := range so.Spec.Triggers {
			got = append(got, tr.Metadata["stream"]+"/"+tr.Metadata["consumer"])
		}
		if want := []string{"JC_ORIGINALS/jc_intake", "JC_WORK/jc_structured", "LOGS/jc_source_app"}; !slices.Equal(got, want) {
			t.Errorf("%s scales on %v, want %v", so.Spec.ScaleTargetRef.Name, got, want)
		}
	}
	bin := publisher(t)
	for _, cm := range Of[*corev1.ConfigMap](m) {
		p := filepath.Join(t.TempDir(), "config.yaml")
		if err := os.WriteFile(p, []byte(cm.Data["config.yaml"]), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := exec.Command(bin, "--config", p, "validate").CombinedOutput(); err != nil {
			t.Errorf("ConfigMap %s with sources is refused by the product: %v\n%s", cm.Name, err, out)
		}
	}
}
