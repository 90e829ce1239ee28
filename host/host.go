// Package host describes what the gate needs from the CI system it runs
// in, as small interfaces the gate pipeline consumes:
//
//   - [Build]: which repository, event, branch and commit the run is for,
//     the change request (pull request, merge request) and its labels, and
//     whether the run may save its branch's baseline;
//   - [Reporter]: annotations, the job summary and step outputs;
//   - [Commenter]: the sticky comment on the change request;
//   - [Stores]: the default baseline store.
//
// Implementations: host/github (GitHub Actions), host/gitlab (GitLab CI)
// and host/local (a terminal, outside any CI). A new CI system is one new
// package implementing these.
package host

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
)

// Build is what the gate knows about the run. Every field may be empty:
// a local run knows little.
type Build struct {
	// Host names the CI system: "github", "gitlab" or "local".
	Host string
	// Repository is "owner/name" (GitHub) or the project path (GitLab).
	Repository string
	// RepositoryID is the host's numeric id of the repository or project.
	RepositoryID int64
	// Event is what started the run: "push", "pull_request",
	// "merge_request_event", "schedule", ... ("local" outside CI).
	Event string
	// SHA is the commit checked out; on a GitHub pull_request run the
	// test merge commit.
	SHA string
	// HeadSHA is the change request's head commit, else SHA.
	HeadSHA string
	// Ref is the full ref ("refs/heads/main", "refs/pull/7/merge").
	Ref string
	// Branch is the branch the run is on: empty for a change request's
	// run (never a branch's own run), a tag, or a detached HEAD.
	Branch string
	// BaseBranch is the change request's target branch.
	BaseBranch string
	// DefaultBranch is the repository's default branch, when known.
	DefaultBranch string
	// ChangeRequest is the pull request number or merge request iid; 0
	// when the run is not for one.
	ChangeRequest int
	// ChangeRequestEvent is true when the event itself is about the change
	// request (GitHub's pull_request and pull_request_target, GitLab's
	// merge_request_event): the runs that comment by default.
	ChangeRequestEvent bool
	// Labels are the change request's labels.
	Labels []string
	// LabelAdded is the label whose adding started the run (GitHub's
	// pull_request "labeled" event), "" otherwise: the moment a label is
	// applied, which no later run can claim.
	LabelAdded string
	// LabelAddedBy is the login that applied LabelAdded (the labeled
	// event's sender), "" otherwise.
	LabelAddedBy string
	// LabelAddedByBot is true when LabelAddedBy is a bot account (the
	// sender's type is Bot).
	LabelAddedByBot bool
	// Author is the login of the change request's author, when the build
	// tells it (GitHub's payload); "" otherwise.
	Author string
	// RunID and RunURL identify the CI run (pipeline or workflow run).
	RunID  int64
	RunURL string
	// RunAttempt is the attempt of the run (GitHub's GITHUB_RUN_ATTEMPT:
	// 1, or more for "Re-run jobs"); 0 when the host does not say. A
	// re-run replays the event of the run it repeats, so what the event
	// says of a moment (LabelAdded, LabelAddedBy) is no longer news.
	RunAttempt int
	// RunsURL is where this repository's runs live on this server, ending
	// in "/": a run's URL is RunsURL followed by its number
	// ("https://github.com/owner/repo/actions/runs/", GitLab's
	// ".../-/jobs/"); "" when unknown. Only such URLs are shown as links.
	RunsURL string
	// Workflow and Job name the workflow (pipeline) and job.
	Workflow, Job string
	// APIURL is the host's REST API root (no trailing slash).
	APIURL string
	// BaselineEvent is true when the event may produce its branch's
	// baseline: a push to a branch (or a local run), never a change
	// request's run, whose results the change request controls.
	BaselineEvent bool
}

// StartedByLabel reports whether adding the label name started the run
// (the change request's "labeled" event for it, compared without case).
// A re-run (RunAttempt above 1) replays that event: see Replayed.
func (b *Build) StartedByLabel(name string) bool {
	return b.ChangeRequestEvent && b.LabelAdded != "" && strings.EqualFold(b.LabelAdded, name)
}

// Replayed reports whether the run is a re-run of an earlier one, whose
// event it replays (RunAttempt above 1).
func (b *Build) Replayed() bool {
	return b.RunAttempt > 1
}

