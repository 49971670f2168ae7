package stages

import (
	"fmt"
	"strings"
	"testing"
)

func TestHeadTail(t *testing.T) {
	opt := HeadTailOptions{MinLines: 50, HeadLines: 5, TailLines: 10, MiddleSignals: 2, Kinds: []Kind{KindLog}}
	if err := opt.Validate(); err != nil {
		t.Fatal(err)
	}
	node := NewHeadTail(opt)
	var b strings.Builder
	for i := 0; i < 100; i++ {
		switch i {
		case 40:
			b.WriteString("error: first failure in the middle\n")
		case 45:
			b.WriteString("```\nkept code\n```\n")
		case 50, 60:
			fmt.Fprintf(&b, "FAILED test_%d\n", i)
		default:
			fmt.Fprintf(&b, "step %d\n", i)
		}
	}
	in := b.String()
	got := applyNode(t, node, in, KindLog)
	for _, want := range []string{"step 0\n", "step 4\n", "step 99\n", "error: first failure in the middle", "```\nkept code\n```", "FAILED test_50"} {
		if !strings.Contains(got, want) {
			t.Errorf("lost %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "FAILED test_60") {
		t.Errorf("middle signals over budget kept:\n%s", got)
	}
	if strings.Contains(got, "step 5\n") || strings.Contains(got, "step 70\n") {
		t.Errorf("middle not folded:\n%s", got)
	}
	if !strings.Contains(got, "lines folded by headtail ...]") {
		t.Errorf("no marker:\n%s", got)
	}
	if again := applyNode(t, node, got, KindLog); again != got {
		t.Errorf("not idempotent:\n%s", firstDiff(again, got))
	}
	if got := applyNode(t, node, in, KindTranscript); got != in {
		t.Error("transcripts are cut")
	}
	if got := applyNode(t, node, "short\nlog\n", KindLog); got != "short\nlog\n" {
		t.Error("short text changed")
	}
}

func TestHeadTailOptionsValidate(t *testing.T) {
	if err := DefaultHeadTailOptions().Validate(); err != nil {
		t.Fatal(err)
	}
	for _, o := range []HeadTailOptions{
		{MinLines: 0, HeadLines: 1, TailLines: 1},
		{MinLines: 100, HeadLines: 60, TailLines: 40},
		{MinLines: 100, HeadLines: 10, TailLines: 10, MiddleSignals: 40},
		{MinLines: 100, HeadLines: 10, TailLines: 10, Kinds: []Kind{"poem"}},
		{MinLines: 100, HeadLines: -1, TailLines: 10},
	} {
		if o.Validate() == nil {
			t.Errorf("%+v: want an error", o)
		}
	}
}

func TestHeadTailConformance(t *testing.T) {
	checkConformance(t, NewHeadTail(HeadTailOptions{MinLines: 100, HeadLines: 10, TailLines: 20, MiddleSignals: 5, Kinds: []Kind{KindLog}}), logInputs())
}
