package judge

import (
	"fmt"
	"strings"
	"sync"
)

// Price is a model's price in US dollars per million tokens.
type Price struct {
	In, Out float64
}

// Prices is the built-in price table, by model name prefix (the longest
// matching prefix wins). Prices change: override with Config.Price
// (--price-in/--price-out) when they matter.
var Prices = map[string]Price{
	"gpt-4o-mini":       {In: 0.15, Out: 0.60},
	"gpt-4o":            {In: 2.50, Out: 10.00},
	"gpt-4.1-nano":      {In: 0.10, Out: 0.40},
	"gpt-4.1-mini":      {In: 0.40, Out: 1.60},
	"gpt-4.1":           {In: 2.00, Out: 8.00},
	"gpt-5-nano":        {In: 0.05, Out: 0.40},
	"gpt-5-mini":        {In: 0.25, Out: 2.00},
	"gpt-5":             {In: 1.25, Out: 10.00},
	"o4-mini":           {In: 1.10, Out: 4.40},
	"o3":                {In: 2.00, Out: 8.00},
	"claude-3-5-haiku":  {In: 0.80, Out: 4.00},
	"claude-haiku-4":    {In: 1.00, Out: 5.00},
	"claude-3-5-sonnet": {In: 3.00, Out: 15.00},
	"claude-3-7-sonnet": {In: 3.00, Out: 15.00},
	"claude-sonnet-4":   {In: 3.00, Out: 15.00},
	"claude-opus-4":     {In: 15.00, Out: 75.00},
	"gemini-2.0-flash":  {In: 0.10, Out: 0.40},
	"gemini-2.5-flash":  {In: 0.30, Out: 2.50},
	"gemini-2.5-pro":    {In: 1.25, Out: 10.00},
}

// LookupPrice returns the price of a model from the table (longest prefix,
// case-insensitive, a provider prefix such as "openai/" ignored).
func LookupPrice(model string, table map[string]Price) (Price, bool) {
	m := strings.ToLower(strings.TrimSpace(model))
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	var best Price
	bestLen := 0
	for k, p := range table {
		k = strings.ToLower(k)
		if strings.HasPrefix(m, k) && len(k) > bestLen {
			best, bestLen = p, len(k)
		}
	}
	return best, bestLen > 0
}

// Cost is the dollar cost of the given usage.
func (p Price) Cost(in, out int64) float64 {
	return (float64(in)*p.In + float64(out)*p.Out) / 1e6
}

// reserveOverhead is the input tokens reserved per request beyond the
// bytes of its texts and schema: the message framing, and for Anthropic the
// tool-use system prompt the API adds (a few hundred tokens).
const reserveOverhead = 400

// budget tracks spending against a maximum. Before each request it reserves
// an upper bound of the request's cost: one input token per byte of the
// prompt and schema (a byte-level tokenizer's token covers at least a byte)
// plus reserveOverhead, and the request's whole output limit (max_tokens).
// The reservations of the requests in flight count against the maximum, so
// concurrent workers cannot overshoot it together: the final spending stays
// within the maximum as long as the API bills no more than it was asked for.
type budget struct {
	mu       sync.Mutex
	price    Price
	max      float64 // 0: unlimited
	spent    float64
	reserved float64
	inFlight int
	stopped  bool
}

// ErrMaxCost is returned when a request would take spending over the
// maximum. When the run has stopped, Spent and Requests are the run's
// final figures: the requests that were in flight when it stopped
// (InFlight) finished, and are paid for and counted.
type ErrMaxCost struct {
	Max, Spent         float64
	Requests, InFlight int
}

func (e *ErrMaxCost) Error() string {
	return fmt.Sprintf("max-cost $%.4f reached: spent $%.4f on %d requests (%d in flight when it stopped, finished and counted); stopped before the next request",
		e.Max, e.Spent, e.Requests, e.InFlight)
}

// reserve books the cost bound of a request of inTokens input tokens (an
// upper bound) and outTokens output tokens (its limit) and returns it.
func (b *budget) reserve(inTokens, outTokens int64) (float64, error) {
	est := b.price.Cost(inTokens, outTokens)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.max > 0 && (b.stopped || b.spent+b.reserved+est > b.max) {
		b.stopped = true
		return 0, &ErrMaxCost{Max: b.max, Spent: b.spent, InFlight: b.inFlight}
	}
	b.reserved += est
	b.inFlight++
	return est, nil
}

// settle replaces a reservation with the actual cost.
func (b *budget) settle(est float64, in, out int64) {
	b.mu.Lock()
	b.reserved -= est
	b.inFlight--
	b.spent += b.price.Cost(in, out)
	b.mu.Unlock()
}

// settleBilled replaces a reservation with its whole amount spent: a
// request that timed out was billed for what it generated, but no usage
// came back to say how much.
func (b *budget) settleBilled(est float64) {
	b.mu.Lock()
	b.reserved -= est
	b.inFlight--
	b.spent += est
	b.mu.Unlock()
}

func (b *budget) total() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}
