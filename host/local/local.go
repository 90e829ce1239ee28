// Package local is the host of a run outside any CI: a terminal. The
// branch comes from the --branch flag, else from the git repository's HEAD
// (read from the files, without running git; a worktree, whose .git is a
// file, works too; a detached HEAD is no branch). There are no comments;
// the reporter prints plain text; the baseline store is a local directory.
package local

import (
	"fmt"
	"io"
	"os"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/gitmeta"
)

// DefaultDir is the local baseline store's root when none is given.
const DefaultDir = host.DefaultLocalDir

// Options say where the run is.
type Options struct {
	// Branch is the --branch flag; empty: from the git HEAD.
	Branch string
	// Dir is where to look for the git repository (and its parents);
	// empty: the working directory.
	Dir string
	// Stderr receives annotations (nil: discarded).
	Stderr io.Writer
	// SkipGit leaves the git repository unread: the branch is only
	// Branch (the gate pipeline finds the checkout's branch itself).
	SkipGit bool
}

// Host is the local host.
type Host struct {
	build  host.Build
	stderr io.Writer
}

// New reads the branch and commit. A directory outside any git repository
// is not an error: the branch is then only what Options.Branch says.
func New(o Options) (*Host, error) {
	b := host.Build{Host: "local", Event: "local"}
	var g gitmeta.Git
	if !o.SkipGit {
		dir := o.Dir
		if dir == "" {
			var err error
			if dir, err = os.Getwd(); err != nil {
				return nil, fmt.Errorf("working directory: %w", err)
			}
		}
		var err error
		if g, err = gitmeta.Read(dir); err != nil {
			return nil, err
		}
	}
	b.Branch, b.SHA, b.DefaultBranch = g.Branch, g.SHA, g.DefaultBranch
	if o.Branch != "" {
		b.Branch = o.Branch
	}
	b.HeadSHA = b.SHA
	if b.Branch != "" {
		b.Ref = "refs/heads/" + b.Branch
	}
	// The person at the terminal owns the run: it may save its branch's baseline.
	b.BaselineEvent = b.Branch != ""
	w := o.Stderr
	if w == nil {
		w = io.Discard
	}
	return &Host{build: b, stderr: w}, nil
}

// Build returns the run's build information.
func (h *Host) Build() *host.Build { return &h.build }

// Annotate prints "warning: MESSAGE" (or error:, notice:) as one safe
// line, with " (FILE:LINE)" when the annotation has a file its message
// does not already start with.
func (h *Host) Annotate(a finding.Annotation) error {
	level := string(a.Level)
	if level == "" {
		level = string(finding.Warning)
	}
	if _, err := fmt.Fprintf(h.stderr, "%s: %s\n", level, a.PlainLine()); err != nil {
		return fmt.Errorf("annotation: %w", err)
	}
	return nil
}

// Summary does nothing: a terminal has no job summary (write the markdown
// report with --markdown).
func (h *Host) Summary(string) error { return nil }

// SetOutputs does nothing: there are no later steps.
func (h *Host) SetOutputs([]host.Output) error { return nil }

// DefaultStore is a local directory (o.LocalDir, default DefaultDir),
// which a passing run saves into.
func (h *Host) DefaultStore(o host.StoreOptions) (baseline.Store, *baseline.Dir, error) {
	root := o.LocalDir
	if root == "" {
		root = DefaultDir
	}
	d := &baseline.Dir{Root: root}
	return d, d, nil
}

// Commenting is none: a terminal has no change request to comment on.
func (h *Host) Commenting(host.CommentOptions) host.Commenting { return host.Commenting{} }

// Interface checks.
var (
	_ host.Host      = (*Host)(nil)
	_ host.BuildInfo = (*Host)(nil)
	_ host.Reporter  = (*Host)(nil)
	_ host.Stores    = (*Host)(nil)
)