// HasLabel reports whether the change request carries the label (case
// insensitive, as GitHub and GitLab compare labels).
func (b *Build) HasLabel(name string) bool {
	for _, l := range b.Labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

// SaveBranch is the branch a passing run saves its baseline under:
// explicit when given (the --branch flag), else the run's branch when its
// event may save one, else "": a change request's run never becomes its
// target branch's baseline.
func (b *Build) SaveBranch(explicit string) string {
	if explicit != "" {
		return explicit
	}
	if b.BaselineEvent {
		return b.Branch
	}
	return ""
}

// OnBaselineBranch reports whether the run is a baseline-producing run on
// branch: the run that may upload the baseline for branch.
func (b *Build) OnBaselineBranch(branch string) bool {
	return b.BaselineEvent && b.Branch != "" && b.Branch == branch
}

// RunContext is the report's record of the CI run that made it, so a
// later job can check a report it is asked to post; nil for a local run.
func (b *Build) RunContext(commentKey string) *gate.RunContext {
	if b.Host == "" || b.Host == "local" {
		return nil
	}
	return &gate.RunContext{Repository: b.Repository, EventName: b.Event, SHA: b.SHA, HeadSHA: b.HeadSHA,
		PullRequest: b.ChangeRequest, RunID: b.RunID, RunURL: b.RunURL, CommentKey: commentKey}
}

// CommentKey is the default sticky comment key: workflow, job, rubric
// name and the results given, so two gates or matrix legs keep apart.
func (b *Build) CommentKey(rubricName string, results []string) string {
	return strings.Join([]string{b.Workflow, b.Job, rubricName, strings.Join(results, ",")}, "/")
}

// BaselineMeta records the run in a new baseline made at created. The
// branch is the run's; for a local run without one, fallback (the branch
// it is saved for). A CI change request's run records no branch.
func (b *Build) BaselineMeta(created time.Time, fallback string) baseline.Meta {
	m := baseline.Meta{CreatedAt: created.UTC(), SHA: b.SHA, Ref: b.Ref, Branch: b.Branch,
		Repository: b.Repository, RunID: b.RunID, RunURL: b.RunURL}
	if m.Branch == "" && (b.Host == "" || b.Host == "local") {
		m.Branch = fallback
	}
	return m
}

// BuildInfo gives the run's build information; every host has it.
type BuildInfo interface {
	Build() *Build
}

// Output is one named value the run hands to later steps.
type Output struct {
	Name, Value string
}

// Reporter shows the outcome in the host's UI.
type Reporter interface {
	// Annotate shows an error, warning or notice, on a file and line when
	// it has them. Hosts escape the text for their log.
	Annotate(a finding.Annotation) error
	// Summary adds markdown to the job summary (a no-op where the host
	// has none).
	Summary(markdown string) error
	// SetOutputs hands values to later steps (a no-op where the host has
	// no such channel). An error here fails the run: later steps rely on
	// the outputs.
	SetOutputs(outs []Output) error
}

// CommentResult says what a Commenter did.
type CommentResult struct {
	// Action is "created", "updated", "unchanged" or "skipped-stale".
	Action string
	// URL is the comment's web address (empty when skipped).
	URL string
}

// Commenter keeps one sticky comment per key on the run's change request.
type Commenter interface {
	// Comment creates or updates the comment for key with body. Hosts
	// add their hidden marker; body must fit BodyLimit(key).
	Comment(ctx context.Context, key, body string) (CommentResult, error)
	// BodyLimit is the largest body in bytes Comment accepts for key.
	BodyLimit(key string) int
}

// StoreOptions are the settings a default baseline store may use.
type StoreOptions struct {
	// Token authenticates to the host's API (never printed).
	Token string
	// ArtifactName names the artifact (or package) holding baseline.json.
	ArtifactName string
	// MaxArchive caps a downloaded archive in bytes.
	MaxArchive int64
	// LocalDir is the local store's root, for hosts whose default store is
	// a directory.
	LocalDir string
	// Logf receives the store's warnings.
	Logf func(format string, args ...any)
}

// Stores gives the host's default baseline store, used when neither a
// baseline file nor a directory was named. saveDir is non-nil when the
// store is a local directory a passing run saves into.
type Stores interface {
	DefaultStore(o StoreOptions) (store baseline.Store, saveDir *baseline.Dir, err error)
}

// ConfigError is a setting the host needs and did not get (a token, an
// environment variable): a usage error, exit 2.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return e.Msg }

// Configf returns a *ConfigError.
func Configf(format string, a ...any) error { return &ConfigError{fmt.Sprintf(format, a...)} }

// CommentMode is the comment setting: "auto" comments on change request
// runs, "always" wherever there is a change request, "never" never.
type CommentMode string

// Comment modes.
const (
	CommentAuto   CommentMode = "auto"
	CommentAlways CommentMode = "always"
	CommentNever  CommentMode = "never"
)

// ParseCommentMode reads the comment setting.
func ParseCommentMode(s string) (CommentMode, error) {
	switch m := CommentMode(s); m {
	case CommentAuto, CommentAlways, CommentNever:
		return m, nil
	}
	return "", fmt.Errorf("comment %q: expected auto, always or never", s)
}

// ShouldComment decides whether to comment. warning is not empty when the
// mode asked for a comment the run cannot make; it is shown as a warning.
func ShouldComment(mode CommentMode, b *Build) (ok bool, warning string) {
	switch {
	case mode == CommentNever:
		return false, ""
	case mode == CommentAuto && !(b.ChangeRequestEvent && b.ChangeRequest > 0):
		return false, ""
	case b.ChangeRequest <= 0:
		return false, "comment: always was asked but this run is not for a pull request"
	}
	return true, ""
}
