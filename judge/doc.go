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
// [Options] are a run's settings as the user gives them: [Options.Run]
// checks them (a mistake is a *usage.Error naming the flag), runs the
// judge-family check before any request, builds the provider, reads the
// answers file and judges it. The package reads no flag and no environment:
// the command fills Options, reads the API key from the environment
// variable [Options.KeyEnv] names, and passes writers in (results, progress).
package judge
