// Package gitlab is the GitLab CI host: the build information from the
// predefined CI_* variables, a plain-text reporter, step outputs as a
// dotenv report, the sticky merge-request note through the GitLab REST
// API, and the default baseline store.
//
// # Baselines on GitLab
//
// The default store is the local directory store (.rubricgate/baselines).
// Keep it as a job artifact of the default branch's pipelines, and fetch
// it in merge request pipelines with the job token (which may read the
// project's artifacts) through
// GET /projects/:id/jobs/artifacts/:ref/raw/*path?job=NAME (the ref
// URL-encoded when it holds a '/'). A recipe, for a rubric named "support":
//
//	rubricgate-main:
//	  rules:
//	    - if: $CI_COMMIT_BRANCH == $CI_DEFAULT_BRANCH && $CI_PIPELINE_SOURCE == "push"
//	  script:
//	    - rubricgate gate --rubric rubric.yaml --results results.jsonl --branch "$CI_COMMIT_BRANCH"
//	  artifacts:
//	    paths: [.rubricgate/baselines/]
//	    expire_in: 90 days
//
//	rubricgate-mr:
//	  rules:
//	    - if: $CI_PIPELINE_SOURCE == "merge_request_event"
//	  script:
//	    - curl --fail --silent --show-error --header "JOB-TOKEN: $CI_JOB_TOKEN" --output baseline.json
//	      "$CI_API_V4_URL/projects/$CI_PROJECT_ID/jobs/artifacts/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME/raw/.rubricgate/baselines/support/$CI_MERGE_REQUEST_TARGET_BRANCH_NAME.json?job=rubricgate-main"
//	      || rm -f baseline.json
//	    - rubricgate gate --rubric rubric.yaml --results results.jsonl $(test -f baseline.json && echo --baseline baseline.json)
//
// (Branch names with characters other than letters, digits, '-', '_' and
// '.' are %XX-escaped in the file name; see baseline.Dir.) A GitLab cache
// is no substitute: by default caches of protected and unprotected refs
// are kept apart, so a merge request cannot read the default branch's,
// and a shared cache could be written by a merge request that edits the
// pipeline. A merge request's run never saves a baseline
// (Build.SaveBranch is empty for it).
//
// A generic-packages store (GET/PUT /projects/:id/packages/generic/...)
// would make the baseline durable without the artifact expiry; it is not
// built: it would be one more baseline.Store returned by DefaultStore.
package gitlab

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/baseline"
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/host"
)

// DefaultDir is the local baseline store's root when none is given.
const DefaultDir = host.DefaultLocalDir

// InCI reports whether the process runs as a GitLab CI job.
func InCI(getenv func(string) string) bool { return getenv("GITLAB_CI") == "true" }

// baselineSources are the pipeline sources that may produce their branch's
// baseline: a push, a schedule, a pipeline started in the web UI by a
// developer. A merge request pipeline runs code its author controls.
var baselineSources = map[string]bool{"push": true, "schedule": true, "web": true}

