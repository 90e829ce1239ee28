//go:build unix

package stage

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// readFIFO reads everything written to the FIFO at p, in the background.
func readFIFO(t *testing.T, p string) <-chan string {
	t.Helper()
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(p) // blocks until the writer opens it
		if err != nil {
			got <- "open: " + err.Error()
			return
		}
		defer f.Close()
		data, _ := io.ReadAll(f)
		got <- string(data)
	}()
	return got
}

// received waits for what the FIFO's reader got; a destination renamed
// over leaves the reader waiting, reported as a failure, not a hang.
func received(t *testing.T, got <-chan string) string {
	t.Helper()
	select {
	case s := <-got:
		return s
	case <-time.After(10 * time.Second):
		t.Fatal("nothing was written to the FIFO (replaced by a file?)")
		return ""
	}
}

// Issue 15 §8: a FIFO destination is written in place, after the renames,
// and stays a FIFO (it used to be replaced by a regular file); the regular
// files of the set are still renamed into place.
func TestFIFOWrittenInPlace(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	reg := filepath.Join(dir, "report.json")
	got := readFIFO(t, fifo)
	if err := WriteAll(io.Discard, []Output{{fifo, text("through the pipe")}, {reg, text("a file")}}); err != nil {
		t.Fatal(err)
	}
	if s := received(t, got); s != "through the pipe" {
		t.Errorf("the reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
	if data, err := os.ReadFile(reg); err != nil || string(data) != "a file" {
		t.Errorf("regular output %q, %v", data, err)
	}
	// Streamed (Create, as score --items does): written as the command runs.
	got = readFIFO(t, fifo)
	var s Set
	defer s.Abort()
	f, err := s.Create(fifo)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "streamed")
	if err := s.Commit(io.Discard); err != nil {
		t.Fatal(err)
	}
	if s := received(t, got); s != "streamed" {
		t.Errorf("the reader got %q", s)
	}
	if fi, err := os.Lstat(fifo); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO is now %v (%v)", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 2 {
		t.Errorf("left behind: %v", entries)
	}
}

// A character device (a null device made in a temp dir, where mknod is
// allowed) stays a device; a link to it is written through, not replaced.
// The system's /dev/null and /dev/stdout are only looked at.
func TestDeviceWrittenInPlace(t *testing.T) {
	for _, p := range []string{"/dev/null", "/dev/stdout"} {
		if _, err := os.Lstat(p); err == nil && !Direct(p) {
			t.Errorf("%s would be renamed over", p)
		}
	}
	dir := t.TempDir()
	dev := filepath.Join(dir, "null")
	if err := syscall.Mknod(dev, syscall.S_IFCHR|0o666, int(1<<8|3)); err != nil {
		t.Skipf("mknod (needs root): %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(dev, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dev, link} {
		if err := WriteAll(io.Discard, []Output{{p, text("discarded")}}); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
	}
	if fi, err := os.Lstat(dev); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("the device is now %v (%v)", fi.Mode(), err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link is now %v (%v)", fi.Mode(), err)
	}
}
