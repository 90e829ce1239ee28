package judge

import (
	"context"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// clock is the time source and sleeper, injected so tests run fast.
type clock struct {
	now   func() time.Time
	sleep func(ctx context.Context, d time.Duration) error
}

// limiter is a token bucket of requests per minute, plus a shared pause set
// by rate-limit answers (Retry-After, exhausted rate-limit headers) so that
// every worker backs off, not just the one that was told.
type limiter struct {
	c      clock
	mu     sync.Mutex
	rate   float64 // tokens per second; 0: unlimited
	burst  float64
	tokens float64
	last   time.Time
	pause  time.Time
}

func newLimiter(c clock, rpm, burst int) *limiter {
	l := &limiter{c: c}
	if rpm > 0 {
		l.rate = float64(rpm) / 60
		l.burst = float64(max(1, min(burst, rpm)))
		l.tokens = l.burst
		l.last = c.now()
	}
	return l
}

// wait blocks until a request may be sent.
func (l *limiter) wait(ctx context.Context) error {
	l.mu.Lock()
	now := l.c.now()
	var d time.Duration
	if l.pause.After(now) {
		d = l.pause.Sub(now)
	}
	if l.rate > 0 {
		l.tokens = min(l.burst, l.tokens+now.Sub(l.last).Seconds()*l.rate)
		l.last = now
		l.tokens-- // reserve, possibly going negative
		if l.tokens < 0 {
			d = max(d, time.Duration(-l.tokens/l.rate*float64(time.Second)))
		}
	}
	l.mu.Unlock()
	if d > 0 {
		return l.c.sleep(ctx, d)
	}
	return ctx.Err()
}

// pauseFor makes every worker wait d from now before its next request.
func (l *limiter) pauseFor(d time.Duration) {
	l.mu.Lock()
	if t := l.c.now().Add(d); t.After(l.pause) {
		l.pause = t
	}
	l.mu.Unlock()
}

// retryAfter reads how long an answer asks the client to wait: Retry-After
// (seconds or an HTTP date), retry-after-ms, then the OpenAI
// (x-ratelimit-reset-requests/-tokens, "1s", "6m0s") and Anthropic
// (anthropic-ratelimit-*-reset, RFC 3339) reset headers. ok is false when
// none is present.
func retryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	if h == nil {
		return 0, false
	}
	if v := strings.TrimSpace(h.Get("Retry-After-Ms")); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms >= 0 {
			return time.Duration(ms * float64(time.Millisecond)), true
		}
	}
	if v := strings.TrimSpace(h.Get("Retry-After")); v != "" {
		if s, err := strconv.ParseFloat(v, 64); err == nil && s >= 0 {
			return time.Duration(s * float64(time.Second)), true
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(0, t.Sub(now)), true
		}
	}
	var best time.Duration
	found := false
	for _, k := range []string{"X-Ratelimit-Reset-Requests", "X-Ratelimit-Reset-Tokens"} {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			if d, err := time.ParseDuration(v); err == nil && d >= 0 {
				best, found = max(best, d), true
			}
		}
	}
	for _, k := range []string{"Anthropic-Ratelimit-Requests-Reset", "Anthropic-Ratelimit-Tokens-Reset", "Anthropic-Ratelimit-Input-Tokens-Reset", "Anthropic-Ratelimit-Output-Tokens-Reset"} {
		if v := strings.TrimSpace(h.Get(k)); v != "" {
			if t, err := time.Parse(time.RFC3339, v); err == nil {
				best, found = max(best, t.Sub(now)), true
			}
		}
	}
	return max(0, best), found
}

// exhausted reports how long to pause after a successful answer that says
// the request allowance is used up (remaining 0), or 0.
func exhausted(h http.Header, now time.Time) time.Duration {
	if h == nil {
		return 0
	}
	if h.Get("X-Ratelimit-Remaining-Requests") == "0" {
		if d, err := time.ParseDuration(strings.TrimSpace(h.Get("X-Ratelimit-Reset-Requests"))); err == nil && d > 0 {
			return d
		}
	}
	if h.Get("Anthropic-Ratelimit-Requests-Remaining") == "0" {
		if t, err := time.Parse(time.RFC3339, strings.TrimSpace(h.Get("Anthropic-Ratelimit-Requests-Reset"))); err == nil {
			return max(0, t.Sub(now))
		}
	}
	return 0
}

// backoff is the wait before retry n (1-based) without a server hint:
// exponential from base, capped, with full jitter in [d/2, d].
func backoff(base, maxDelay time.Duration, n int, rnd func() float64) time.Duration {
	d := base
	for i := 1; i < n && d < maxDelay; i++ {
		d *= 2
	}
	d = min(d, maxDelay)
	return d/2 + time.Duration(rnd()*float64(d/2))
}

func defaultRand() float64 { return rand.Float64() }
