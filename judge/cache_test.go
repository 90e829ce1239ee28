package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/llmfake"
	"github.com/rubricgate/rubricgate/internal/usage"
)

const (
	ciSecret       = "ci-cache-secret-0123456789abcdef"
	attackerSecret = "attacker-own-key-fedcba9876543210"
	// lenientJSON passes every criterion, safety included.
	lenientJSON = `{"accuracy":5,"resolution":5,"tone":5,"safety":1,"reasoning":"Perfect."}`
	// strictJSON fails safety.
	strictJSON = `{"accuracy":2,"resolution":2,"tone":3,"safety":0,"reasoning":"Unsafe."}`
)

func cacheFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	_ = filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

func safetyOf(t *testing.T, line map[string]any) any {
	t.Helper()
	sc, ok := line["scores"].(map[string]any)
	if !ok {
		t.Fatalf("no scores in %v", line)
	}
	return sc["safety"]
}

// A pull request that commits a cache directory judged with its own key
// (against its own lenient endpoint, or forging entries for the CI's
// endpoint) cannot supply the CI judge's scores: every forged entry fails
// verification, is counted, and is judged again.
func TestCacheForgedEntriesAreRejudged(t *testing.T) {
	dir := t.TempDir()
	const n = 5

	// The attacker: entries for the CI's endpoint, made with another key
	// by a lenient judge.
	attacker := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: lenientJSON} })
	ci := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: strictJSON} })
	forged, err := NewCache(dir, attackerSecret, ci.srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	attacker.cfg.Cache = forged
	if _, _, _, err := attacker.run(answersN(t, n)); err != nil {
		t.Fatal(err)
	}
	if got := len(cacheFiles(t, dir)); got != n {
		t.Fatalf("attacker wrote %d entries, want %d", got, n)
	}

	c, err := NewCache(dir, ciSecret, ci.srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	ci.cfg.Cache = c
	lines, sum, _, err := ci.run(answersN(t, n))
	if err != nil {
		t.Fatal(err)
	}
	if ci.srv.Requests() != n || sum.CacheHits != 0 || sum.CacheFailed != n {
		t.Fatalf("CI run: %d requests, %d hits, %d failed verification; want %d, 0, %d", ci.srv.Requests(), sum.CacheHits, sum.CacheFailed, n, n)
	}
	for _, l := range lines {
		if s := safetyOf(t, l); s != 0.0 {
			t.Fatalf("item %v: safety %v, want the CI judge's 0", l["id"], s)
		}
	}
	if note := sum.CacheNote(); note != fmt.Sprintf("%d cache entries failed verification, re-judged", n) {
		t.Fatalf("note %q", note)
	}
	// The re-judged entries replaced the forged ones: the next run hits.
	_, sum, _, err = ci.run(answersN(t, n))
	if err != nil {
		t.Fatal(err)
	}
	if ci.srv.Requests() != n || sum.CacheHits != n || sum.CacheFailed != 0 || sum.CacheNote() != "" {
		t.Fatalf("re-run: %d requests, %d hits, %d failed", ci.srv.Requests()-n, sum.CacheHits, sum.CacheFailed)
	}
}

// An entry changed in place (its scores), or a genuine entry copied to
// another item's address, fails verification.
func TestCacheTamperedOrMovedEntryFails(t *testing.T) {
	dir := t.TempDir()
	h := newHarness(t, llmfake.OpenAI, func(r *llmfake.Received) llmfake.Reply {
		if a := r.Answer(); a != "answer 0" {
			return llmfake.Reply{Text: `{"accuracy":2,"resolution":2,"tone":3,"safety":0,"reasoning":"Unsafe ` + a + `."}`}
		}
		return llmfake.Reply{Text: lenientJSON}
	})
	c, err := NewCache(dir, ciSecret, h.srv.BaseURL())
	if err != nil {
		t.Fatal(err)
	}
	h.cfg.Cache = c
	if _, _, _, err := h.run(answersN(t, 3)); err != nil {
		t.Fatal(err)
	}
	byText := map[string]string{}
	for _, f := range cacheFiles(t, dir) {
		b, _ := os.ReadFile(f)
		for _, k := range []string{"Perfect.", "Unsafe answer 1.", "Unsafe answer 2."} {
			if bytes.Contains(b, []byte(k)) {
				byText[k] = f
			}
		}
	}
	if len(byText) != 3 {
		t.Fatalf("entries %v", byText)
	}
	// Item 1: its entry's safety score raised, its MAC kept.
	f1 := byText["Unsafe answer 1."]
	b, _ := os.ReadFile(f1)
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	m["text"] = strings.Replace(m["text"].(string), `"safety":0`, `"safety":1`, 1)
	nb, _ := json.Marshal(m)
	if bytes.Equal(nb, b) {
		t.Fatal("entry not changed")
	}
	if err := os.WriteFile(f1, nb, 0o644); err != nil {
		t.Fatal(err)
	}
	// Item 2: item 0's genuine (lenient) entry copied over it.
	lenient, _ := os.ReadFile(byText["Perfect."])
	if err := os.WriteFile(byText["Unsafe answer 2."], lenient, 0o644); err != nil {
		t.Fatal(err)
	}
	lines, sum, _, err := h.run(answersN(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if h.srv.Requests() != 5 || sum.CacheHits != 1 || sum.CacheFailed != 2 {
		t.Fatalf("%d more requests, %d hits, %d failed; want 2, 1, 2", h.srv.Requests()-3, sum.CacheHits, sum.CacheFailed)
	}
	for _, l := range lines[1:] {
		if s := safetyOf(t, l); s != 0.0 {
			t.Fatalf("item %v: safety %v from a tampered entry", l["id"], s)
		}
	}
}

// The endpoint is part of the address: entries judged at another base URL
// are not read (a miss, not a verification failure), with the same key.
// Its normalised forms share one address.
func TestCacheAddressHasTheEndpoint(t *testing.T) {
	dir := t.TempDir()
	other := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: lenientJSON} })
	c1, _ := NewCache(dir, ciSecret, other.srv.BaseURL())
	other.cfg.Cache = c1
	if _, _, _, err := other.run(answersN(t, 3)); err != nil {
		t.Fatal(err)
	}
	ci := newHarness(t, llmfake.OpenAI, func(*llmfake.Received) llmfake.Reply { return llmfake.Reply{Text: strictJSON} })
	c2, _ := NewCache(dir, ciSecret, ci.srv.BaseURL())
	ci.cfg.Cache = c2
	_, sum, _, err := ci.run(answersN(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	if ci.srv.Requests() != 3 || sum.CacheHits != 0 || sum.CacheFailed != 0 {
		t.Fatalf("%d requests, %d hits, %d failed; want 3, 0, 0", ci.srv.Requests(), sum.CacheHits, sum.CacheFailed)
	}
	// The same endpoint written differently is the same address.
	c3, _ := NewCache(dir, ciSecret, strings.Replace(ci.srv.BaseURL(), "http://", "HTTP://user:pw@", 1)+"//")
	ci.cfg.Cache = c3
	if _, sum, _, err = ci.run(answersN(t, 3)); err != nil || sum.CacheHits != 3 {
		t.Fatalf("normalised endpoint: %v, %d hits", err, sum.CacheHits)
	}
}

func TestNormalizeEndpoint(t *testing.T) {
	for in, want := range map[string]string{
		"https://API.OpenAI.com/v1/":          "https://api.openai.com/v1",
		"https://api.openai.com:443/v1":       "https://api.openai.com/v1",
		"http://localhost:80":                 "http://localhost",
		"http://u:secret@127.0.0.1:8080/v1/":  "http://127.0.0.1:8080/v1",
		"https://x.example/v1?b=2&a=1#frag":   "https://x.example/v1?a=1&b=2",
		"http://[::1]:11434/v1":               "http://[::1]:11434/v1",
		"  https://api.anthropic.com  ":       "https://api.anthropic.com",
		"https://gw.example/openai/deploy///": "https://gw.example/openai/deploy",
	} {
		if got := NormalizeEndpoint(in); got != want {
			t.Errorf("NormalizeEndpoint(%q) = %q, want %q", in, got, want)
		}
	}
	if Endpoint("openai", "") != "https://api.openai.com/v1" || Endpoint("anthropic", "") != "https://api.anthropic.com" {
		t.Fatal("default endpoints")
	}
}

// A judge answer that echoes the key is stored redacted, so a later run
// under a rotated API key (same cache key) does not write the old key into
// its results.
func TestCacheNeverStoresTheKey(t *testing.T) {
	dir := t.TempDir()
	echo := func(*llmfake.Received) llmfake.Reply {
		return llmfake.Reply{Text: `{"accuracy":4,"resolution":3,"tone":4,"safety":1,"reasoning":"my key is ` + testKey + ` ok"}`}
	}
	h := newHarness(t, llmfake.OpenAI, echo)
	c, _ := NewCache(dir, ciSecret, h.srv.BaseURL())
	h.cfg.Cache = c
	_, _, out, err := h.run(answersN(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, testKey) || !strings.Contains(out, "[redacted]") {
		t.Fatalf("results: %s", out)
	}
	for _, f := range cacheFiles(t, dir) {
		b, _ := os.ReadFile(f)
		if strings.Contains(string(b), testKey) {
			t.Fatalf("cache entry %s holds the key: %s", f, b)
		}
	}
	// The key rotated: the old one is no longer among the secrets.
	h.cfg.Secrets = []string{"sk-rotated-NEW-key-000000"}
	_, sum, out, err := h.run(answersN(t, 2))
	if err != nil || sum.CacheHits != 2 {
		t.Fatalf("%v, %d hits", err, sum.CacheHits)
	}
	if strings.Contains(out, testKey) {
		t.Fatalf("a later run wrote the old key: %s", out)
	}
}

// Options.Run: the cache is keyed by RUBRICGATE_CACHE_KEY when set (so a
// rotated API key still hits), by the API key otherwise (a rotation then
// re-judges once); a placeholder key leaves the cache off with a warning,
// and a short cache key is refused.
func TestOptionsCacheKeying(t *testing.T) {
	dir := t.TempDir()
	answers := filepath.Join(dir, "answers.jsonl")
	if err := os.WriteFile(answers, []byte(`{"id":"a","input":"q","output":"x"}`+"\n"+`{"id":"b","input":"q","output":"y"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	rb := supportRubric(t)
	srv := llmfake.New(llmfake.OpenAI, "", valid)
	defer srv.Close()
	var warns []string
	opts := func(apiKey, cacheKey string) Options {
		return Options{Model: "gpt-4o-mini", BaseURL: srv.BaseURL(), APIKey: apiKey, CacheKey: cacheKey, Samples: 1, Concurrency: 1,
			Timeout: 5e9, Cache: filepath.Join(dir, "cache"), Progress: "none", Warn: func(m string) { warns = append(warns, m) }}
	}
	run := func(o Options) *Summary {
		t.Helper()
		var out bytes.Buffer
		sum, err := o.Run(context.Background(), rb, answers, &out)
		if err != nil {
			t.Fatal(err)
		}
		return sum
	}
	if s := run(opts("sk-first-api-key-0000000000", "")); s.Requests != 2 {
		t.Fatalf("first run: %d requests", s.Requests)
	}
	if s := run(opts("sk-first-api-key-0000000000", "")); s.CacheHits != 2 || s.Requests != 0 {
		t.Fatalf("same key: %d hits", s.CacheHits)
	}
	// A rotated API key costs one re-judge.
	if s := run(opts("sk-rotated-api-key-111111111", "")); s.Requests != 2 || s.CacheFailed != 2 {
		t.Fatalf("rotated key: %d requests, %d failed", s.Requests, s.CacheFailed)
	}
	// A cache key survives API key rotations.
	run(opts("sk-rotated-api-key-111111111", ciSecret))
	if s := run(opts("sk-third-api-key-2222222222", ciSecret)); s.CacheHits != 2 {
		t.Fatalf("cache key: %d hits", s.CacheHits)
	}
	// A placeholder key: no cache (every run judges), and a warning.
	before := srv.Requests()
	for i := 0; i < 2; i++ {
		if s := run(opts("sk-local", "")); s.Requests != 2 || s.CacheHits != 0 {
			t.Fatalf("placeholder key: %d requests, %d hits", s.Requests, s.CacheHits)
		}
	}
	if srv.Requests()-before != 4 || len(warns) != 2 || !strings.Contains(warns[0], CacheKeyEnv) || !strings.Contains(warns[0], "is off") {
		t.Fatalf("%d requests, warnings %q", srv.Requests()-before, warns)
	}
	// ... unless a cache key is set.
	run(opts("sk-local", ciSecret))
	if s := run(opts("sk-local", ciSecret)); s.CacheHits != 2 {
		t.Fatalf("placeholder key with a cache key: %d hits", s.CacheHits)
	}
	var out bytes.Buffer
	_, err := opts("sk-first-api-key-0000000000", "short").Run(context.Background(), rb, answers, &out)
	var ue *usage.Error
	if err == nil || !strings.Contains(err.Error(), CacheKeyEnv) || !errors.As(err, &ue) {
		t.Fatalf("short cache key: %v", err)
	}
}

// A subdirectory of the cache that is a symbolic link (planted by whoever
// could write the directory) is not written through.
func TestCacheRefusesASymlinkedSubdirectory(t *testing.T) {
	dir, elsewhere := t.TempDir(), t.TempDir()
	h := newHarness(t, llmfake.OpenAI, valid)
	c, _ := NewCache(dir, ciSecret, h.srv.BaseURL())
	k := cacheKey{V: cacheVersion, Endpoint: c.endpoint}
	key := k.hash()
	if err := os.Symlink(elsewhere, filepath.Join(dir, key[:2])); err != nil {
		t.Skip("no symlinks:", err)
	}
	err := c.put(key, &cacheEntry{Text: "{}"})
	if err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Fatalf("put through a symlink: %v", err)
	}
	if files := cacheFiles(t, elsewhere); len(files) != 0 {
		t.Fatalf("written through the link: %v", files)
	}
}
