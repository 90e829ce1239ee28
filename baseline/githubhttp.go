package baseline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/google/go-github/v60/github"
)

// RequestError is a failed request: which call, which request, the HTTP
// status (0 for network errors) and, for permission errors, a hint.
type RequestError struct {
	// Op names the call ("list workflow runs", "list run artifacts",
	// "get branch", "compare commits", "artifact archive URL", "download
	// archive").
	Op string
	// Request is "METHOD path" (API paths relative to the base URL; storage
	// URLs without their signed query).
	Request    string
	StatusCode int
	// Detail, when set, is shown instead of Err (GitHub's errors repeat the
	// whole URL).
	Detail string
	Hint   string
	Err    error
}

// Error says which call failed, on which request, and why.
func (e *RequestError) Error() string {
	var s string
	if e.Detail != "" {
		s = fmt.Sprintf("%s (%s): %s", e.Op, e.Request, e.Detail)
	} else {
		s = fmt.Sprintf("%s (%s): %v", e.Op, e.Request, e.Err)
	}
	if e.Hint != "" {
		s += "; " + e.Hint
	}
	return s
}

// Unwrap returns the underlying error (a go-github error type for API answers).
func (e *RequestError) Unwrap() error { return e.Err }

// CandidateFailure is why one artifact was not used.
type CandidateFailure struct {
	ArtifactID int64
	Reason     string
}

// CandidatesError means artifacts qualified but none gave a usable baseline.
// It is a store error, not ErrNotFound.
type CandidatesError struct {
	Failures []CandidateFailure
}

// Error lists every failed artifact by id with its reason.
func (e *CandidatesError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no usable baseline artifact: %d candidate(s) failed:", len(e.Failures))
	for _, f := range e.Failures {
		fmt.Fprintf(&b, " [artifact #%d: %s]", f.ArtifactID, f.Reason)
	}
	return b.String()
}

// transient marks an error worth retrying (5xx, network, timeout).
type transient struct{ err error }

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

// rateWait marks a rate limit: wait d (< 0: unknown) then retry.
type rateWait struct {
	d   time.Duration
	err error
}

func (r *rateWait) Error() string { return r.err.Error() }
func (r *rateWait) Unwrap() error { return r.err }

// candidateErr marks a failure of one artifact: try the next one.
type candidateErr struct{ err error }

func (c *candidateErr) Error() string { return c.err.Error() }
func (c *candidateErr) Unwrap() error { return c.err }

// retry runs fn, retrying transient failures with bounded backoff and
// waiting out rate limits within the search's budget.
func (s *search) retry(ctx context.Context, fn func() error) error {
	attempt := 0
	for {
		err := fn()
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			return fmt.Errorf("baseline search stopped (deadline %s): %w (last error: %v)", s.g.Deadline, cerr, err)
		}
		var rw *rateWait
		var tr *transient
		switch {
		case errors.As(err, &rw):
			if rw.d < 0 {
				return fmt.Errorf("%w; rate limited with no reset time given, not waiting", rw.err)
			}
			rw.d = max(rw.d, minRateWait)
			if s.rateWaits >= maxRateWaits {
				return fmt.Errorf("%w; still rate limited after %d waits, giving up", rw.err, s.rateWaits)
			}
			s.rateWaits++
			if rw.d > s.rateLeft {
				return fmt.Errorf("%w; rate limited: waiting %s would exceed the remaining rate-limit wait budget of %s (of %s)", rw.err, rw.d.Round(time.Second), s.rateLeft.Round(time.Second), s.g.MaxRateWait)
			}
			if dl, ok := ctx.Deadline(); ok && rw.d > time.Until(dl) {
				return fmt.Errorf("%w; rate limited: waiting %s would pass the search deadline (%s)", rw.err, rw.d.Round(time.Second), s.g.Deadline)
			}
			s.rateLeft -= rw.d
			s.g.Logf("rate limited; waiting %s: %v", rw.d.Round(time.Second), rw.err)
			if serr := s.g.Sleep(ctx, rw.d); serr != nil {
				return fmt.Errorf("%w; stopped while waiting for the rate limit: %v", rw.err, serr)
			}
		case errors.As(err, &tr):
			if attempt >= s.g.Retries {
				return fmt.Errorf("%w (gave up after %d attempts)", tr.err, attempt+1)
			}
			d := s.g.MinBackoff << attempt
			if d > s.g.MaxBackoff || d <= 0 {
				d = s.g.MaxBackoff
			}
			attempt++
			s.g.Logf("retrying in %s: %v", d, tr.err)
			if serr := s.g.Sleep(ctx, d); serr != nil {
				return fmt.Errorf("%w; stopped while waiting to retry: %v", tr.err, serr)
			}
		default:
			return err
		}
	}
}

// getJSON GETs an API path into v, with retries, and returns the next
// page number from the Link header (0: none).
func (s *search) getJSON(ctx context.Context, op, path string, v any) (int, error) {
	return s.get(ctx, op, path, func(r io.Reader) error { return json.NewDecoder(r).Decode(v) })
}

