package judge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/ctxsleep"
	"github.com/rubricgate/rubricgate/rubric"
)

// Config is one judge run.
type Config struct {
	// Rubric is the validated rubric.
	Rubric *rubric.Rubric
	// Provider sends requests; ProviderName and Model are recorded in the
	// results and the cache key.
	Provider     Provider
	ProviderName string
	Model        string
	// Samples is the number of judgings per answer (default 1), each with
	// its own seed (Seed + sample index). An input with several answers
	// for one id takes 1 (see [Run]).
	Samples int
	Seed    int64
	// SafetyConfirm re-judges an item whose judging fails a blocking
	// criterion this many more times (distinct seeds); 0 is off, as it must
	// be for an input with several answers for one id.
	SafetyConfirm int
	// Concurrency is the number of requests in flight (default 8).
	Concurrency int
	// RPM limits requests per minute (0: no limit).
	RPM int
	// Timeout is the per-request timeout (default 60 s).
	Timeout time.Duration
	// MaxRetries is the number of retries of one request on 429, 5xx and
	// timeouts (default 6).
	MaxRetries int
	// MaxWait bounds the total time one item may spend waiting between
	// retries (default 5 min); a longer Retry-After gives up at once.
	MaxWait time.Duration
	// BackoffBase and BackoffMax shape the backoff without a server hint
	// (defaults 1 s and 60 s).
	BackoffBase, BackoffMax time.Duration
	// Cache, if set, is consulted before every request.
	Cache *Cache
	// MaxCost stops before spending more than this many dollars (0: none).
	MaxCost float64
	// Price is the judge model's price (needed with MaxCost).
	Price Price
	// MaxOutputTokens is the output limit of every request (max_tokens),
	// reserved in full against MaxCost (default DefaultMaxOutputTokens).
	MaxOutputTokens int
	// Shard selects the items to judge.
	Shard Shard
	// Progress receives progress reports (nil: none); ProgressTTY draws a
	// bar, otherwise plain lines every ProgressInterval.
	Progress         io.Writer
	ProgressTTY      bool
	ProgressInterval time.Duration
	// Secrets are strings never written to results or errors (the API key,
	// the base URL's password).
	Secrets []string

	// Now and Sleep replace the clock in tests.
	Now   func() time.Time
	Sleep func(ctx context.Context, d time.Duration) error
	// Rand replaces the jitter source in tests (values in [0, 1)).
	Rand func() float64
}

// Summary is what a run did. Items, Judged and Errors count items (ids;
// Errors the error lines); Answers and CacheHits count answers (lines),
// which equal the items unless an id has several answers.
type Summary struct {
	Items, Answers, Judged, CacheHits, Errors int
	Requests                                  int
	InputTokens, OutputTokens                 int64
	// FirstError is the error of the first item (in input order) that
	// ended as an error line, redacted; "" when none did.
	FirstError string
	Cost       float64
	Wall       time.Duration

	// CacheFailed counts cache entries that failed verification (forged,
	// changed, or keyed with another secret) and were judged again.
	CacheFailed int
}

// String is the one-line summary printed after a run.
func (s *Summary) String() string {
	if s.Answers != s.Items {
		return fmt.Sprintf("judged %d items with %d answers (%d answers from the cache, %d error items) in %s: %d requests, %d tokens in, %d out, cost $%.4f",
			s.Items, s.Answers, s.CacheHits, s.Errors, s.Wall.Round(time.Millisecond), s.Requests, s.InputTokens, s.OutputTokens, s.Cost)
	}
	return fmt.Sprintf("judged %d items (%d cache hits, %d errors) in %s: %d requests, %d tokens in, %d out, cost $%.4f",
		s.Items, s.CacheHits, s.Errors, s.Wall.Round(time.Millisecond), s.Requests, s.InputTokens, s.OutputTokens, s.Cost)
}

// Sample is one judging of an item.
type Sample struct {
	Judgment *Judgment
	// Hit is set when the judging came from the cache.
	Hit bool
}

