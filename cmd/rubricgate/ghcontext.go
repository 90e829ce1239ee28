package main

import (
	"strings"

	"github.com/rubricgate/rubricgate/host"
	ghhost "github.com/rubricgate/rubricgate/host/github"
)

// ghContext is the GitHub Actions run as host/github reads it: the build
// information, the event payload, and the repository's owner and name.
type ghContext struct {
	*host.Build
	h           *ghhost.Host
	ev          *ghhost.Event
	owner, repo string
}

// readGHContext reads the Actions environment and the event payload
// (capped at 25 MiB, GitHub's own limit for webhook payloads).
func readGHContext(e *env) (*ghContext, error) {
	h, err := ghhost.New(e.getenv, e.stdout)
	if err != nil {
		return nil, err
	}
	b := h.Build()
	c := &ghContext{Build: b, h: h, ev: h.Event()}
	c.owner, c.repo, _ = strings.Cut(b.Repository, "/")
	return c, nil
}

// build is the run as the gate pipeline reads it; nil outside Actions.
func (c *ghContext) build() *host.Build {
	if c == nil {
		return nil
	}
	return c.Build
}