// ReadBuild reads the predefined CI_* variables. A malformed number is an
// error naming the variable.
func ReadBuild(getenv func(string) string) (*host.Build, error) {
	b := &host.Build{
		Host:          "gitlab",
		Repository:    getenv("CI_PROJECT_PATH"),
		Event:         getenv("CI_PIPELINE_SOURCE"),
		SHA:           getenv("CI_COMMIT_SHA"),
		BaseBranch:    getenv("CI_MERGE_REQUEST_TARGET_BRANCH_NAME"),
		DefaultBranch: getenv("CI_DEFAULT_BRANCH"),
		RunURL:        getenv("CI_JOB_URL"),
		Workflow:      getenv("CI_PIPELINE_NAME"),
		Job:           getenv("CI_JOB_NAME"),
		APIURL:        strings.TrimSuffix(getenv("CI_API_V4_URL"), "/"),
	}
	if b.APIURL == "" {
		if s := strings.TrimSuffix(getenv("CI_SERVER_URL"), "/"); s != "" {
			b.APIURL = s + "/api/v4"
		}
	}
	if p := strings.TrimSuffix(getenv("CI_PROJECT_URL"), "/"); p != "" {
		b.RunsURL = p + "/-/jobs/"
	}
	if b.Workflow == "" {
		b.Workflow = getenv("CI_CONFIG_PATH")
	}
	var err error
	if b.RepositoryID, err = int64Var(getenv, "CI_PROJECT_ID"); err != nil {
		return nil, err
	}
	if b.RunID, err = int64Var(getenv, "CI_JOB_ID"); err != nil {
		return nil, err
	}
	iid, err := int64Var(getenv, "CI_MERGE_REQUEST_IID")
	if err != nil {
		return nil, err
	}
	b.ChangeRequest = int(iid)
	b.HeadSHA = b.SHA
	// In a merged results pipeline CI_COMMIT_SHA is the merge result; the
	// merge request's head is the source branch's commit.
	if s := getenv("CI_MERGE_REQUEST_SOURCE_BRANCH_SHA"); s != "" && b.ChangeRequest > 0 {
		b.HeadSHA = s
	}
	for _, l := range strings.Split(getenv("CI_MERGE_REQUEST_LABELS"), ",") {
		if l = strings.TrimSpace(l); l != "" {
			b.Labels = append(b.Labels, l)
		}
	}
	b.ChangeRequestEvent = b.ChangeRequest > 0 && b.Event == "merge_request_event"
	switch {
	case b.ChangeRequest > 0:
		b.Ref = fmt.Sprintf("refs/merge-requests/%d/head", b.ChangeRequest)
	case getenv("CI_COMMIT_TAG") != "":
		b.Ref = "refs/tags/" + getenv("CI_COMMIT_TAG")
	case getenv("CI_COMMIT_BRANCH") != "":
		b.Branch = getenv("CI_COMMIT_BRANCH")
		b.Ref = "refs/heads/" + b.Branch
	}
	b.BaselineEvent = b.Branch != "" && baselineSources[b.Event]
	return b, nil
}

func int64Var(getenv func(string) string, name string) (int64, error) {
	v := getenv(name)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: expected a number", name, v)
	}
	return n, nil
}

// FromFork reports whether the merge request comes from another project
// (a fork): its pipeline runs with the fork's permissions.
func FromFork(getenv func(string) string) bool {
	src, dst := getenv("CI_MERGE_REQUEST_SOURCE_PROJECT_ID"), getenv("CI_MERGE_REQUEST_PROJECT_ID")
	return src != "" && dst != "" && src != dst
}

// Host is the GitLab CI host of one job.
type Host struct {
	build  *host.Build
	getenv func(string) string
	stdout io.Writer
	// DotenvPath, when set, is the file SetOutputs writes: declare it as
	// artifacts:reports:dotenv to hand the outputs to later jobs.
	DotenvPath string
}

// New reads the build; annotations go to stdout, the job log.
func New(getenv func(string) string, stdout io.Writer) (*Host, error) {
	b, err := ReadBuild(getenv)
	if err != nil {
		return nil, err
	}
	return &Host{build: b, getenv: getenv, stdout: stdout}, nil
}

// DefaultDotenv is the dotenv report [NewJob] writes the outputs to when
// RUBRICGATE_DOTENV is unset: declare it as artifacts:reports:dotenv to
// hand them to later jobs.
const DefaultDotenv = "rubricgate.env"

// NewJob is [New] for the gate's job: the outputs go to the dotenv report
// named by RUBRICGATE_DOTENV, else [DefaultDotenv].
func NewJob(getenv func(string) string, stdout io.Writer) (*Host, error) {
	h, err := New(getenv, stdout)
	if err != nil {
		return nil, err
	}
	h.DotenvPath = getenv("RUBRICGATE_DOTENV")
	if h.DotenvPath == "" {
		h.DotenvPath = DefaultDotenv
	}
	return h, nil
}

// githubDefaultAuthor is the comment-author setting's default (GitHub's
// token login): on GitLab it means the token's own user, asked of GitLab.
const githubDefaultAuthor = "github-actions[bot]"