// get GETs an API path, reads the answer with decode, with retries, and
// returns the next page number from the Link header (0: none).
func (s *search) get(ctx context.Context, op, path string, decode func(io.Reader) error) (int, error) {
	next := 0
	err := s.retry(ctx, func() error {
		rctx, cancel := context.WithTimeout(ctx, s.g.RequestTimeout)
		defer cancel()
		req, err := s.g.API.NewRequest("GET", path, nil)
		if err != nil {
			return &RequestError{Op: op, Request: "GET " + path, Err: err}
		}
		resp, err := s.api.Do(req.WithContext(rctx))
		if err != nil {
			return netError(op, "GET "+path, err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return s.apiError(op, "GET "+path, resp)
		}
		if err := decode(io.LimitReader(resp.Body, 16<<20)); err != nil {
			if rctx.Err() != nil {
				return netError(op, "GET "+path, err)
			}
			return &RequestError{Op: op, Request: "GET " + path, StatusCode: resp.StatusCode, Err: fmt.Errorf("decode the answer: %w", err)}
		}
		next = nextPage(resp.Header.Get("Link"))
		return nil
	})
	return next, err
}

// apiError classifies a failed API answer (it reads the body).
func (s *search) apiError(op, desc string, resp *http.Response) error {
	err := github.CheckResponse(resp)
	if err == nil {
		err = fmt.Errorf("unexpected status %s", resp.Status)
	}
	re := &RequestError{Op: op, Request: desc, StatusCode: resp.StatusCode, Err: err}
	var rl *github.RateLimitError
	var ab *github.AbuseRateLimitError
	var er *github.ErrorResponse
	msg := ""
	switch {
	case errors.As(err, &rl):
		msg = rl.Message
	case errors.As(err, &ab):
		msg = ab.Message
	case errors.As(err, &er):
		msg = er.Message
	}
	re.Detail = resp.Status
	if msg != "" {
		re.Detail += ": " + strings.TrimSpace(msg)
	}
	switch {
	case rl != nil:
		if rl.Rate.Reset.IsZero() {
			return &rateWait{d: -1, err: re}
		}
		re.Detail += fmt.Sprintf(" (primary rate limit; resets at %s)", rl.Rate.Reset.UTC().Format(time.RFC3339))
		d := rl.Rate.Reset.Sub(s.g.Now()) + time.Second
		if d < 0 {
			d = 0
		}
		return &rateWait{d: d, err: re}
	case ab != nil:
		re.Detail += " (secondary rate limit)"
		d := time.Minute // GitHub: without Retry-After, wait at least a minute
		if ab.RetryAfter != nil && *ab.RetryAfter >= 0 {
			d = *ab.RetryAfter
		}
		return &rateWait{d: d, err: re}
	case resp.StatusCode == http.StatusTooManyRequests:
		return &rateWait{d: s.retryAfter(resp), err: re}
	case resp.StatusCode >= 500:
		return &transient{re}
	case resp.StatusCode == http.StatusUnauthorized:
		re.Hint = "the token is missing or invalid; " + permissionsHint
	case resp.StatusCode == http.StatusForbidden, resp.StatusCode == http.StatusNotFound:
		re.Hint = permissionsHint
	}
	return re
}

// retryAfter reads Retry-After (seconds), else X-RateLimit-Reset (epoch
// seconds), else one minute.
func (s *search) retryAfter(resp *http.Response) time.Duration {
	if v := resp.Header.Get("Retry-After"); v != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil && n >= 0 {
			return time.Duration(n) * time.Second
		}
		if t, err := http.ParseTime(v); err == nil {
			return max(t.Sub(s.g.Now()), 0)
		}
	}
	if v := resp.Header.Get("X-RateLimit-Reset"); v != "" {
		if n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64); err == nil {
			return max(time.Unix(n, 0).Sub(s.g.Now())+time.Second, 0)
		}
	}
	return time.Minute
}

// netError wraps a transport error as transient (retried).
func netError(op, desc string, err error) error {
	return &transient{&RequestError{Op: op, Request: desc, Err: err}}
}

// nextPage returns the page number of the rel="next" link, or 0.
func nextPage(link string) int {
	for _, part := range strings.Split(link, ",") {
		segs := strings.Split(strings.TrimSpace(part), ";")
		if len(segs) < 2 {
			continue
		}
		u := strings.Trim(strings.TrimSpace(segs[0]), "<>")
		isNext := false
		for _, p := range segs[1:] {
			if strings.TrimSpace(p) == `rel="next"` {
				isNext = true
			}
		}
		if !isNext {
			continue
		}
		pu, err := url.Parse(u)
		if err != nil {
			return 0
		}
		n, err := strconv.Atoi(pu.Query().Get("page"))
		if err != nil || n <= 0 {
			return 0
		}
		return n
	}
	return 0
}
