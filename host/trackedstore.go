package host

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// storeRisk is what a committed store lets a pull request do, and the fix.
const storeRisk = "a pull request can edit the baselines it is compared with; keep the store out of git (.gitignore) or use the artifact store"

// storeFix is the fix for a change request's run refused by
// [CheckTrackedStore].
const storeFix = "keep the baseline store outside the checkout (a directory a merge or pull request cannot write, such as one the job fills from the target branch's own job artifact or package: see docs/gitlab.md), or remove it from git (git rm -r --cached, .gitignore) and use the artifact store"

// TrackedStore says whether path, a local baseline store (a directory or a
// file), lies inside a git checkout whose git tracks files under it. Root
// is the checkout ("" when path is not inside one, and then nothing else is
// set); Files counts the tracked files; Err is set when git is missing or
// could not tell (Files is then 0 and unknown).
type TrackedStore struct {
	Root  string
	Files int
	Err   error
}

// CheckTracked runs git (found by lookPath, exec.LookPath) to fill a
// [TrackedStore] for path.
func CheckTracked(path string, lookPath func(string) (string, error)) TrackedStore {
	abs, err := filepath.Abs(path)
	if err != nil {
		return TrackedStore{}
	}
	var t TrackedStore
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			t.Root = d
			break
		}
		if filepath.Dir(d) == d {
			return TrackedStore{}
		}
	}
	git, err := lookPath("git")
	if err != nil {
		t.Err = fmt.Errorf("git is not available: %w", err)
		return t
	}
	rel, err := filepath.Rel(t.Root, abs)
	if err != nil {
		return TrackedStore{}
	}
	out, err := exec.Command(git, "-C", t.Root, "ls-files", "-z", "--", rel).Output()
	if err != nil {
		t.Err = fmt.Errorf("git ls-files: %w", err)
		return t
	}
	t.Files = strings.Count(string(out), "\x00")
	return t
}

// TrackedStoreWarning returns a warning when dir, a local baseline store,
// lies inside a git checkout and git tracks files under it: the store is then
// part of what a pull request commits, and a pull request could edit the
// baseline it is compared with. It returns "" when dir is not inside a
// checkout or nothing under it is tracked. lookPath finds the git binary
// (exec.LookPath); without git the warning says the store could not be
// checked.
func TrackedStoreWarning(dir string, lookPath func(string) (string, error)) string {
	return CheckTracked(dir, lookPath).warning(dir)
}

func (t TrackedStore) warning(dir string) string {
	switch {
	case t.Root == "":
		return ""
	case t.Err != nil && strings.HasPrefix(t.Err.Error(), "git is not available"):
		return fmt.Sprintf("the local baseline store %s is inside the git checkout %s and git is not available to check whether it is committed: if it is, %s", dir, t.Root, storeRisk)
	case t.Err != nil:
		return fmt.Sprintf("the local baseline store %s is inside the git checkout %s and git could not tell whether it is committed (%v): if it is, %s", dir, t.Root, t.Err, storeRisk)
	case t.Files > 0:
		return fmt.Sprintf("the local baseline store %s is tracked by git (%d file(s) committed in the checkout %s): %s", dir, t.Files, t.Root, storeRisk)
	}
	return ""
}

// ChangeRequestRun reports whether b is a run for a pull or merge request
// (GitHub's pull_request* events, GitLab's merge_request_event, or any run
// that names a change request): a run whose checkout the change request
// wrote.
func ChangeRequestRun(b *Build) bool {
	if b == nil {
		return false
	}
	return b.ChangeRequest > 0 || b.ChangeRequestEvent || strings.HasPrefix(b.Event, "pull_request") || b.Event == "merge_request_event"
}

// CheckTrackedStore refuses, on a change request's run (see
// [ChangeRequestRun]), a local baseline store at path (a directory or a
// file) that lies inside the git checkout and is tracked by git, or that git
// could not check: the change request wrote it, and a baseline it can write
// is no baseline. Elsewhere it returns the warning of
// [TrackedStoreWarning] ("" for none) and no error.
func CheckTrackedStore(path string, b *Build, lookPath func(string) (string, error)) (warning string, err error) {
	t := CheckTracked(path, lookPath)
	w := t.warning(path)
	if w == "" || !ChangeRequestRun(b) {
		return w, nil
	}
	switch {
	case t.Err != nil:
		return "", fmt.Errorf("baseline store %s: a %s run cannot use a store inside the checkout %s that git could not check (%v): %s", path, b.Event, t.Root, t.Err, storeFix)
	default:
		return "", fmt.Errorf("baseline store %s: a %s run cannot use a store the change request can commit (%d file(s) tracked by git in the checkout %s): %s", path, b.Event, t.Files, t.Root, storeFix)
	}
}
