// Package judge runs an LLM judge over model answers: it builds the rubric's
// judge prompt for each item, asks a provider (OpenAI-compatible chat
// completions or Anthropic messages) for one integer per criterion, validates
// the answer (re-asking once with the validation error), and writes results
// JSON lines that the gate reads.
//
// Requests are retried on 429, 5xx and timeouts with backoff and jitter,
// honouring Retry-After and rate-limit headers, within a bounded total wait.
// A content-addressed cache directory makes a re-run over unchanged answers
// send no request. Concurrency, requests per minute and spending are bounded;
// a run can be split into shards by a hash of the item id.
//
// The package does no flag or environment reading: the command builds a
// Config and passes readers and writers in.
package judge
