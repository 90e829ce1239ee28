package action

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// workflowFiles are the workflows the project controls: its own and the
// examples users copy.
func workflowFiles(t *testing.T) []string {
	t.Helper()
	var files []string
	for _, dir := range []string{"../.github/workflows", "../examples/workflows"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.yml"))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, m...)
	}
	if len(files) < 3 {
		t.Fatalf("found only %v", files)
	}
	return files
}

var (
	pinnedRef  = regexp.MustCompile(`^[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+@[0-9a-f]{40}$`)
	versionTag = regexp.MustCompile(`^# v[0-9]+\.[0-9]+\.[0-9]+$`)
)

// uses walks a workflow's YAML and calls f on every uses: value, with its
// line comment.
func uses(n *yaml.Node, f func(value, comment string, line int)) {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Value == "uses" && v.Kind == yaml.ScalarNode {
				f(v.Value, v.LineComment, v.Line)
			}
		}
	}
	for _, c := range n.Content {
		uses(c, f)
	}
}

// Every third-party action runs at a full commit SHA, with its version in
// the comment Dependabot updates beside it; one SHA names one version
// everywhere. The examples' own rubricgate/rubricgate@v1 is the exception
// (docs/github-actions.md says why).
func TestWorkflowsPinThirdPartyActionsBySHA(t *testing.T) {
	versionOf := map[string]string{}
	n := 0
	for _, file := range workflowFiles(t) {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var doc yaml.Node
		if err := yaml.Unmarshal(b, &doc); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		uses(&doc, func(value, comment string, line int) {
			if strings.HasPrefix(value, "./") || strings.HasPrefix(value, "rubricgate/rubricgate@") {
				return
			}
			n++
			if !pinnedRef.MatchString(value) {
				t.Errorf("%s:%d: uses: %s is not pinned by a full commit SHA", file, line, value)
				return
			}
			if !versionTag.MatchString(comment) {
				t.Errorf("%s:%d: uses: %s has comment %q, want the version it pins (# vX.Y.Z)", file, line, value, comment)
				return
			}
			if v, seen := versionOf[value]; seen && v != comment {
				t.Errorf("%s:%d: %s is %q here and %q elsewhere", file, line, value, comment, v)
			}
			versionOf[value] = comment
		})
	}
	if n < 10 {
		t.Errorf("only %d third-party uses: found; the walk misses some", n)
	}
}

// Dependabot keeps the pins current in both directories, and the Go modules.
func TestDependabotWatchesThePins(t *testing.T) {
	b, err := os.ReadFile("../.github/dependabot.yml")
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Version int `yaml:"version"`
		Updates []struct {
			Ecosystem   string   `yaml:"package-ecosystem"`
			Directory   string   `yaml:"directory"`
			Directories []string `yaml:"directories"`
		} `yaml:"updates"`
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	dirs := map[string]map[string]bool{}
	for _, u := range cfg.Updates {
		if dirs[u.Ecosystem] == nil {
			dirs[u.Ecosystem] = map[string]bool{}
		}
		for _, d := range append(u.Directories, u.Directory) {
			dirs[u.Ecosystem][d] = true
		}
	}
	if cfg.Version != 2 || !dirs["github-actions"]["/.github/workflows"] || !dirs["github-actions"]["/examples/workflows"] || !dirs["gomod"]["/"] {
		t.Errorf("dependabot.yml: version %d, directories %v", cfg.Version, dirs)
	}
}

type step struct {
	ID   string            `yaml:"id"`
	Name string            `yaml:"name"`
	Uses string            `yaml:"uses"`
	Run  string            `yaml:"run"`
	With map[string]string `yaml:"with"`
}

type workflow struct {
	Jobs map[string]struct {
		Needs       any               `yaml:"needs"`
		Permissions map[string]string `yaml:"permissions"`
		Steps       []step            `yaml:"steps"`
	} `yaml:"jobs"`
}

func releaseWorkflow(t *testing.T) workflow {
	t.Helper()
	b, err := os.ReadFile("../.github/workflows/release.yml")
	if err != nil {
		t.Fatal(err)
	}
	var w workflow
	if err := yaml.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	return w
}

