package pipeline

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// TrackedStoreWarning returns a warning when dir, a local baseline store,
// lies inside a git checkout and git tracks files under it: the store is then
// part of what a pull request commits, and a pull request could edit the
// baseline it is compared with. It returns "" when dir is not inside a
// checkout or nothing under it is tracked. lookPath finds the git binary
// (exec.LookPath); without git the warning says the store could not be
// checked.
func TrackedStoreWarning(dir string, lookPath func(string) (string, error)) string {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	root := ""
	for d := abs; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
	const risk = "a pull request can edit the baselines it is compared with; keep the store out of git (.gitignore) or use the artifact store"
	git, err := lookPath("git")
	if err != nil {
		return fmt.Sprintf("the local baseline store %s is inside the git checkout %s and git is not available to check whether it is committed: if it is, %s", dir, root, risk)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return ""
	}
	cmd := exec.Command(git, "-C", root, "ls-files", "-z", "--", rel)
	out, err := cmd.Output()
	if err != nil {
		return fmt.Sprintf("the local baseline store %s is inside the git checkout %s and git could not tell whether it is committed (%v): if it is, %s", dir, root, err, risk)
	}
	if files := strings.Count(string(out), "\x00"); files > 0 {
		return fmt.Sprintf("the local baseline store %s is tracked by git (%d file(s) committed in the checkout %s): %s", dir, files, root, risk)
	}
	return ""
}
