package version

import (
	"regexp"
	"runtime/debug"
	"testing"
)

func TestVersionIsSemver(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Fatalf("Version %q is not X.Y.Z", Version)
	}
	// A test binary's build info has no module version: the const.
	if got := String(); got != Version {
		t.Fatalf("String() = %q, want %q", got, Version)
	}
}

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		main string
		want string
	}{
		{"v1.4.2", "1.4.2"}, // go install .../cmd/rubricgate@v1.4.2
		{"v2.0.0-rc.1", "2.0.0-rc.1"},
		{"(devel)", Version}, // built from a checkout
		{"", Version},
		{"v1.0.1-0.20261201120000-abcdef123456", Version},      // a commit after v1.0.0
		{"v0.0.0-20261201120000-abcdef123456+dirty", Version},  // an untagged checkout
		{"v1.2.0-rc.1.0.20261201120000-abcdef123456", Version}, // after a pre-release
		{"v1.0.0+dirty", Version},
	} {
		bi := &debug.BuildInfo{Main: debug.Module{Path: "github.com/rubricgate/rubricgate", Version: tc.main}}
		if got := From(bi, true); got != tc.want {
			t.Errorf("module version %q: %q, want %q", tc.main, got, tc.want)
		}
	}
	if got := From(nil, false); got != Version {
		t.Errorf("no build info: %q", got)
	}
}