// findStep is the step of job whose name starts with prefix (or whose id is
// prefix).
func (w workflow) findStep(t *testing.T, job, prefix string) step {
	t.Helper()
	for _, s := range w.Jobs[job].Steps {
		if s.ID == prefix || (s.Name != "" && strings.HasPrefix(s.Name, prefix)) {
			return s
		}
	}
	t.Fatalf("release.yml: job %s has no step %q", job, prefix)
	return step{}
}

// No job that can publish builds: GoReleaser runs only in a job without
// write permissions, and the publishing job gets its files from it.
func TestReleasePublishingJobDoesNotRebuild(t *testing.T) {
	w := releaseWorkflow(t)
	publishing := 0
	for name, job := range w.Jobs {
		writes := false
		for _, v := range job.Permissions {
			writes = writes || v == "write"
		}
		if !writes {
			continue
		}
		publishing++
		for _, s := range job.Steps {
			if strings.HasPrefix(s.Uses, "goreleaser/goreleaser-action@") || strings.Contains(s.Run, "goreleaser") || strings.Contains(s.Run, "go build") {
				t.Errorf("job %s can write and builds (%s%s): it must publish the checked archives, not a rebuild", name, s.Uses, s.Name)
			}
		}
	}
	if publishing == 0 {
		t.Fatal("no job with write permissions")
	}
	if s := w.findStep(t, "release", "pins"); !strings.Contains(s.Run, "action/checksums.txt") {
		t.Errorf("the release job's check does not read action/checksums.txt:\n%s", s.Run)
	}
	img := w.findStep(t, "release", "Build and push the image")
	if img.With["context"] != "image" || img.With["file"] != "release.Dockerfile" {
		t.Errorf("the image is not built from the extracted binaries: %v", img.With)
	}
}

// fakeDist writes GoReleaser's output for version into dir: the six
// archives, each holding its binary (whose bytes say which), an SBOM, and
// the checksums file listing them all.
func fakeDist(t *testing.T, dir, version string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var sums []string
	for _, os_ := range []string{"darwin", "linux", "windows"} {
		for _, arch := range []string{"amd64", "arm64"} {
			body := []byte(fmt.Sprintf("rubricgate %s %s/%s\n", version, os_, arch))
			var data []byte
			name := fmt.Sprintf("rubricgate_%s_%s_%s", version, os_, arch)
			if os_ == "windows" {
				name += ".zip"
				var buf bytes.Buffer
				zw := zip.NewWriter(&buf)
				f, err := zw.Create("rubricgate.exe")
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.Write(body); err != nil {
					t.Fatal(err)
				}
				if err := zw.Close(); err != nil {
					t.Fatal(err)
				}
				data = buf.Bytes()
			} else {
				name += ".tar.gz"
				data = tarGz(t, "rubricgate", body)
			}
			write(t, filepath.Join(dir, name), data)
			sums = append(sums, sum(data)+"  "+name)
		}
	}
	sbom := []byte("{}")
	write(t, filepath.Join(dir, "rubricgate_"+version+"_linux_amd64.tar.gz.sbom.json"), sbom)
	sums = append(sums, sum(sbom)+"  rubricgate_"+version+"_linux_amd64.tar.gz.sbom.json")
	sort.Slice(sums, func(i, j int) bool { return sums[i][66:] < sums[j][66:] })
	write(t, filepath.Join(dir, "rubricgate_"+version+"_checksums.txt"), []byte(strings.Join(sums, "\n")+"\n"))
}

