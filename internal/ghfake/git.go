package ghfake

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
)

// Routes of the repository's git data (see SetBranch).
const (
	RouteBranch  = "branch"  // GET /repos/o/r/branches/{branch}
	RouteCompare = "compare" // GET /repos/o/r/compare/{base}...{head}
)

// SetBranch sets a branch's history: its commits oldest first, the last
// one its head (a linear history; commits may be shared with other
// branches, as a branch made from another shares its start). Without a
// SetBranch for a branch, its history is derived from the push runs whose
// head_branch names it and that are not tag pushes (see Run.Tag), oldest
// first: every such run's commit was on the branch when it ran.
func (s *Server) SetBranch(name string, commits ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.branches == nil {
		s.branches = map[string][]string{}
	}
	s.branches[name] = append([]string(nil), commits...)
}

// history returns each branch's commits, oldest first.
func (s *Server) history() map[string][]string {
	runs := s.allRuns()
	s.mu.Lock()
	defer s.mu.Unlock()
	out := map[string][]string{}
	for b, cs := range s.branches {
		out[b] = cs
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if !runs[i].CreatedAt.Equal(runs[j].CreatedAt) {
			return runs[i].CreatedAt.Before(runs[j].CreatedAt)
		}
		return runs[i].ID < runs[j].ID
	})
	derived := map[string][]string{}
	for _, r := range runs {
		if r.Event != "push" || r.Tag || r.HeadBranch == "" || r.HeadSHA == "" || s.branches[r.HeadBranch] != nil {
			continue
		}
		cs := derived[r.HeadBranch]
		if len(cs) == 0 || cs[len(cs)-1] != r.HeadSHA {
			derived[r.HeadBranch] = append(cs, r.HeadSHA)
		}
	}
	for b, cs := range derived {
		out[b] = cs
	}
	return out
}

// ancestors returns the commits reachable from sha (itself included) and
// whether the repository knows it.
func ancestors(hist map[string][]string, sha string) (map[string]int, bool) {
	anc := map[string]int{}
	known := false
	for _, cs := range hist {
		for i, c := range cs {
			if c != sha {
				continue
			}
			known = true
			for j := i; j >= 0; j-- {
				d := i - j
				if old, ok := anc[cs[j]]; !ok || d < old {
					anc[cs[j]] = d
				}
			}
		}
	}
	return anc, known
}

// branch serves GET /repos/o/r/branches/{branch}: the branch's name and
// head commit, 404 "Branch not found" for an unknown one.
func (s *Server) branch(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("branch")
	cs := s.history()[name]
	if len(cs) == 0 {
		apiError(w, http.StatusNotFound, "Branch not found", "https://docs.github.com/rest/branches/branches#get-a-branch")
		return
	}
	head := cs[len(cs)-1]
	api := fmt.Sprintf("%s%s/repos/%s/%s", s.API.URL, Prefix, s.Owner, s.Repo)
	writeJSON(w, http.StatusOK, map[string]any{
		"name":      name,
		"commit":    map[string]any{"sha": head, "url": api + "/commits/" + head},
		"protected": false,
		"_links":    map[string]any{"self": api + "/branches/" + name, "html": "https://github.com/" + s.Owner + "/" + s.Repo + "/tree/" + name},
	})
}

// compare serves GET /repos/o/r/compare/{base}...{head} (commit shas or
// branch names): status "identical", "behind" (head is an ancestor of
// base), "ahead" (base an ancestor of head) or "diverged", with ahead_by,
// behind_by, the merge base and the commits head has beyond it; 404 "Not
// Found" when either side is unknown or they share no history.
func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	const doc = "https://docs.github.com/rest/commits/commits#compare-two-commits"
	base, head, ok := strings.Cut(r.PathValue("basehead"), "...")
	if !ok {
		apiError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	hist := s.history()
	resolve := func(x string) string {
		if cs := hist[x]; len(cs) > 0 {
			return cs[len(cs)-1]
		}
		return x
	}
	base, head = resolve(base), resolve(head)
	ba, okB := ancestors(hist, base)
	ha, okH := ancestors(hist, head)
	if !okB || !okH {
		apiError(w, http.StatusNotFound, "Not Found", doc)
		return
	}
	// The merge base: the common ancestor nearest to head.
	mb, best := "", -1
	for c, d := range ha {
		if _, ok := ba[c]; ok && (best < 0 || d < best) {
			mb, best = c, d
		}
	}
	if mb == "" {
		apiError(w, http.StatusNotFound, "No common ancestor between "+base+" and "+head+".", doc)
		return
	}
	ahead, behind := ha[mb], ba[mb]
	status := "diverged"
	switch {
	case ahead == 0 && behind == 0:
		status = "identical"
	case ahead == 0:
		status = "behind"
	case behind == 0:
		status = "ahead"
	}
	api := fmt.Sprintf("%s%s/repos/%s/%s", s.API.URL, Prefix, s.Owner, s.Repo)
	commit := func(sha string) map[string]any {
		return map[string]any{"sha": sha, "url": api + "/commits/" + sha, "commit": map[string]any{"message": "commit " + sha}}
	}
	var commits []map[string]any
	for c := range ha {
		if _, shared := ba[c]; !shared {
			commits = append(commits, commit(c))
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"url":               api + "/compare/" + base + "..." + head,
		"html_url":          "https://github.com/" + s.Owner + "/" + s.Repo + "/compare/" + base + "..." + head,
		"base_commit":       commit(base),
		"merge_base_commit": commit(mb),
		"status":            status,
		"ahead_by":          ahead,
		"behind_by":         behind,
		"total_commits":     ahead,
		"commits":           commits,
		"files":             []any{},
	})
}
