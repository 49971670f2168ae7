package transcripts_test

import (
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/jetcompact/jetcompact/transcripts"
)

func TestConfigFileHoldsTheDefaults(t *testing.T) {
	b, err := os.ReadFile("testdata/config.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var c transcripts.Config
	dec := yaml.NewDecoder(strings.NewReader(string(b)))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c, transcripts.DefaultConfig()) {
		t.Errorf("testdata/config.yaml %+v\ndiffers from DefaultConfig %+v", c, transcripts.DefaultConfig())
	}
}

func TestConfigValidateNamesFields(t *testing.T) {
	c := transcripts.DefaultConfig()
	c.Debate.KeyPointChars = 0
	c.Evidence.Retries = -1
	c.Meeting.BudgetTokens = 0
	c.Session.AutoRatio = 0
	err := c.Validate()
	if !errors.Is(err, transcripts.ErrInvalid) {
		t.Fatalf("err %v", err)
	}
	for _, f := range []string{"debate.key_point_chars", "evidence.retries", "meeting.budget_tokens", "session.auto_ratio"} {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("error does not name %s: %v", f, err)
		}
	}
}
