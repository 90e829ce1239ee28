package comment

import (
	"fmt"
	"testing"

	"github.com/rubricgate/rubricgate/internal/ghfake"
)

// The tests run against the shared GitHub fake (internal/ghfake), which
// accepts only testToken.

const (
	testToken = "ghs_secretTOKEN1234567890"
	botLogin  = ghfake.BotLogin
)

// newFake starts the fake for octo-org/evals with pull requests and comments.
func newFake(t *testing.T) (*ghfake.Server, *ghfake.Issues) {
	t.Helper()
	f := ghfake.New(t, "octo-org", "evals", 1296269)
	f.AcceptTokens(testToken)
	return f, f.ServeIssues()
}

// service returns a Service talking to the fake with testToken, and its warnings.
func service(f *ghfake.Server) (*Service, *[]string) {
	var logs []string
	s := &Service{Client: f.Client(testToken), Owner: "octo-org", Repo: "evals", Logf: func(format string, args ...any) {
		logs = append(logs, fmt.Sprintf(format, args...))
	}}
	return s, &logs
}

// requestLog is the fake's request log as "METHOD /path?query" lines.
func requestLog(f *ghfake.Server) []string {
	var out []string
	for _, r := range f.Requests() {
		out = append(out, r.String())
	}
	return out
}
