// Package workflows holds the example GitHub Actions workflows as files
// (the *.yml beside this file) and embedded, so that `rubricgate init`
// writes the same text the examples ship: one source for both.
package workflows

import "embed"

// Files are the example workflows, by file name (pr-check.yml,
// baseline.yml, ...).
//
//go:embed *.yml
var Files embed.FS

// The two workflows `rubricgate init` writes.
const (
	// PullRequest gates each pull request.
	PullRequest = "pr-check.yml"
	// Baseline gates each push to the baseline branch and uploads its
	// baseline on a pass. Its push filter is [BaselineBranchLine].
	Baseline = "baseline.yml"
	// BaselineBranchLine is Baseline's push filter, for the branch main:
	// init writes the repository's baseline branch in its place.
	BaselineBranchLine = "    branches: [main]\n"
)