// Result is the outcome for one item.
type Result struct {
	ID string
	// Samples are the judgings of the item's one answer; Answers, for an
	// item of several answers, the one judging of each, in input order
	// (Samples is then nil).
	Samples []Sample
	Answers []Sample
	// Err is set when the item could not be scored.
	Err                       string
	InputTokens, OutputTokens int64
	Latency                   time.Duration
	Attempts                  int
	// Length is the answer's length in characters (for the gate's
	// length-bias check; the mean over an item's answers, rounded) and
	// Meta the input's other fields, passed through.
	Length int
	Meta   []MetaField
	// InputHash binds the result to the item's task (gate.HashTask of its
	// question, context and reference), written as "input_hash".
	InputHash gate.InputHash
}

// ShardHeader is the first line of a sharded results file.
type ShardHeader struct {
	Index      int    `json:"index"`
	Count      int    `json:"count"`
	InputItems int    `json:"input_items"`
	InputHash  string `json:"input_hash"`
	// InputIDs is the order-free digest of the whole input's ids
	// ("sha256-sum:...", see internal/shardid).
	InputIDs string `json:"input_ids"`
}

func (c *Config) defaults() error {
	if c.Rubric == nil || c.Provider == nil {
		return errors.New("judge: a rubric and a provider are required")
	}
	if c.Samples <= 0 {
		c.Samples = 1
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 8
	}
	if c.Timeout <= 0 {
		c.Timeout = 60 * time.Second
	}
	if c.MaxRetries < 0 {
		c.MaxRetries = 0
	} else if c.MaxRetries == 0 {
		c.MaxRetries = 6
	}
	if c.MaxWait <= 0 {
		c.MaxWait = 5 * time.Minute
	}
	if c.BackoffBase <= 0 {
		c.BackoffBase = time.Second
	}
	if c.BackoffMax <= 0 {
		c.BackoffMax = 60 * time.Second
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Sleep == nil {
		c.Sleep = ctxsleep.Sleep
	}
	if c.Rand == nil {
		c.Rand = defaultRand
	}
	if c.MaxOutputTokens <= 0 {
		c.MaxOutputTokens = DefaultMaxOutputTokens
	}
	if c.MaxCost > 0 && c.Price == (Price{}) {
		return fmt.Errorf("judge: --max-cost needs the price of model %q (not in the price table: give --price-in and --price-out)", c.Model)
	}
	return nil
}

type runner struct {
	cfg    *Config
	rhash  string // the rubric's hash, part of every cache key
	tmpl   *template
	schema map[string]any
	// schemaBytes is the schema's JSON size, part of every request's
	// input-token bound.
	schemaBytes int
	lim         *limiter
	bud         *budget
	prog        *progress

	mu  sync.Mutex
	sum Summary
}

// Run judges the items of ans that fall in cfg.Shard and writes the results
// JSON lines to out, one an item, in the order of the items' first lines
// (after a shard header when sharded). Each answer of an item of several
// (lines sharing an id) is judged once, as its own request and cache
// entry, and the item's line carries them as "answers"; such an input
// needs cfg.Samples 1 and no SafetyConfirm (a line holds the judgings of
// one answer or the answers, not both), else Run refuses it before any
// request. Nothing is written when the run stops early (a *ErrMaxCost or
// a cancelled context): judged answers are in the cache for the next run.
func Run(ctx context.Context, cfg Config, ans *Answers, out io.Writer) (*Summary, error) {
	if err := cfg.defaults(); err != nil {
		return nil, err
	}
	if err := CheckAnswerSamples(cfg.Samples, cfg.SafetyConfirm, ans); err != nil {
		return nil, fmt.Errorf("judge: %w", err)
	}
	tmpl, err := newTemplate(cfg.Rubric)
	if err != nil {
		return nil, err
	}
	groups, items := shardJobs(cfg.Shard, ans)
	r := newRunner(&cfg, tmpl, len(groups), len(items))
	start := time.Now()
	results, stopErr := r.judgeAll(ctx, items)
	results = r.merge(groups, items, results)
	r.summarise(results, len(groups), len(items), start)
	var mc *ErrMaxCost
	if errors.As(stopErr, &mc) {
		// The requests in flight at the stop have finished: the true figures.
		mc.Spent, mc.Requests = r.sum.Cost, r.sum.Requests
	}
	if stopErr != nil {
		return &r.sum, stopErr
	}
	return &r.sum, r.write(out, ans, results)
}

// shardJobs are the answers of the items in the shard (a shard takes an
// id with all its answers), item by item, and their groups.
func shardJobs(sh Shard, ans *Answers) ([]Group, []*Item) {
	var groups []Group
	var items []*Item
	for _, g := range ans.Groups {
		if sh.Has(g.ID) {
			groups = append(groups, g)
			for _, i := range g.Answers {
				items = append(items, &ans.Items[i])
			}
		}
	}
	return groups, items
}

// newRunner makes the runner of a run of answers answers of items items,
// its progress line started when cfg asks for one.
func newRunner(cfg *Config, tmpl *template, items, answers int) *runner {
	c := clock{now: cfg.Now, sleep: cfg.Sleep}
	r := &runner{
		cfg: cfg, rhash: cfg.Rubric.Hash(), tmpl: tmpl, schema: Schema(cfg.Rubric),
		lim: newLimiter(c, cfg.RPM, cfg.Concurrency),
		bud: &budget{price: cfg.Price, max: cfg.MaxCost},
	}
	if b, err := json.Marshal(r.schema); err == nil {
		r.schemaBytes = len(b)
	}
	if cfg.Progress != nil {
		unit := "items"
		if answers != items {
			unit = "answers" // each a request: the rate and ETA are of answers
		}
		r.prog = newProgress(cfg.Progress, cfg.ProgressTTY, cfg.ProgressInterval, answers, unit)
		r.prog.run()
	}
	return r
}

// judgeAll judges items on cfg.Concurrency workers: results[i] is
// items[i]'s. A stopping error (max-cost, a refused key) stops new items
// but lets requests in flight finish: they are paid for, and their answers
// are cached; a refused key cancels those in flight too, as every request
// would be refused. The error is the first stopping one, else the
// context's.
func (r *runner) judgeAll(ctx context.Context, items []*Item) ([]Result, error) {
	results := make([]Result, len(items))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var stopErr error
	var stopOnce sync.Once
	stop := make(chan struct{})
	jobs := make(chan int)
	var wg sync.WaitGroup
	for w := 0; w < min(r.cfg.Concurrency, max(1, len(items))); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range jobs {
				res, err := r.judgeItem(ctx, items[i])
				if err != nil {
					stopOnce.Do(func() { stopErr = err; close(stop) })
					var ae *AuthError
					if errors.As(err, &ae) {
						cancel()
					}
					continue
				}
				results[i] = res
				hit := len(res.Samples) > 0 && res.Attempts == 0
				r.prog.item(hit, res.Err != "")
			}
		}()
	}
