package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/llmfake"
	"github.com/rubricgate/rubricgate/rubric"
)

const testKey = "sk-test-SECRET-7f3a9c0e5b1d"

const validJSON = `{"accuracy":4,"resolution":3,"tone":4,"safety":1,"reasoning":"Fine."}`

func supportRubric(t testing.TB) *rubric.Rubric {
	t.Helper()
	data, err := os.ReadFile("../rubrics/support.yaml")
	if err != nil {
		t.Fatal(err)
	}
	rb, _, err := rubric.Load("support.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	return rb
}

// q0Hash is the input_hash of answersN's first item: its task is the
// question alone.
var q0Hash = gate.HashTask("question 0", "", "").String()

func answersN(t testing.TB, n int) *Answers {
	t.Helper()
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"q%d","input":"question %d","output":"answer %d"}`+"\n", i, i, i)
	}
	a, err := ReadAnswers("answers.jsonl", strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// sleeps records the waits asked for instead of sleeping.
type sleeps struct {
	mu sync.Mutex
	d  []time.Duration
}

func (s *sleeps) sleep(ctx context.Context, d time.Duration) error {
	s.mu.Lock()
	s.d = append(s.d, d)
	s.mu.Unlock()
	return ctx.Err()
}

func (s *sleeps) all() []time.Duration {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]time.Duration(nil), s.d...)
}

type harness struct {
	t      *testing.T
	srv    *llmfake.Server
	cfg    Config
	sleeps *sleeps
}

func newHarness(t *testing.T, kind llmfake.Kind, h func(*llmfake.Received) llmfake.Reply) *harness {
	t.Helper()
	srv := llmfake.New(kind, testKey, h)
	t.Cleanup(srv.Close)
	sl := &sleeps{}
	pc := ProviderConfig{Model: "gpt-4o-mini", BaseURL: srv.BaseURL(), APIKey: testKey, HTTPClient: srv.Client()}
	var p Provider
	name := "openai"
	if kind == llmfake.Anthropic {
		pc.Model = "claude-sonnet-4-5"
		p = NewAnthropic(pc)
		name = "anthropic"
	} else {
		p = NewOpenAI(pc)
	}
	return &harness{t: t, srv: srv, sleeps: sl, cfg: Config{
		Rubric: supportRubric(t), Provider: p, ProviderName: name, Model: pc.Model,
		Seed: 1, Concurrency: 1, Timeout: 5 * time.Second, Secrets: []string{testKey},
		Sleep: sl.sleep, Rand: func() float64 { return 0.5 },
	}}
}

// run judges ans and returns the output lines decoded.
func (h *harness) run(ans *Answers) ([]map[string]any, *Summary, string, error) {
	h.t.Helper()
	var out bytes.Buffer
	sum, err := Run(context.Background(), h.cfg, ans, &out)
	var lines []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if l == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			h.t.Fatalf("output line %q: %v", l, err)
		}
		lines = append(lines, m)
	}
	return lines, sum, out.String(), err
}

func valid(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: validJSON} }
