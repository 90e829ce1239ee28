package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	buildversion "github.com/rubricgate/rubricgate/internal/version"
)

func TestVersionCommand(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var out bytes.Buffer
		code := run([]string{arg}, &env{stdout: &out, stderr: &out, getenv: func(string) string { return "" }})
		// A test binary's build info has no module version: the const.
		if code != exitPass || out.String() != "rubricgate "+buildversion.Version+"\n" {
			t.Errorf("%s: exit %d, %q", arg, code, out.String())
		}
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
