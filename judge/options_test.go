package judge

import (
	"bytes"
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/llmfake"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// goodOptions are the judge command's defaults with a model and a key.
func goodOptions() Options {
	return Options{Model: "gpt-4o-mini", APIKey: testKey, Samples: 1, Seed: 1, Concurrency: 2,
		MaxRetries: 6, Timeout: time.Minute, MaxWait: time.Minute, Progress: "none"}
}

func TestOptionsKeyEnv(t *testing.T) {
	for _, tc := range []struct{ provider, env, want string }{
		{"", "", "OPENAI_API_KEY"}, {"openai", "", "OPENAI_API_KEY"},
		{" Anthropic ", "", "ANTHROPIC_API_KEY"}, {"anthropic", "MY_KEY", "MY_KEY"},
	} {
		o := Options{Provider: ProviderKind(tc.provider), APIKeyEnv: tc.env}
		if got := o.KeyEnv(); got != tc.want {
			t.Errorf("%q/%q: %s, want %s", tc.provider, tc.env, got, tc.want)
		}
	}
}

func TestOptionsRefuseBadSettingsBeforeReading(t *testing.T) {
	rb := supportRubric(t)
	missing := filepath.Join(t.TempDir(), "nope.jsonl") // never read: the settings fail first
	for _, tc := range []struct {
		mod  func(*Options)
		want string
	}{
		{func(o *Options) { o.Model = " " }, "--model is required"},
		{func(o *Options) { o.Samples = 21 }, "--samples 21"},
		{func(o *Options) { o.SafetyConfirm = -1 }, "--safety-confirm -1"},
		{func(o *Options) { o.Concurrency = 0 }, "--concurrency 0"},
		{func(o *Options) { o.Timeout = -1 }, "--timeout"},
		{func(o *Options) { o.Shard = "5/4" }, `shard "5/4"`},
		{func(o *Options) { o.PriceIn = "cheap" }, "--price-in"},
		{func(o *Options) { o.MaxCost = "-1" }, "--max-cost"},
		{func(o *Options) { o.Model, o.MaxCost = "my-local-model", "5" }, "not in the price table"},
		{func(o *Options) { o.Provider = "gemini" }, `--provider "gemini"`},
		{func(o *Options) { o.BaseURL = "ftp://x" }, "--base-url"},
		{func(o *Options) { o.Progress = "loud" }, "--progress"},
	} {
		o := goodOptions()
		tc.mod(&o)
		_, err := o.Run(context.Background(), rb, missing, nil)
		var u *usage.Error
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want a usage error", tc.want, err)
		}
	}
	var u *usage.Error
	o := goodOptions()
	if _, err := o.Run(context.Background(), rb, "", nil); !errors.As(err, &u) || !strings.Contains(err.Error(), "--input is required") {
		t.Errorf("no answers: %v", err)
	}
	// No key: an error naming the variable, not a usage mistake.
	o.Provider, o.APIKey = "anthropic", ""
	if _, err := o.Run(context.Background(), rb, missing, nil); err == nil || errors.As(err, &u) || !strings.Contains(err.Error(), "set ANTHROPIC_API_KEY") {
		t.Errorf("no key: %v", err)
	}
	// The judge-family check: refused (fail) or a warning (warn).
	o = goodOptions()
	o.ProductionModel = "gpt-4o"
	if _, err := o.Run(context.Background(), rb, missing, nil); err == nil || !strings.Contains(err.Error(), "same-family: warn to allow") {
		t.Errorf("same family: %v", err)
	}
	var warned []string
	o.SameFamily, o.Warn = family.FamilyWarn, func(m string) { warned = append(warned, m) }
	if _, err := o.Run(context.Background(), rb, missing, nil); !errors.Is(err, os.ErrNotExist) || len(warned) != 1 {
		t.Errorf("warn: %v, warnings %q", err, warned)
	}
}

func TestOptionsRunJudgesAndRedacts(t *testing.T) {
	rb := supportRubric(t)
	in := filepath.Join(t.TempDir(), "answers.jsonl")
	if err := os.WriteFile(in, []byte(`{"id":"a","input":"q","output":"x"}`+"\n"+`{"id":"b","input":"q","output":"y"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmfake.New(llmfake.OpenAI, testKey, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: validJSON} })
	defer srv.Close()
	o := goodOptions()
	o.BaseURL = srv.BaseURL()
	var out bytes.Buffer
	sum, err := o.Run(context.Background(), rb, in, &out)
	if err != nil || sum.Items != 2 || srv.Requests() != 2 || strings.Count(out.String(), "\n") != 2 {
		t.Fatalf("run: %v %+v, %d requests:\n%s", err, sum, srv.Requests(), out.String())
	}
	// The key and a base URL's password are secrets: redacted from errors.
	o.BaseURL = strings.Replace(srv.BaseURL(), "http://", "http://user:pa55word-XYZ@", 1)
	cfg, err := o.config(rb)
	if err != nil || !slices.Contains(cfg.Secrets, "pa55word-XYZ") || !slices.Contains(cfg.Secrets, testKey) {
		t.Fatalf("secrets %q: %v", cfg.Secrets, err)
	}
}

func TestIsTerminal(t *testing.T) {
	f, err := os.CreateTemp(t.TempDir(), "x")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if isTerminal(&bytes.Buffer{}) || isTerminal(f) {
		t.Error("a buffer or a regular file taken for a terminal")
	}
	// /dev/zero: a character device (on some sandboxes /dev/null is not).
	dev, err := os.OpenFile("/dev/zero", os.O_WRONLY, 0)
	if err != nil {
		t.Skip(err)
	}
	defer dev.Close()
	if !isTerminal(dev) {
		t.Error("a character device not taken for a terminal")
	}
}

func TestCallFailedHidesTheURL(t *testing.T) {
	cause := &url.Error{Op: "Post", URL: "http://user:pa55word@127.0.0.1:1/v1/chat", Err: errors.New("connection refused")}
	err := callFailed(context.Background(), cause)
	if !errors.Is(err, errTransport) || err.Error() != "transport error: Post: connection refused" {
		t.Errorf("transport: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := callFailed(ctx, cause); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