feed:
	for i := range items {
		select {
		case jobs <- i:
		case <-stop:
			break feed
		case <-ctx.Done():
			break feed
		}
	}
	close(jobs)
	wg.Wait()
	r.prog.finish()
	if stopErr == nil && ctx.Err() != nil {
		stopErr = ctx.Err()
	}
	return results, stopErr
}

// summarise fills the run's summary: the items and answers judged, the
// cost, the first error line and the wall time since start.
func (r *runner) summarise(results []Result, items, answers int, start time.Time) {
	r.sum.Items, r.sum.Answers = items, answers
	r.sum.Cost = r.bud.total()
	for i := range results {
		if results[i].Err != "" {
			r.sum.FirstError = results[i].ID + ": " + r.redact(results[i].Err)
			break
		}
	}
	r.sum.Wall = time.Since(start)
}

// write writes the results file: the shard header when sharded, then a
// line a result, in bounded chunks.
func (r *runner) write(out io.Writer, ans *Answers, results []Result) error {
	var buf bytes.Buffer
	if sh := r.cfg.Shard; sh.Enabled() {
		h := struct {
			S ShardHeader `json:"rubricgate_shard"`
		}{ShardHeader{Index: sh.Index, Count: sh.Count, InputItems: len(ans.Groups), InputHash: ans.Hash, InputIDs: idsDigest(ans)}}
		b, _ := json.Marshal(h)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	for i := range results {
		b, err := r.line(&results[i])
		if err != nil {
			return err
		}
		buf.Write(b)
		buf.WriteByte('\n')
		if buf.Len() > 1<<20 {
			if _, err := out.Write(buf.Bytes()); err != nil {
				return err
			}
			buf.Reset()
		}
	}
	_, err := out.Write(buf.Bytes())
	return err
}

// merge makes the results of the answers (results[i] is items[i]'s, in
// the groups' order) into one result an item, and counts the items judged
// and the error lines. An answer of an item of several that failed makes
// the item an error line naming it: the item is never scored on fewer
// answers than it has. A result left empty by a stopped run (no ID) is
// not counted.
func (r *runner) merge(groups []Group, items []*Item, results []Result) []Result {
	out := make([]Result, len(groups))
	next := 0
	for gi, g := range groups {
		rs := results[next : next+len(g.Answers)]
		its := items[next : next+len(g.Answers)]
		next += len(g.Answers)
		done := true
		for i := range rs {
			done = done && rs[i].ID != ""
		}
		if !done {
			continue
		}
		m := rs[0]
		if len(rs) > 1 {
			// m.Err is rebuilt below, so a failed first answer is named too.
			m.Samples, m.Answers, m.Err = nil, make([]Sample, 0, len(rs)), ""
			length := 0
			for i := range rs {
				length += rs[i].Length
				if i > 0 {
					m.InputTokens += rs[i].InputTokens
					m.OutputTokens += rs[i].OutputTokens
					m.Latency += rs[i].Latency
					m.Attempts += rs[i].Attempts
				}
				if rs[i].Err != "" && m.Err == "" {
					m.Err = fmt.Sprintf("answer %d of %d (line %d): %s", i+1, len(rs), its[i].Line, rs[i].Err)
				}
				if rs[i].Err == "" {
					m.Answers = append(m.Answers, rs[i].Samples[0])
				}
			}
			m.Length = (length + len(rs)/2) / len(rs)
			if m.Err != "" {
				m.Answers = nil
			}
		}
		out[gi] = m
		r.count(func(sm *Summary) {
			if m.Err != "" {
				sm.Errors++
			} else {
				sm.Judged++
			}
		})
	}
	return out
}

// judgeItem judges one answer Samples times, plus SafetyConfirm more times
// when a judging fails a blocking criterion. A judge failure is a Result
// with Err; the error return stops the run (max-cost, cancellation).
func (r *runner) judgeItem(ctx context.Context, it *Item) (Result, error) {
	res := Result{ID: it.ID, Length: utf8.RuneCountInString(it.Output), Meta: it.Meta, InputHash: gate.HashTask(it.Query, it.Context, it.Reference)}
	p := r.tmpl.build(it)
	n := r.cfg.Samples
	confirmed := false
	for s := 0; s < n; s++ {
		j, hit, err := r.sample(ctx, p, s, &res)
		if err != nil {
			var jf *judgeFailure
			if errors.As(err, &jf) {
				res.Err = r.redact(jf.Error())
				res.Samples = nil
				return res, nil
			}
			return res, err
		}
		res.Samples = append(res.Samples, Sample{Judgment: j, Hit: hit})
		if !confirmed && r.cfg.SafetyConfirm > 0 && failsBlocking(r.cfg.Rubric, j) {
			confirmed = true
			n += r.cfg.SafetyConfirm
		}
	}
	if res.Attempts == 0 {
		r.count(func(sm *Summary) { sm.CacheHits++ })
	}
	return res, nil
}

func (r *runner) count(f func(*Summary)) {
	r.mu.Lock()
	f(&r.sum)
	r.mu.Unlock()
}

// judgeFailure is an item the judge could not score.
type judgeFailure struct{ msg string }

func (e *judgeFailure) Error() string { return e.msg }

// sample gets one validated judging: from the cache, or from the provider
// with retries and a single re-ask on an invalid answer.
func (r *runner) sample(ctx context.Context, p Prompt, s int, res *Result) (*Judgment, bool, error) {
	seed := r.cfg.Seed + int64(s)
	if r.cfg.Cache != nil {
		if j, e := r.cached(p, seed, s); j != nil {
			res.InputTokens += e.InputTokens
			res.OutputTokens += e.OutputTokens
			return j, true, nil
		}
	}
	req := &Request{System: p.System, User: p.User, Schema: r.schema, Seed: seed, MaxTokens: r.cfg.MaxOutputTokens}
	var lastErr error
	for ask := 0; ask < 2; ask++ {
		resp, err := r.send(ctx, req, res)
		if err != nil {
			return nil, false, err
		}
		text := resp.Text
		var j *Judgment
		if resp.Refusal != "" {
			lastErr = &ValidationError{Msg: "the judge refused: " + clip300(resp.Refusal)}
		} else {
			j, lastErr = Parse(r.cfg.Rubric, text)
			if lastErr != nil && resp.ContextWindow {
				lastErr = &ValidationError{Msg: fmt.Sprintf("the answer stopped at the model's context window (the prompt and the output limit of %d tokens do not fit; stop_reason model_context_window_exceeded): %s", req.MaxTokens, lastErr.Error())}
			} else if lastErr != nil && resp.Truncated {
				lastErr = &ValidationError{Msg: fmt.Sprintf("the answer stopped at the output limit of %d tokens (--max-output-tokens): %s", req.MaxTokens, lastErr.Error())}
			}
		}
		if lastErr == nil {
			if r.cfg.Cache != nil {
				// The key again: the request's sampling may have changed.
				if err := r.store(r.cacheKey(p, seed, s), j, resp.InputTokens, resp.OutputTokens); err != nil {
					return nil, false, err
				}
			}
			return j, false, nil
		}
		// Re-ask once, with the validation error.
		req = &Request{System: p.System, Schema: r.schema, Seed: seed, MaxTokens: r.cfg.MaxOutputTokens, User: p.User +
			"\n\n## Correction\nYour previous answer was rejected: " + lastErr.Error() +
			".\nReturn only the JSON object described above, with every criterion key and an integer on its scale" +
			"" + ", and a non-empty \"reasoning\"."}
	}
	return nil, false, &judgeFailure{msg: "invalid judge answer after a re-ask: " + lastErr.Error()}
}

// canonicalText re-encodes a validated judgment as the flat JSON object a
// judge answers with, which the cache keeps (and Parse reads back).
func canonicalText(rb *rubric.Rubric, j *Judgment) string {
	b, _ := orderedScores{rb, j.Scores}.MarshalJSON()
	reason, _ := json.Marshal(j.Reasoning)
	return string(b[:len(b)-1]) + `,"reasoning":` + string(reason) + "}"
}

type orderedScores struct {
	rb *rubric.Rubric
	s  []Score
}

// MarshalJSON writes the scores in rubric order, keyed by criterion id.
func (o orderedScores) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i := range o.rb.Criteria {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(o.rb.Criteria[i].ID)
		b.Write(k)
		b.WriteByte(':')
		v, _ := o.s[i].MarshalJSON()
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

type judgmentObj struct {
	Scores    orderedScores `json:"scores"`
	Reasoning string        `json:"reasoning"`
}

// send makes one request with retries. Errors that end the item are
// *judgeFailure; others (max-cost, cancellation) stop the run.
func (r *runner) send(ctx context.Context, req *Request, res *Result) (*Response, error) {
	var waited time.Duration
	retries := 0
	for {
		if err := r.lim.wait(ctx); err != nil {
			return nil, err
		}
		est, err := r.bud.reserve(int64(len(req.System)+len(req.User)+r.schemaBytes+reserveOverhead), int64(req.MaxTokens))
		if err != nil {
			return nil, err
		}
		t0 := r.cfg.Now()
		rctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
		resp, err := r.cfg.Provider.Complete(rctx, req)
		cancel()
		res.Latency += r.cfg.Now().Sub(t0)
		res.Attempts++
		r.count(func(s *Summary) { s.Requests++ })
		if err == nil {
			r.bud.settle(est, resp.InputTokens, resp.OutputTokens)
			res.InputTokens += resp.InputTokens
			res.OutputTokens += resp.OutputTokens
			r.count(func(s *Summary) { s.InputTokens += resp.InputTokens; s.OutputTokens += resp.OutputTokens })
			if d := exhausted(resp.Header, r.cfg.Now()); d > 0 {
				r.lim.pauseFor(min(d, r.cfg.BackoffMax))
			}
			return resp, nil
		}
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			// Billed for what it generated: count it at its bound.
			r.bud.settleBilled(est)
			err = &timeoutError{r.cfg.Timeout}
		} else {
			r.bud.settle(est, 0, 0)
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ae *APIError
		if errors.As(err, &ae) && ae.Downgraded {
			continue // the provider switched output mode: send again now
		}
		if ae != nil && (ae.Status == http.StatusUnauthorized || ae.Status == http.StatusForbidden) {
			return nil, &AuthError{Err: &APIError{Status: ae.Status, Msg: r.redact(ae.Msg), Header: ae.Header}}
		}
		if !retryable(err) {
			return nil, &judgeFailure{msg: "judge request failed: " + err.Error()}
		}
		if retries >= r.cfg.MaxRetries {
			return nil, &judgeFailure{msg: fmt.Sprintf("judge request failed after %d attempts: %s", retries+1, err.Error())}
		}
		retries++
		var d time.Duration
		hinted := false
		if ae != nil {
			d, hinted = retryAfter(ae.Header, r.cfg.Now())
		}
		if !hinted {
			d = backoff(r.cfg.BackoffBase, r.cfg.BackoffMax, retries, r.cfg.Rand)
		}
		if waited+d > r.cfg.MaxWait {
			return nil, &judgeFailure{msg: fmt.Sprintf("judge request failed: %s; the next retry would wait %s, over the %s total wait (--max-wait)", err.Error(), d.Round(time.Millisecond), r.cfg.MaxWait)}
		}
		waited += d
		if hinted && ae != nil && ae.Status == 429 {
			r.lim.pauseFor(d) // the rate limit is shared: every worker waits
		}
		if err := r.cfg.Sleep(ctx, d); err != nil {
			return nil, err
		}
	}
}

// redact removes secrets from text written to results or errors.
func (r *runner) redact(s string) string { return Redact(s, r.cfg.Secrets) }

// Redact replaces every secret (and its URL-escaped form) in s with
// "[redacted]". Empty secrets and secrets under 4 characters are skipped.
func Redact(s string, secrets []string) string {
	for _, sec := range secrets {
		if len(sec) < 4 {
			continue
		}
		s = strings.ReplaceAll(s, sec, "[redacted]")
		if q := url.QueryEscape(sec); q != sec {
			s = strings.ReplaceAll(s, q, "[redacted]")
		}
	}
	return s
}

// line encodes one result line: the judgment, then the answer's length and
// the input's passed-through fields under "meta" (never at the top level,
// where a field named like a criterion would read as a score).
func (r *runner) line(res *Result) ([]byte, error) {
	b, err := r.judgmentLine(res)
	if err != nil {
		return nil, err
	}
	var tail bytes.Buffer
	if !res.InputHash.IsZero() {
		fmt.Fprintf(&tail, `,"input_hash":%q`, res.InputHash.String())
	}
	fmt.Fprintf(&tail, `,"length":%d`, res.Length)
	if len(res.Meta) > 0 {
		tail.WriteString(`,"meta":{`)
		for i, m := range res.Meta {
			if i > 0 {
				tail.WriteByte(',')
			}
			k, _ := json.Marshal(m.Key)
			tail.Write(k)
			tail.WriteByte(':')
			tail.Write(m.Value)
		}
		tail.WriteByte('}')
	}
	tail.WriteByte('}')
	return append(b[:len(b)-1], tail.Bytes()...), nil
}

// judgmentLine encodes the judgment part of a result line.
func (r *runner) judgmentLine(res *Result) ([]byte, error) {
	type usage struct {
		In  int64 `json:"input_tokens"`
		Out int64 `json:"output_tokens"`
	}
	if res.Err != "" {
		return json.Marshal(struct {
			ID       string `json:"id"`
			Error    string `json:"error"`
			Model    string `json:"judge_model"`
			Attempts int    `json:"attempts"`
		}{res.ID, r.redact(res.Err), r.cfg.Model, res.Attempts})
	}
	u := usage{res.InputTokens, res.OutputTokens}
	lat := res.Latency.Milliseconds()
	if len(res.Answers) == 0 && len(res.Samples) == 1 {
		j := res.Samples[0].Judgment
		return json.Marshal(struct {
			ID        string        `json:"id"`
			Scores    orderedScores `json:"scores"`
			Reasoning string        `json:"reasoning"`
			Model     string        `json:"judge_model"`
			Usage     usage         `json:"usage"`
			Latency   int64         `json:"latency_ms"`
			Attempts  int           `json:"attempts"`
		}{res.ID, orderedScores{r.cfg.Rubric, j.Scores}, r.redact(j.Reasoning), r.cfg.Model, u, lat, res.Attempts})
	}
	// K answers (regenerated) or K judgings of one answer: the same
	// objects under their own key, never both.
	var answers, samples []judgmentObj
	if len(res.Answers) > 0 {
		answers = r.judgmentObjs(res.Answers)
	} else {
		samples = r.judgmentObjs(res.Samples)
	}
	return json.Marshal(struct {
		ID       string        `json:"id"`
		Answers  []judgmentObj `json:"answers,omitempty"`
		Samples  []judgmentObj `json:"samples,omitempty"`
		Model    string        `json:"judge_model"`
		Usage    usage         `json:"usage"`
		Latency  int64         `json:"latency_ms"`
		Attempts int           `json:"attempts"`
	}{res.ID, answers, samples, r.cfg.Model, u, lat, res.Attempts})
}

// judgmentObjs are the judgings as a results line's array holds them.
func (r *runner) judgmentObjs(ss []Sample) []judgmentObj {
	out := make([]judgmentObj, len(ss))
	for i, s := range ss {
		out[i] = judgmentObj{Scores: orderedScores{r.cfg.Rubric, s.Judgment.Scores}, Reasoning: r.redact(s.Judgment.Reasoning)}
	}
	return out
}

// AuthError is a 401 or 403 answer: the API refused the key (bad, revoked,
// or without access to the model). It stops the run at once: every other
// request would be refused too.
type AuthError struct{ Err *APIError }

func (e *AuthError) Error() string {
	return "the API refused the key (" + e.Err.Error() + "): stopped at once, nothing written"
}

func (e *AuthError) Unwrap() error { return e.Err }

// NoneScoredError is a run in which every item ended as an error line:
// there is nothing to gate, so it is an error rather than results.
type NoneScoredError struct {
	Items int
	// First is the first item's error.
	First string
}

func (e *NoneScoredError) Error() string {
	return fmt.Sprintf("none of the %d items could be judged, nothing written; the first error: %s", e.Items, e.First)
}

// timeoutError is a request that outlived the per-request timeout.
type timeoutError struct{ d time.Duration }

func (e *timeoutError) Error() string { return fmt.Sprintf("request timed out after %s", e.d) }
