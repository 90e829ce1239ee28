package main

import (
	"os"
	"strings"
	"testing"
)

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
