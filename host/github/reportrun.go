package github

import (
	"context"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
)

// ReportRun returns the run that triggered this workflow_run workflow once
// CheckProvenance found that the report's context rc belongs to it
// (repository, run id, head commit).
func (h *Host) ReportRun(rc *gate.RunContext) (host.TriggeringRun, error) {
	wr := h.Event().WorkflowRun
	if err := CheckProvenance(rc, h.build, wr); err != nil {
		return host.TriggeringRun{}, err
	}
	return host.TriggeringRun{ID: wr.ID, Conclusion: wr.Conclusion}, nil
}

// RunCommenter returns the sticky commenter on the triggering run's pull
// request (found by RunPullRequest) and the pull request's number; logf
// receives the commenter's notes. Call it after ReportRun.
func (h *Host) RunCommenter(ctx context.Context, token, author string, logf func(string, ...any)) (host.Commenter, int, error) {
	wr := h.Event().WorkflowRun
	cm := h.Commenter(token, author)
	cm.Logf = logf
	pr, err := cm.RunPullRequest(ctx, wr)
	if err != nil {
		return nil, 0, err
	}
	cm.PullRequest, cm.HeadSHA = pr, wr.HeadSHA
	return cm, pr, nil
}
