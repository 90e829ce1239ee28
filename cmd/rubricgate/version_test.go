package main

import (
	"bytes"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

func TestVersionCommand(t *testing.T) {
	if !regexp.MustCompile(`^\d+\.\d+\.\d+$`).MatchString(Version) {
		t.Fatalf("Version %q is not X.Y.Z", Version)
	}
	for _, arg := range []string{"version", "--version"} {
		var out bytes.Buffer
		code := run([]string{arg}, &env{stdout: &out, stderr: &out, getenv: func(string) string { return "" }})
		// A test binary's build info has no module version: the const.
		if code != exitPass || out.String() != "rubricgate "+Version+"\n" {
			t.Errorf("%s: exit %d, %q", arg, code, out.String())
		}
	}
}

func TestVersionFromBuildInfo(t *testing.T) {
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
		if got := versionFrom(bi, true); got != tc.want {
			t.Errorf("module version %q: %q, want %q", tc.main, got, tc.want)
		}
	}
	if got := versionFrom(nil, false); got != Version {
		t.Errorf("no build info: %q", got)
	}
}

// The action's image is built from the Dockerfile as it stands: the version
// comes from the source, and nothing is fetched but the base images (a
// "# syntax=" line makes BuildKit pull a frontend image on every build).
func TestDockerfile(t *testing.T) {
	data, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"# syntax=", "#syntax=", "ARG VERSION", "main.version"} {
		if strings.Contains(strings.ToLower(string(data)), strings.ToLower(bad)) {
			t.Errorf("Dockerfile contains %q", bad)
		}
	}
}
