package ghfake

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"
)

// The compare endpoint answers like GitHub's: base...head is identical,
// behind (head an ancestor of base), ahead or diverged, with ahead_by and
// behind_by; an unknown commit is 404. Branches derive from push runs that
// are not tag pushes, and a branch with slashes is found escaped or not.
func TestBranchesAndCompare(t *testing.T) {
	s := New(t, "o", "r", 7)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s.AddRuns(Run{ID: 1, Event: "push", HeadBranch: "main", HeadSHA: "a1", CreatedAt: at},
		Run{ID: 2, Event: "push", HeadBranch: "main", HeadSHA: "a2", CreatedAt: at.Add(time.Hour)},
		Run{ID: 3, Event: "push", HeadBranch: "main", HeadSHA: "t1", Tag: true, CreatedAt: at.Add(2 * time.Hour)})
	s.SetBranch("feature/x", "a1", "f1")
	get := func(path string, v any) int {
		t.Helper()
		resp, err := http.Get(s.BaseURL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		if v != nil && resp.StatusCode == 200 {
			if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
				t.Fatal(err)
			}
		}
		return resp.StatusCode
	}
	var b struct {
		Name   string `json:"name"`
		Commit struct {
			SHA string `json:"sha"`
		} `json:"commit"`
	}
	if code := get("repos/o/r/branches/main", &b); code != 200 || b.Commit.SHA != "a2" {
		t.Errorf("main: %d %+v, want head a2 (the tag push is not on it)", code, b)
	}
	for _, p := range []string{"repos/o/r/branches/feature/x", "repos/o/r/branches/feature%2Fx"} {
		if code := get(p, &b); code != 200 || b.Commit.SHA != "f1" || b.Name != "feature/x" {
			t.Errorf("%s: %d %+v", p, code, b)
		}
	}
	if code := get("repos/o/r/branches/nope", nil); code != 404 {
		t.Errorf("unknown branch: %d", code)
	}
	for _, tt := range []struct {
		basehead, status string
		ahead, behind    int
	}{
		{"a2...a2", "identical", 0, 0},
		{"a2...a1", "behind", 0, 1},
		{"main...a1", "behind", 0, 1},
		{"a1...a2", "ahead", 1, 0},
		{"a2...f1", "diverged", 1, 1},
	} {
		var c struct {
			Status   string `json:"status"`
			AheadBy  int    `json:"ahead_by"`
			BehindBy int    `json:"behind_by"`
		}
		if code := get("repos/o/r/compare/"+tt.basehead, &c); code != 200 || c.Status != tt.status || c.AheadBy != tt.ahead || c.BehindBy != tt.behind {
			t.Errorf("%s: %d %+v, want %s ahead %d behind %d", tt.basehead, code, c, tt.status, tt.ahead, tt.behind)
		}
	}
	if code := get("repos/o/r/compare/a2...t9", nil); code != 404 {
		t.Errorf("unknown commit: %d, want 404", code)
	}
}
