package config

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/jetcompact/jetcompact/jetstream"
	"github.com/jetcompact/jetcompact/pipeline"
	"github.com/jetcompact/jetcompact/stages"
)

// TestBuildAssemblesThePipeline: Build gives a pipeline that compacts,
// with the mode override applied and the LLM client behind it.
func TestBuildAssemblesThePipeline(t *testing.T) {
	ctx := context.Background()
	rt, err := Default().Build(ctx, BuildOptions{Mode: "algorithmic", Model: "m", Version: "v1"})
	if err != nil {
		t.Fatal(err)
	}
	defer rt.Shutdown(ctx)
	if rt.Mode != stages.ModeAlgorithmic || rt.EffectiveMode() != stages.ModeAlgorithmic {
		t.Errorf("mode %q, effective %q", rt.Mode, rt.EffectiveMode())
	}
	if rt.ChatModel() == nil {
		t.Error("a configured model gave no chat model")
	}
	text := strings.Repeat("2026-12-01 10:00:00 INFO request served in 12ms\n", 50)
	res, err := rt.Pipeline.Run(ctx, pipeline.Request{Text: text, Mode: rt.Mode})
	if err != nil {
		t.Fatal(err)
	}
	if stages.Chars(res.Text) >= stages.Chars(text) || len(res.Report.Nodes) == 0 {
		t.Errorf("the built pipeline did not compact: %d -> %d chars, %d node reports", stages.Chars(text), stages.Chars(res.Text), len(res.Report.Nodes))
	}
	if err := Default().Check(BuildOptions{Mode: "turbo"}); err == nil {
		t.Error("Check accepted mode turbo")
	}
	if _, err := Default().Build(ctx, BuildOptions{Mode: "turbo"}); err == nil {
		t.Error("Build accepted mode turbo")
	}
}

// TestFingerprintNamesConfigAndRelease: the document-id fingerprint
// changes with the release and with a node's options, not otherwise; the
// document carries it with the runtime's mode.
func TestFingerprintNamesConfigAndRelease(t *testing.T) {
	ctx := context.Background()
	build := func(f File, version string) *Runtime {
		rt, err := f.Build(ctx, BuildOptions{Version: version})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { rt.Shutdown(ctx) })
		return rt
	}
	base := build(Default(), "v1")
	if base.Fingerprint() != build(Default(), "v1").Fingerprint() {
		t.Fatal("fingerprint is not stable")
	}
	if base.Fingerprint() == build(Default(), "v2").Fingerprint() {
		t.Error("another release has the same fingerprint")
	}
	f := Default()
	f.Pipeline.Options.HeadTail.HeadLines++
	if base.Fingerprint() == build(f, "v1").Fingerprint() {
		t.Error("other node options have the same fingerprint")
	}
	doc := base.Document("text", stages.KindLog, true)
	want := jetstream.Document{Text: "text", Kind: stages.KindLog, AllowLLM: true, Salt: base.Fingerprint()}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("document %+v, want %+v", doc, want)
	}
}

func TestSelectTasks(t *testing.T) {
	configured := []string{"debate", "evidence", "session"}
	for _, tc := range []struct {
		flag, segment string
		want          []string
		err           bool
	}{
		{"auto", "all", configured, false},
		{"auto", "guard", nil, false},
		{"all", "guard", configured, false},
		{"none", "all", nil, false},
		{"", "all", nil, false},
		{"debate, session", "guard", []string{"debate", "session"}, false},
		{"debate,nope", "all", nil, true},
	} {
		got, err := SelectTasks(tc.flag, tc.segment, configured)
		if (err != nil) != tc.err || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("SelectTasks(%q, %q) = %v, %v; want %v, error %v", tc.flag, tc.segment, got, err, tc.want, tc.err)
		}
	}
}

func TestSelectSources(t *testing.T) {
	configured := []jetstream.SourceConfig{{Name: "app"}, {Name: "edge"}}
	for flag, want := range map[string][]string{"": nil, "none": nil, "all": {"app", "edge"}, "edge": {"edge"}, "edge, app": {"edge", "app"}} {
		got, err := SelectSources(configured, flag)
		var names []string
		for _, s := range got {
			names = append(names, s.Name)
		}
		if err != nil || !reflect.DeepEqual(names, want) {
			t.Errorf("SelectSources(%q) = %v, %v; want %v", flag, names, err, want)
		}
	}
	if _, err := SelectSources(configured, "app,nope"); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("an unknown source: %v", err)
	}
}
