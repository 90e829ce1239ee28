package action

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync/atomic"
	"testing"
)

// rig is one runner for install.sh: the action's files (install.sh, the
// version, a checksum table), a release server on 127.0.0.1, RUNNER_TEMP
// and a tool cache, all under a temporary directory.
type rig struct {
	t         *testing.T
	root      string
	actionDir string
	temp      string
	toolCache string
	version   string
	archive   string // the linux/amd64 archive's name
	good      []byte // the release binary (a script that prints the version)
	served    []byte // the archive the server serves
	table     string // action/checksums.txt
	requests  atomic.Int32
	pwned     string // a planted binary touches this file when it runs
	env       map[string]string
}

func sum(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:]) }

func tarGz(t *testing.T, name string, body []byte) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
		t.Fatal(err)
	}
	if _, err := tw.Write(body); err != nil {
		t.Fatal(err)
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func newRig(t *testing.T) *rig {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("install.sh's owner and mode checks are POSIX; the Windows runner is covered by ci.yml's action job")
	}
	for _, tool := range []string{"bash", "curl", "tar"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("install.sh needs %s: %v", tool, err)
		}
	}
	src, err := os.ReadFile("../internal/version/version.go")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const Version = "(.*)"$`).FindSubmatch(src)
	if m == nil {
		t.Fatal("no const Version in internal/version/version.go")
	}
	script, err := os.ReadFile("install.sh")
	if err != nil {
		t.Fatal(err)
	}
	r := &rig{t: t, root: t.TempDir(), version: string(m[1])}
	r.actionDir = filepath.Join(r.root, "action-src")
	r.temp = filepath.Join(r.root, "runner-temp")
	r.toolCache = filepath.Join(r.root, "tool-cache")
	r.pwned = filepath.Join(r.root, "PWNED")
	for path, body := range map[string][]byte{
		"action/install.sh":           script,
		"internal/version/version.go": src,
	} {
		p := filepath.Join(r.actionDir, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{r.temp, r.toolCache} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(d, 0o755); err != nil { // whatever the umask
			t.Fatal(err)
		}
	}
	r.archive = "rubricgate_" + r.version + "_linux_amd64.tar.gz"
	r.good = []byte("#!/bin/sh\necho \"rubricgate " + r.version + " (the pinned build)\"\n")
	r.served = tarGz(t, "rubricgate", r.good)
	r.table = "# test pins\n" + sum(r.served) + "  " + r.archive + "\n" + sum(r.good) + "  " + r.archive + "/rubricgate\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.URL.Path != "/"+r.archive {
			http.NotFound(w, req)
			return
		}
		r.requests.Add(1)
		_, _ = w.Write(r.served)
	}))
	t.Cleanup(srv.Close)
	r.env = map[string]string{
		"PATH":                    os.Getenv("PATH"),
		"HOME":                    r.root,
		"GITHUB_ACTION_PATH":      r.actionDir,
		"GITHUB_OUTPUT":           filepath.Join(r.root, "github-output"),
		"RUNNER_TEMP":             r.temp,
		"RUNNER_TOOL_CACHE":       r.toolCache,
		"RUNNER_OS":               "Linux",
		"RUNNER_ARCH":             "X64",
		"RUBRICGATE_ACTION_REF":   "v" + strings.SplitN(r.version, ".", 2)[0],
		"RUBRICGATE_DOWNLOAD_URL": srv.URL,
	}
	return r
}

// result is one run of install.sh.
type result struct {
	out  string // stdout and stderr
	err  error
	path string // path= in GITHUB_OUTPUT, "" when none
}

// run runs install.sh with the rig's environment changed by set (a value ""
// unsets the variable).
func (r *rig) run(set map[string]string) result {
	r.t.Helper()
	if err := os.WriteFile(filepath.Join(r.actionDir, "action", "checksums.txt"), []byte(r.table), 0o644); err != nil {
		r.t.Fatal(err)
	}
	_ = os.Remove(r.env["GITHUB_OUTPUT"])
	env := map[string]string{}
	for k, v := range r.env {
		env[k] = v
	}
	for k, v := range set {
		env[k] = v
	}
	var list []string
	for k, v := range env {
		if v != "" {
			list = append(list, k+"="+v)
		}
	}
	sort.Strings(list)
	cmd := exec.Command("bash", filepath.Join(r.actionDir, "action", "install.sh"))
	cmd.Env = list
	cmd.Dir = r.root
	out, err := cmd.CombinedOutput()
	res := result{out: string(out), err: err}
	if b, rerr := os.ReadFile(env["GITHUB_OUTPUT"]); rerr == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if p, ok := strings.CutPrefix(line, "path="); ok {
				res.path = p
			}
		}
	}
	return res
}

// cacheDir is rubricgate's directory for linux/amd64 in the tool cache.
func (r *rig) cacheDir() string {
	return filepath.Join(r.toolCache, "rubricgate", r.version, "x64")
}

// plant puts a binary that touches r.pwned in the tool cache, beside the
// marker file the installer used to trust (its content is public: the
// pinned sum and the archive's name).
func (r *rig) plant(dir string) {
	r.t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		r.t.Fatal(err)
	}
	evil := "#!/bin/sh\ntouch '" + r.pwned + "'\necho \"rubricgate " + r.version + "\"\n"
	if err := os.WriteFile(filepath.Join(dir, "rubricgate"), []byte(evil), 0o755); err != nil {
		r.t.Fatal(err)
	}
	marker := sum(r.served) + "  " + r.archive + "\n"
	if err := os.WriteFile(dir+".complete", []byte(marker), 0o644); err != nil {
		r.t.Fatal(err)
	}
}

// verified checks that res installed the pinned binary: a copy with the
// pinned bytes in a directory of RUNNER_TEMP only this user can enter, and
// that nothing planted ran.
func (r *rig) verified(res result) {
	r.t.Helper()
	if res.err != nil {
		r.t.Fatalf("install.sh failed: %v\n%s", res.err, res.out)
	}
	if _, err := os.Stat(r.pwned); err == nil {
		r.t.Fatalf("the planted binary ran\n%s", res.out)
	}
	if res.path == "" {
		r.t.Fatalf("no path= in GITHUB_OUTPUT\n%s", res.out)
	}
	if !strings.HasPrefix(res.path, r.temp+string(filepath.Separator)) {
		r.t.Errorf("path=%s is not under RUNNER_TEMP (%s): the gate step would run a file another job can replace", res.path, r.temp)
	}
	b, err := os.ReadFile(res.path)
	if err != nil {
		r.t.Fatal(err)
	}
	if !bytes.Equal(b, r.good) {
		r.t.Errorf("path=%s holds %q, not the pinned binary", res.path, b)
	}
	fi, err := os.Stat(filepath.Dir(res.path))
	if err != nil {
		r.t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o700 {
		r.t.Errorf("%s has mode %v, want 0700 (only this user)", filepath.Dir(res.path), fi.Mode().Perm())
	}
	if !strings.Contains(res.out, "rubricgate "+r.version+" (the pinned build)") {
		r.t.Errorf("the install did not run the pinned binary's version\n%s", res.out)
	}
}

func (r *rig) wantOut(res result, wants ...string) {
	r.t.Helper()
	for _, w := range wants {
		if !strings.Contains(res.out, w) {
			r.t.Errorf("output lacks %q\n%s", w, res.out)
		}
	}
}

func TestInstallDownloadsVerifiesAndCaches(t *testing.T) {
	r := newRig(t)
	first := r.run(nil)
	r.verified(first)
	r.wantOut(first, "verified "+r.archive+": sha256 "+sum(r.served), "verified "+r.archive+"/rubricgate: sha256 "+sum(r.good), "installed in the tool cache")
	if b, err := os.ReadFile(filepath.Join(r.cacheDir(), "rubricgate")); err != nil || !bytes.Equal(b, r.good) {
		t.Errorf("the tool cache does not hold the pinned binary: %q, %v", b, err)
	}
	second := r.run(nil)
	r.verified(second)
	r.wantOut(second, "from the tool cache")
	if n := r.requests.Load(); n != 1 {
		t.Errorf("%d downloads for two runs, want 1 (the second from the tool cache)", n)
	}
	if first.path == second.path {
		t.Errorf("both runs hand the gate %s: each run needs its own verified copy", first.path)
	}
}

// The review's case: a binary planted in the tool cache with the marker
// file the installer trusted (its content is public) must not run.
func TestInstallNeverRunsAPlantedCachedBinary(t *testing.T) {
	r := newRig(t)
	r.plant(r.cacheDir())
	res := r.run(nil)
	r.verified(res)
	r.wantOut(res, "::warning", "not the "+sum(r.good)+" the action pins", "downloading")
	if b, _ := os.ReadFile(filepath.Join(r.cacheDir(), "rubricgate")); !bytes.Equal(b, r.good) {
		t.Errorf("the planted binary is still in the tool cache: %q", b)
	}
}

// A planted binary with the right sum's name cannot pass the check by being
// changed after it: what runs is the copy that was hashed. So is one whose
// directory another user can write: it is not even read.
func TestInstallRefusesACacheOthersCanWrite(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(r *rig)
		want  string
	}{
		{"group-writable version directory", func(r *rig) {
			r.plant(r.cacheDir())
			chmod(t, filepath.Dir(r.cacheDir()), 0o775)
		}, "is writable by its group or by other users (mode 775)"},
		{"world-writable binary", func(r *rig) {
			r.plant(r.cacheDir())
			chmod(t, filepath.Join(r.cacheDir(), "rubricgate"), 0o757)
		}, "is writable by its group or by other users (mode 757)"},
		{"symbolic link to another directory", func(r *rig) {
			other := filepath.Join(r.root, "elsewhere")
			r.plant(other)
			if err := os.MkdirAll(filepath.Dir(r.cacheDir()), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink(other, r.cacheDir()); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(other+".complete", r.cacheDir()+".complete"); err != nil {
				t.Fatal(err)
			}
		}, "is a symbolic link"},
		{"another user's directory", func(r *rig) {
			if os.Geteuid() != 0 {
				t.Skip("making a directory another user owns needs root")
			}
			r.plant(r.cacheDir())
			for _, p := range []string{filepath.Join(r.toolCache, "rubricgate"), filepath.Dir(r.cacheDir()), r.cacheDir(), filepath.Join(r.cacheDir(), "rubricgate")} {
				if err := os.Lchown(p, 65534, 65534); err != nil {
					t.Fatal(err)
				}
			}
		}, "is owned by uid 65534"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			c.setup(r)
			res := r.run(nil)
			r.verified(res)
			r.wantOut(res, "::warning", c.want, "Not reading or writing the cache", "downloading")
			if strings.Contains(res.out, "installed in the tool cache") {
				t.Errorf("it wrote a cache another user can write\n%s", res.out)
			}
		})
	}
}

func chmod(t *testing.T, p string, mode os.FileMode) {
	t.Helper()
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

// GitHub's hosted Ubuntu runners make the tool cache 0777: the action works
// there, downloading in every step, without a warning.
func TestInstallDoesNotCacheInAWorldWritableToolCache(t *testing.T) {
	r := newRig(t)
	chmod(t, r.toolCache, 0o777)
	for range 2 {
		res := r.run(nil)
		r.verified(res)
		r.wantOut(res, "not caching in the tool cache: "+r.toolCache+" is writable by its group or by other users (mode 777)")
		if strings.Contains(res.out, "::warning") {
			t.Errorf("a warning on every hosted runner\n%s", res.out)
		}
	}
	if n := r.requests.Load(); n != 2 {
		t.Errorf("%d downloads for two runs, want 2", n)
	}
	if _, err := os.Stat(filepath.Join(r.toolCache, "rubricgate")); err == nil {
		t.Error("it wrote into a world-writable tool cache")
	}
}

// No tool cache: nothing is cached anywhere (the installer used to cache in
// a fixed directory of RUNNER_TEMP, else of /tmp).
func TestInstallWithoutToolCacheCachesNothing(t *testing.T) {
	r := newRig(t)
	for range 2 {
		res := r.run(map[string]string{"RUNNER_TOOL_CACHE": ""})
		r.verified(res)
		r.wantOut(res, "RUNNER_TOOL_CACHE is not set: not caching")
	}
	if n := r.requests.Load(); n != 2 {
		t.Errorf("%d downloads for two runs without a tool cache, want 2", n)
	}
	entries, err := os.ReadDir(r.temp)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "rubricgate-bin.") {
			t.Errorf("RUNNER_TEMP holds %s after the install: only the private copies belong there", e.Name())
		}
	}
}

func TestInstallRefuses(t *testing.T) {
	for _, c := range []struct {
		name  string
		setup func(r *rig)
		env   map[string]string
		want  string
	}{
		{"no RUNNER_TEMP (no fallback to /tmp)", nil, map[string]string{"RUNNER_TEMP": ""}, "RUNNER_TEMP is not set"},
		{"a RUNNER_TEMP others can write", func(r *rig) { chmod(t, r.temp, 0o777) }, nil, "RUNNER_TEMP: " + "%TEMP% is writable by its group or by other users (mode 777)"},
		{"an owner and mode it cannot read (fails closed)", func(r *rig) {
			fake := filepath.Join(r.root, "fakebin")
			if err := os.Mkdir(fake, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(fake, "stat"), []byte("#!/bin/sh\necho '0 rwxr-xr-x'\n"), 0o755); err != nil {
				t.Fatal(err)
			}
			r.env["PATH"] = fake + string(os.PathListSeparator) + r.env["PATH"]
		}, nil, "RUNNER_TEMP: cannot read the owner and mode of %TEMP% (0 rwxr-xr-x)"},
		{"no pin for the binary", func(r *rig) {
			r.table = sum(r.served) + "  " + r.archive + "\n"
		}, nil, "no single pinned SHA-256 for %ARCHIVE%/rubricgate"},
		{"an archive whose binary is not the pinned one", func(r *rig) {
			r.served = tarGz(t, "rubricgate", []byte("#!/bin/sh\ntouch '"+r.pwned+"'\n"))
			r.table = sum(r.served) + "  " + r.archive + "\n" + sum(r.good) + "  " + r.archive + "/rubricgate\n"
		}, nil, "holds a rubricgate whose SHA-256 is"},
		{"an archive that is not the pinned one", func(r *rig) {
			r.served = tarGz(t, "rubricgate", []byte("#!/bin/sh\ntouch '"+r.pwned+"'\n"))
		}, nil, "checksum mismatch for %ARCHIVE%"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := newRig(t)
			if c.setup != nil {
				c.setup(r)
			}
			res := r.run(c.env)
			want := strings.NewReplacer("%TEMP%", r.temp, "%ARCHIVE%", r.archive).Replace(c.want)
			if res.err == nil || !strings.Contains(res.out, want) || !strings.Contains(res.out, "::error") {
				t.Errorf("want an ::error with %q, got %v\n%s", want, res.err, res.out)
			}
			if res.path != "" {
				t.Errorf("path=%s written after a refusal", res.path)
			}
			if _, err := os.Stat(r.pwned); err == nil {
				t.Errorf("an unverified binary ran\n%s", res.out)
			}
			if _, err := os.Stat(filepath.Join(r.cacheDir(), "rubricgate")); err == nil {
				t.Errorf("a refused install left a binary in the tool cache")
			}
		})
	}
}
