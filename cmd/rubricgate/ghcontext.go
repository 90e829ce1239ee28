package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/host"
)

// ghContext is what the gate needs from the GitHub Actions environment and
// the event payload.
type ghContext struct {
	owner, repo   string
	repoID        int64
	eventName     string
	sha           string // GITHUB_SHA: the merge commit on pull_request
	headSHA       string // the pull request's head, else GITHUB_SHA
	ref, refName  string
	baseRef       string // the pull request's base branch
	defaultBranch string
	pr            int
	labels        []string
	runID         int64
	runURL        string
	apiURL        string
	workflow, job string
	// workflowRun is the payload's workflow_run (workflow_run events).
	workflowRun *wfRun
}

type wfRun struct {
	ID             int64  `json:"id"`
	HeadSHA        string `json:"head_sha"`
	HeadBranch     string `json:"head_branch"`
	Event          string `json:"event"`
	Conclusion     string `json:"conclusion"`
	Repository     repoRef
	HeadRepository repoRef `json:"head_repository"`
	PullRequests   []struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
		} `json:"head"`
	} `json:"pull_requests"`
}

type repoRef struct {
	ID       int64  `json:"id"`
	FullName string `json:"full_name"`
}

// event is the part of an event payload rubricgate reads.
type event struct {
	Number      int `json:"number"`
	PullRequest *struct {
		Number int `json:"number"`
		Head   struct {
			SHA string `json:"sha"`
			Ref string `json:"ref"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
		} `json:"base"`
		Labels []struct {
			Name string `json:"name"`
		} `json:"labels"`
	} `json:"pull_request"`
	Repository *struct {
		ID            int64  `json:"id"`
		FullName      string `json:"full_name"`
		DefaultBranch string `json:"default_branch"`
	} `json:"repository"`
	WorkflowRun *wfRun `json:"workflow_run"`
}

// readGHContext reads the Actions environment. The event payload is capped
// at 25 MiB (GitHub's own limit for webhook payloads).
func readGHContext(getenv func(string) string) (*ghContext, error) {
	c := &ghContext{
		eventName: getenv("GITHUB_EVENT_NAME"),
		sha:       getenv("GITHUB_SHA"),
		ref:       getenv("GITHUB_REF"),
		refName:   getenv("GITHUB_REF_NAME"),
		baseRef:   getenv("GITHUB_BASE_REF"),
		apiURL:    getenv("GITHUB_API_URL"),
		workflow:  getenv("GITHUB_WORKFLOW"),
		job:       getenv("GITHUB_JOB"),
	}
	if c.apiURL == "" {
		c.apiURL = "https://api.github.com"
	}
	if full := getenv("GITHUB_REPOSITORY"); full != "" {
		o, r, ok := strings.Cut(full, "/")
		if !ok || o == "" || r == "" {
			return nil, fmt.Errorf("GITHUB_REPOSITORY %q: expected owner/name", full)
		}
		c.owner, c.repo = o, r
	}
	if id := getenv("GITHUB_RUN_ID"); id != "" {
		c.runID, _ = strconv.ParseInt(id, 10, 64)
		server := getenv("GITHUB_SERVER_URL")
		if server == "" {
			server = "https://github.com"
		}
		if c.owner != "" {
			c.runURL = fmt.Sprintf("%s/%s/%s/actions/runs/%d", strings.TrimSuffix(server, "/"), c.owner, c.repo, c.runID)
		}
	}
	c.headSHA = c.sha
	if p := getenv("GITHUB_EVENT_PATH"); p != "" {
		data, err := readFileLimited(p, 25<<20)
		if err != nil && !os.IsNotExist(err) {
			return nil, fmt.Errorf("event payload: %w", err)
		}
		if err == nil {
			var ev event
			if err := json.Unmarshal(data, &ev); err != nil {
				return nil, fmt.Errorf("event payload %s: %w", p, err)
			}
			if ev.Repository != nil {
				c.repoID = ev.Repository.ID
				c.defaultBranch = ev.Repository.DefaultBranch
			}
			if pr := ev.PullRequest; pr != nil {
				c.pr = pr.Number
				if pr.Head.SHA != "" {
					c.headSHA = pr.Head.SHA
				}
				if pr.Base.Ref != "" {
					c.baseRef = pr.Base.Ref
				}
				for _, l := range pr.Labels {
					c.labels = append(c.labels, l.Name)
				}
			}
			c.workflowRun = ev.WorkflowRun
		}
	}
	return c, nil
}

// isPullRequest reports whether the event is about a pull request.
func (c *ghContext) isPullRequest() bool {
	return c.pr > 0 && (c.eventName == "pull_request" || c.eventName == "pull_request_target")
}

func (c *ghContext) hasLabel(name string) bool {
	for _, l := range c.labels {
		if strings.EqualFold(l, name) {
			return true
		}
	}
	return false
}

// branch is the branch this run is on.
func (c *ghContext) branch() string {
	if c.pr > 0 {
		return "" // a pull request's run is never a baseline branch's run
	}
	if strings.HasPrefix(c.ref, "refs/heads/") {
		return strings.TrimPrefix(c.ref, "refs/heads/")
	}
	return c.refName
}

// build is the run as the gate pipeline reads it; nil outside Actions.
func (c *ghContext) build() *host.Build {
	if c == nil {
		return nil
	}
	return &host.Build{Host: "github", Repository: c.owner + "/" + c.repo, RepositoryID: c.repoID,
		Event: c.eventName, SHA: c.sha, HeadSHA: c.headSHA, Ref: c.ref, Branch: c.branch(),
		BaseBranch: c.baseRef, DefaultBranch: c.defaultBranch, ChangeRequest: c.pr,
		ChangeRequestEvent: c.isPullRequest(), Labels: c.labels, RunID: c.runID, RunURL: c.runURL,
		Workflow: c.workflow, Job: c.job, APIURL: c.apiURL,
		BaselineEvent: c.eventName == "push" && c.pr == 0 && strings.HasPrefix(c.ref, "refs/heads/")}
}
