package manifesttest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

const (
	chartPath = "../helm/jetcompact"
	release   = "jc"
	namespace = "compaction"
	// helm built with `go install` reports Kubernetes v1.20 to templates,
	// below the chart's kubeVersion; give it a current one.
	kubeVersion = "1.34.0"
)

// helmPath finds helm. Without CI a missing helm skips the test; in CI
// (.ci/helm.sh installs helm first) it fails.
func helmPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("helm")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("helm is not on PATH (run .ci/helm.sh, which installs it)")
		}
		t.Fatalf("helm is not on PATH and CI is set: %v", err)
	}
	return p
}

func TestMain(m *testing.M) {
	code := m.Run()
	if publisherBin != "" {
		_ = os.RemoveAll(filepath.Dir(publisherBin))
	}
	os.Exit(code)
}

// offlineEnv is the environment helm runs in: any HTTP(S) request goes to
// a closed port, and helm's repository config and cache are empty, so a
// render that needed the network (a chart dependency) fails.
func offlineEnv(t *testing.T) []string {
	t.Helper()
	dir := t.TempDir()
	env := []string{}
	for _, e := range os.Environ() {
		k, _, _ := strings.Cut(e, "=")
		switch strings.ToUpper(k) {
		case "HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "HELM_REPOSITORY_CONFIG", "HELM_REPOSITORY_CACHE", "HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME":
			continue
		}
		env = append(env, e)
	}
	return append(env, "HTTP_PROXY=http://127.0.0.1:9", "HTTPS_PROXY=http://127.0.0.1:9", "NO_PROXY=",
		"HELM_REPOSITORY_CONFIG="+filepath.Join(dir, "repositories.yaml"), "HELM_REPOSITORY_CACHE="+filepath.Join(dir, "cache"),
		"HELM_CACHE_HOME="+filepath.Join(dir, "cache"), "HELM_CONFIG_HOME="+filepath.Join(dir, "config"), "HELM_DATA_HOME="+filepath.Join(dir, "data"))
}

// helmTemplate runs `helm template` on the chart directory as it is,
// offline, with extra args (-f FILE, --set k=v) and returns stdout, stderr
// and the error.
func helmTemplate(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	return helmTemplateAt(t, kubeVersion, args...)
}

func helmTemplateAt(t *testing.T, kube string, args ...string) (string, string, error) {
	t.Helper()
	helm := helmPath(t)
	full := append([]string{"template", release, chartPath, "--namespace", namespace, "--kube-version", kube}, args...)
	cmd := exec.Command(helm, full...)
	cmd.Env = offlineEnv(t)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err
}

// valuesFile names a values file of the chart, for -f.
func valuesFile(name string) string {
	p, err := filepath.Abs(filepath.Join(chartPath, name))
	if err != nil {
		panic(err)
	}
	return p
}

var renderCache sync.Map // strings.Join(args, "\x00") -> *renderResult

type renderResult struct {
	once sync.Once
	out  string
	errs string
	err  error
}

// render renders the chart and decodes every manifest strictly; it fails
// the test on any render or decode error.
func render(t *testing.T, args ...string) *Manifests {
	t.Helper()
	key := strings.Join(args, "\x00")
	v, _ := renderCache.LoadOrStore(key, &renderResult{})
	r := v.(*renderResult)
	r.once.Do(func() { r.out, r.errs, r.err = helmTemplate(t, args...) })
	if r.err != nil {
		t.Fatalf("helm template %v: %v\n%s", args, r.err, r.errs)
	}
	m, err := decodeAll(r.out)
	if err != nil {
		t.Fatalf("helm template %v: %v", args, err)
	}
	m.Text = r.out
	return m
}

// Manifest is one rendered document and its typed object.
type Manifest struct {
	Source string // the "# Source:" template
	Kind   string
	Name   string
	Raw    []byte
	Obj    any // a client-go typed object, *ScaledObject or *ServiceMonitor
}

// Manifests is one render.
type Manifests struct {
	Text  string
	Items []Manifest
}

// Of returns every rendered object of type T.
func Of[T any](m *Manifests) []T {
	var out []T
	for _, it := range m.Items {
		if o, ok := it.Obj.(T); ok {
			out = append(out, o)
		}
	}
	return out
}

var (
	docSep       = regexp.MustCompile(`(?m)^---[ \t]*$`)
	sourceLine   = regexp.MustCompile(`(?m)^# Source: (.+)$`)
	strictDecode = kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme.Scheme, scheme.Scheme,
		kjson.SerializerOptions{Yaml: true, Strict: true})
)

// decodeAll splits a multi-document stream and decodes each document.
func decodeAll(stream string) (*Manifests, error) {
	m := &Manifests{}
	for _, doc := range docSep.Split(stream, -1) {
		if strings.TrimSpace(stripComments(doc)) == "" {
			continue
		}
		src := ""
		if s := sourceLine.FindStringSubmatch(doc); s != nil {
			src = s[1]
		}
		it, err := decodeOne([]byte(doc))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", src, err)
		}
		it.Source = src
		m.Items = append(m.Items, it)
	}
	return m, nil
}