func write(t *testing.T, p string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// runStep runs a step's script with bash -e in dir, as the runner does.
func runStep(t *testing.T, dir string, s step, env ...string) (string, error) {
	t.Helper()
	script := filepath.Join(t.TempDir(), "step.sh")
	write(t, script, []byte(s.Run))
	cmd := exec.Command("bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// releaseRig is a checkout of the tag (action/checksums.txt pinned from a
// fake GoReleaser build by scripts/release/table.sh, as pin.sh does) and the
// runner files a step writes.
type releaseRig struct {
	dir, version, runner string
	env                  []string
}

func newReleaseRig(t *testing.T) *releaseRig {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the release jobs run on ubuntu-latest (GNU tools)")
	}
	for _, tool := range []string{"bash", "tar", "unzip", "sha256sum", "awk"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("needs %s: %v", tool, err)
		}
	}
	r := &releaseRig{dir: t.TempDir(), version: "1.2.3"}
	fakeDist(t, filepath.Join(r.dir, "dist"), r.version)
	table, err := exec.Command("bash", "../scripts/release/table.sh", r.version, filepath.Join(r.dir, "dist", "rubricgate_"+r.version+"_checksums.txt")).Output()
	if err != nil {
		t.Fatalf("table.sh: %v", err)
	}
	write(t, filepath.Join(r.dir, "action", "checksums.txt"), table)
	script, err := os.ReadFile("../scripts/release/table.sh")
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(r.dir, "scripts", "release", "table.sh"), script)
	if err := os.Chmod(filepath.Join(r.dir, "scripts", "release", "table.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	runner := t.TempDir()
	r.runner = runner
	r.env = []string{
		"GITHUB_REF_NAME=v" + r.version,
		"VERSION=" + r.version,
		"RUNNER_TEMP=" + runner,
		"GITHUB_ENV=" + filepath.Join(runner, "env"),
		"GITHUB_OUTPUT=" + filepath.Join(runner, "output"),
	}
	return r
}

// The table pins each archive and the binary in it, and nothing else.
func TestTablePinsArchivesAndTheirBinaries(t *testing.T) {
	r := newReleaseRig(t)
	b, err := os.ReadFile(filepath.Join(r.dir, "action", "checksums.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && !strings.HasPrefix(line, "#") {
			names = append(names, f[1])
			if f[1] == "rubricgate_1.2.3_linux_arm64.tar.gz/rubricgate" && f[0] != sum([]byte("rubricgate 1.2.3 linux/arm64\n")) {
				t.Errorf("the linux/arm64 binary's pin %s is not its sum", f[0])
			}
		}
	}
	want := []string{}
	for _, p := range []string{"darwin_amd64.tar.gz", "darwin_arm64.tar.gz", "linux_amd64.tar.gz", "linux_arm64.tar.gz", "windows_amd64.zip", "windows_arm64.zip"} {
		exe := "rubricgate"
		if strings.HasPrefix(p, "windows") {
			exe = "rubricgate.exe"
		}
		want = append(want, "rubricgate_1.2.3_"+p, "rubricgate_1.2.3_"+p+"/"+exe)
	}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("the table names\n%v\nwant\n%v", names, want)
	}
}

// The build job hands on exactly the pinned archives, and stops when the
// build differs from the pins.
func TestReleaseBuildJobChecksAndKeepsOnlyThePinned(t *testing.T) {
	w := releaseWorkflow(t)
	compare, keep := w.findStep(t, "build", "Compare with action/checksums.txt"), w.findStep(t, "build", "Keep the checked archives")

	r := newReleaseRig(t)
	if out, err := runStep(t, r.dir, compare, r.env...); err != nil {
		t.Fatalf("the build that was pinned is refused: %v\n%s", err, out)
	}
	if out, err := runStep(t, r.dir, keep, r.env...); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	entries, err := os.ReadDir(filepath.Join(r.dir, "release"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, e := range entries {
		kept = append(kept, e.Name())
	}
	if len(kept) != 6 || strings.Contains(strings.Join(kept, " "), "sbom") || strings.Contains(strings.Join(kept, " "), "checksums") {
		t.Errorf("the build job hands on %v, want the six archives", kept)
	}

	// A build whose linux/amd64 binary differs from the pinned one.
	r = newReleaseRig(t)
	other := tarGz(t, "rubricgate", []byte("another build\n"))
	write(t, filepath.Join(r.dir, "dist", "rubricgate_1.2.3_linux_amd64.tar.gz"), other)
	sums, _ := os.ReadFile(filepath.Join(r.dir, "dist", "rubricgate_1.2.3_checksums.txt"))
	fixed := regexp.MustCompile(`(?m)^[0-9a-f]{64}(  rubricgate_1\.2\.3_linux_amd64\.tar\.gz)$`).ReplaceAll(sums, []byte(sum(other)+"$1"))
	write(t, filepath.Join(r.dir, "dist", "rubricgate_1.2.3_checksums.txt"), fixed)
	if out, err := runStep(t, r.dir, compare, r.env...); err == nil || !strings.Contains(out, "does not have the sums pinned") {
		t.Errorf("a build other than the pinned one passes: %v\n%s", err, out)
	}
}

// The publishing job checks what it got against its own checkout's pins
// before anything is published, and extracts the image's binaries.
func TestReleaseJobChecksTheArtifactAgainstThePins(t *testing.T) {
	w := releaseWorkflow(t)
	check := w.findStep(t, "release", "pins")
	setup := func(t *testing.T) *releaseRig {
		r := newReleaseRig(t)
		keep := w.findStep(t, "build", "Keep the checked archives")
		if out, err := runStep(t, r.dir, keep, r.env...); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return r
	}

	t.Run("the pinned archives", func(t *testing.T) {
		r := setup(t)
		out, err := runStep(t, r.dir, check, r.env...)
		if err != nil {
			t.Fatalf("the pinned archives are refused: %v\n%s", err, out)
		}
		for _, arch := range []string{"amd64", "arm64"} {
			b, err := os.ReadFile(filepath.Join(r.dir, "image", "linux", arch, "rubricgate"))
			if err != nil || string(b) != "rubricgate 1.2.3 linux/"+arch+"\n" {
				t.Errorf("image/linux/%s/rubricgate: %q, %v", arch, b, err)
			}
		}
		sums, err := os.ReadFile(filepath.Join(r.dir, "release", "rubricgate_1.2.3_checksums.txt"))
		if err != nil || strings.Count(string(sums), "\n") != 6 {
			t.Errorf("the published checksums file: %q, %v", sums, err)
		}
		outputs, _ := os.ReadFile(filepath.Join(r.runner, "output"))
		for _, tag := range []string{":1.2.3\n", ":1.2\n", ":1\n"} {
			if !strings.Contains(string(outputs), "ghcr.io/rubricgate/rubricgate"+tag) {
				t.Errorf("no image tag %q in %q", tag, outputs)
			}
		}
	})
	for _, c := range []struct {
		name   string
		tamper func(t *testing.T, r *releaseRig)
	}{
		{"a swapped archive", func(t *testing.T, r *releaseRig) {
			b, err := os.ReadFile(filepath.Join(r.dir, "release", "rubricgate_1.2.3_linux_arm64.tar.gz"))
			if err != nil {
				t.Fatal(err)
			}
			write(t, filepath.Join(r.dir, "release", "rubricgate_1.2.3_linux_amd64.tar.gz"), b)
		}},
		{"an extra file", func(t *testing.T, r *releaseRig) {
			write(t, filepath.Join(r.dir, "release", "install.sh"), []byte("#!/bin/sh\n"))
		}},
		{"a missing archive", func(t *testing.T, r *releaseRig) {
			if err := os.Remove(filepath.Join(r.dir, "release", "rubricgate_1.2.3_windows_arm64.zip")); err != nil {
				t.Fatal(err)
			}
		}},
		{"a binary pin the archive does not match", func(t *testing.T, r *releaseRig) {
			p := filepath.Join(r.dir, "action", "checksums.txt")
			b, _ := os.ReadFile(p)
			re := regexp.MustCompile(`(?m)^[0-9a-f]{64}(  rubricgate_1\.2\.3_linux_amd64\.tar\.gz/rubricgate)$`)
			write(t, p, re.ReplaceAll(b, []byte(sum([]byte("x"))+"$1")))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := setup(t)
			c.tamper(t, r)
			if out, err := runStep(t, r.dir, check, r.env...); err == nil {
				t.Errorf("the release job accepts %s\n%s", c.name, out)
			}
		})
	}
}
