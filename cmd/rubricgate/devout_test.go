//go:build unix

package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 15 §8: outputs to a FIFO and to a character device are written in
// place (score --json as scripts/bench.sh gives /dev/null, gate --markdown,
// score --items streamed), and the FIFO and the device stay what they were:
// the rename used to replace them with regular files, as root /dev/null
// itself. The device is a null device made in a temp dir (mknod needs
// root); the system's /dev/null is only looked at.
func TestOutputsToFIFOAndDevice(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	read := func() <-chan string {
		got := make(chan string, 1)
		go func() {
			f, err := os.Open(fifo)
			if err != nil {
				got <- err.Error()
				return
			}
			defer f.Close()
			data, _ := io.ReadAll(f)
			got <- string(data)
		}()
		return got
	}
	wait := func(what string, got <-chan string) string {
		t.Helper()
		select {
		case s := <-got:
			return s
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: nothing came through the FIFO", what)
			return ""
		}
	}
	isFIFO := func(what string) {
		t.Helper()
		if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
			t.Fatalf("%s: the FIFO is now %v (%v)", what, fi.Mode(), err)
		}
	}
	got := read()
	code, out, errs := cli(t, "score", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--json", fifo)
	if code != exitPass {
		t.Fatalf("score --json FIFO: exit %d\n%s%s", code, out, errs)
	}
	if s := wait("score --json", got); !strings.Contains(s, `"score"`) {
		t.Errorf("score --json FIFO got %q", s)
	}
	isFIFO("score --json")
	got = read()
	if code, out, errs := cli(t, "score", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--items", fifo); code != exitPass {
		t.Fatalf("score --items FIFO: exit %d\n%s%s", code, out, errs)
	}
	if s := wait("score --items", got); strings.Count(s, "\n") != 12 {
		t.Errorf("score --items FIFO got %q", s)
	}
	isFIFO("score --items")

	if fi, err := os.Stat("/dev/null"); err == nil && fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is not a character device here (%v): an earlier run replaced it", fi.Mode())
	}
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	store := filepath.Join(dir, "store")
	code, out, errs = cli(t, "gate", "--rubric", supportRubric, "--results", "../../examples/support/run.jsonl", "--baseline-dir", store, "--branch", "main",
		"--json", dev, "--markdown", dev, "--write-baseline", dev)
	if code != exitPass {
		t.Fatalf("gate to a device: exit %d\n%s%s", code, out, errs)
	}
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device is now %v (%v)", fi.Mode(), err)
	}
	// The local store's baseline, a regular file, was still renamed into place.
	if _, err := os.Stat(filepath.Join(store, "support-answers", "main.json")); err != nil {
		t.Errorf("baseline not saved: %v", err)
	}
}