func stripComments(doc string) string {
	var b strings.Builder
	for _, l := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "#") {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// decodeOne decodes one document strictly: built-in kinds through the
// client-go scheme (unknown or duplicate fields fail, as do wrong types),
// the two CRDs into the local structs below with unknown fields refused.
// A kind neither knows fails.
func decodeOne(doc []byte) (Manifest, error) {
	var tm metav1.TypeMeta
	if err := yaml.Unmarshal(doc, &tm); err != nil {
		return Manifest{}, err
	}
	var obj any
	switch tm.GroupVersionKind().String() {
	case "keda.sh/v1alpha1, Kind=ScaledObject":
		so := &ScaledObject{}
		if err := decodeCRD(doc, so); err != nil {
			return Manifest{}, fmt.Errorf("ScaledObject: %w", err)
		}
		obj = so
	case "monitoring.coreos.com/v1, Kind=ServiceMonitor":
		sm := &ServiceMonitor{}
		if err := decodeCRD(doc, sm); err != nil {
			return Manifest{}, fmt.Errorf("ServiceMonitor: %w", err)
		}
		obj = sm
	case "monitoring.coreos.com/v1, Kind=PrometheusRule":
		pr := &PrometheusRule{}
		if err := decodeCRD(doc, pr); err != nil {
			return Manifest{}, fmt.Errorf("PrometheusRule: %w", err)
		}
		obj = pr
	default:
		o, _, err := strictDecode.Decode(doc, nil, nil)
		if err != nil {
			return Manifest{}, fmt.Errorf("%s: %w", tm.Kind, err)
		}
		obj = o
	}
	name := ""
	if mo, ok := obj.(metav1.Object); ok {
		name = mo.GetName()
	}
	return Manifest{Kind: tm.Kind, Name: name, Raw: doc, Obj: obj}, nil
}

// decodeCRD decodes a custom resource as the API server would see it: YAML
// to JSON without regard to the target type (yaml.UnmarshalStrict would
// turn `lagThreshold: 10` into the string "10", which the CRD's schema
// rejects), then JSON into out with unknown fields refused.
func decodeCRD(doc []byte, out any) error {
	j, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(j))
	dec.DisallowUnknownFields()
	if err := dec.Decode(out); err != nil {
		return err
	}
	if dec.More() {
		return fmt.Errorf("trailing data after the object")
	}
	return nil
}

// ScaledObject is the part of KEDA's keda.sh/v1alpha1 ScaledObject that this
// chart may render, with KEDA's field names. Decoding is strict, so a
// misspelt or misplaced field fails.
type ScaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ScaledObjectSpec `json:"spec"`
}

// ScaledObjectSpec is KEDA's ScaledObjectSpec.
type ScaledObjectSpec struct {
	ScaleTargetRef        ScaleTarget    `json:"scaleTargetRef"`
	PollingInterval       *int32         `json:"pollingInterval,omitempty"`
	InitialCooldownPeriod *int32         `json:"initialCooldownPeriod,omitempty"`
	CooldownPeriod        *int32         `json:"cooldownPeriod,omitempty"`
	IdleReplicaCount      *int32         `json:"idleReplicaCount,omitempty"`
	MinReplicaCount       *int32         `json:"minReplicaCount,omitempty"`
	MaxReplicaCount       *int32         `json:"maxReplicaCount,omitempty"`
	Triggers              []ScaleTrigger `json:"triggers"`
}

// ScaleTarget is KEDA's ScaleTarget.
type ScaleTarget struct {
	Name                   string `json:"name"`
	APIVersion             string `json:"apiVersion,omitempty"`
	Kind                   string `json:"kind,omitempty"`
	EnvSourceContainerName string `json:"envSourceContainerName,omitempty"`
}

// ScaleTrigger is KEDA's ScaleTriggers; metadata values must be strings.
type ScaleTrigger struct {
	Type              string            `json:"type"`
	Name              string            `json:"name,omitempty"`
	UseCachedMetrics  bool              `json:"useCachedMetrics,omitempty"`
	Metadata          map[string]string `json:"metadata"`
	AuthenticationRef *struct {
		Name string `json:"name"`
		Kind string `json:"kind,omitempty"`
	} `json:"authenticationRef,omitempty"`
	MetricType string `json:"metricType,omitempty"`
}

// ServiceMonitor is the part of the Prometheus Operator's
// monitoring.coreos.com/v1 ServiceMonitor that this chart may render.
type ServiceMonitor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              ServiceMonitorSpec `json:"spec"`
}

// ServiceMonitorSpec is the operator's ServiceMonitorSpec.
type ServiceMonitorSpec struct {
	JobLabel          string               `json:"jobLabel,omitempty"`
	TargetLabels      []string             `json:"targetLabels,omitempty"`
	PodTargetLabels   []string             `json:"podTargetLabels,omitempty"`
	Endpoints         []Endpoint           `json:"endpoints"`
	Selector          metav1.LabelSelector `json:"selector"`
	NamespaceSelector *struct {
		Any        bool     `json:"any,omitempty"`
		MatchNames []string `json:"matchNames,omitempty"`
	} `json:"namespaceSelector,omitempty"`
}

// Endpoint is the operator's Endpoint.
type Endpoint struct {
	Port          string              `json:"port,omitempty"`
	TargetPort    *intstr.IntOrString `json:"targetPort,omitempty"`
	Path          string              `json:"path,omitempty"`
	Scheme        string              `json:"scheme,omitempty"`
	Interval      string              `json:"interval,omitempty"`
	ScrapeTimeout string              `json:"scrapeTimeout,omitempty"`
	HonorLabels   bool                `json:"honorLabels,omitempty"`
}

// PrometheusRule is the Prometheus Operator's monitoring.coreos.com/v1
// PrometheusRule, as far as this chart renders it.
type PrometheusRule struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		Groups []RuleGroup `json:"groups"`
	} `json:"spec"`
}

// RuleGroup is the operator's RuleGroup.
type RuleGroup struct {
	Name     string `json:"name"`
	Interval string `json:"interval,omitempty"`
	Rules    []Rule `json:"rules"`
}

// Rule is the operator's Rule.
type Rule struct {
	Record      string            `json:"record,omitempty"`
	Alert       string            `json:"alert,omitempty"`
	Expr        string            `json:"expr"`
	For         string            `json:"for,omitempty"`
	Labels      map[string]string `json:"labels,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}