// Commenting is the merge request's sticky note, posted with the token in
// GITLAB_TOKEN (a masked CI/CD variable holding a project access token with
// api scope: CI_JOB_TOKEN cannot write notes, and a token given on the
// command line would show in the job log). The note of o.Author is
// adopted; left at its GitHub default, the note of the token's own user
// (GET /user), so a note another user posted with the marker is never
// adopted; "*" any author's (GitLab refuses to edit another user's note:
// a new note is posted then). The gate's previous note is read back only
// from a named author or the token's own user: anyone may post a note.
func (h *Host) Commenting(o host.CommentOptions) host.Commenting {
	c := host.Commenting{Noun: "note"}
	author := o.Author
	if author == githubDefaultAuthor {
		author = "" // the token's own user
	}
	token := h.getenv("GITLAB_TOKEN")
	if token == "" {
		c.Missing = "comment: no GitLab token (set GITLAB_TOKEN to a project access token with api scope); the merge request note was not posted"
		return c
	}
	notes := h.Commenter(token, false, author)
	c.Commenter = notes
	c.LabelActor = notes.LabelActor
	if o.Mode != host.CommentNever && author != "*" {
		c.Previous = notes.Existing
	}
	return c
}

// Build returns the job's build information.
func (h *Host) Build() *host.Build { return h.build }

// Annotate prints "WARNING: message (file:line)" (ERROR:, NOTICE:) to the
// job log as one safe line: GitLab has no annotation command, and no
// untrusted text can write a log section marker or a terminal escape.
func (h *Host) Annotate(a finding.Annotation) error {
	level := strings.ToUpper(string(a.Level))
	if level == "" {
		level = "WARNING"
	}
	if _, err := fmt.Fprintf(h.stdout, "%s: %s\n", level, a.PlainLine()); err != nil {
		return fmt.Errorf("annotation: %w", err)
	}
	return nil
}

// Summary does nothing: GitLab has no job summary. The JUnit report
// (artifacts:reports:junit) and the merge request note show the outcome.
func (h *Host) Summary(string) error { return nil }

// SetOutputs writes RUBRICGATE_<NAME>=value lines (name upper-cased,
// '-' as '_') to DotenvPath, replacing the file; a no-op without one.
// GitLab's dotenv format takes no line breaks in a value: such a value is
// an error.
func (h *Host) SetOutputs(outs []host.Output) error {
	if h.DotenvPath == "" {
		return nil
	}
	var b strings.Builder
	for _, o := range outs {
		name := "RUBRICGATE_" + strings.ToUpper(strings.ReplaceAll(o.Name, "-", "_"))
		for _, r := range name {
			if !(r == '_' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9') {
				return fmt.Errorf("outputs: invalid output name %q", o.Name)
			}
		}
		if strings.ContainsAny(o.Value, "\r\n") {
			return fmt.Errorf("outputs: %s spans lines, which a dotenv report cannot carry", o.Name)
		}
		b.WriteString(name + "=" + o.Value + "\n")
	}
	if err := os.WriteFile(h.DotenvPath, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("outputs: %w", err)
	}
	return nil
}

// DefaultStore is the local directory store (o.LocalDir, default
// DefaultDir), kept between pipelines by a GitLab cache: see the package
// documentation.
func (h *Host) DefaultStore(o host.StoreOptions) (baseline.Store, *baseline.Dir, error) {
	root := o.LocalDir
	if root == "" {
		root = DefaultDir
	}
	d := &baseline.Dir{Root: root}
	return d, d, nil
}

// Commenter returns the sticky note of the job's merge request. token is
// sent as PRIVATE-TOKEN (a project or personal access token with api
// scope), or as JOB-TOKEN when jobToken is true; author is the username
// whose marker note is adopted ("" for the token's own user, "*" for
// anyone).
func (h *Host) Commenter(token string, jobToken bool, author string) *Notes {
	return &Notes{
		APIURL: h.build.APIURL, Project: strconv.FormatInt(h.build.RepositoryID, 10), MergeRequest: h.build.ChangeRequest,
		ProjectURL: h.getenv("CI_PROJECT_URL"), Token: token, JobToken: jobToken, Author: author,
	}
}

// Interface checks.
var (
	_ host.Host      = (*Host)(nil)
	_ host.BuildInfo = (*Host)(nil)
	_ host.Reporter  = (*Host)(nil)
	_ host.Stores    = (*Host)(nil)
)
