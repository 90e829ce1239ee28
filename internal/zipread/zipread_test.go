package zipread

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"hash/crc32"
	"io"
	"io/fs"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

type member struct {
	name string
	body []byte
	mode fs.FileMode
	// size, when set, is the uncompressed size the header declares.
	size uint64
}

// archive builds a zip archive; a member with size set is stored raw with
// that declared size (a lying header).
func archive(t *testing.T, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range ms {
		h := &zip.FileHeader{Name: m.name, Method: zip.Deflate}
		if m.mode != 0 {
			h.SetMode(m.mode)
		}
		if m.size > 0 {
			var c bytes.Buffer
			fw, _ := flate.NewWriter(&c, flate.BestCompression)
			fw.Write(m.body)
			fw.Close()
			h.UncompressedSize64, h.CompressedSize64 = m.size, uint64(c.Len())
			w, err := zw.CreateRaw(h)
			if err != nil {
				t.Fatal(err)
			}
			w.Write(c.Bytes())
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(m.body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// kindOf returns the Kind of err, 0 when it is not an *Error.
func kindOf(err error) Kind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return 0
}

func TestNewReader(t *testing.T) {
	ok := archive(t, member{name: "a.json", body: []byte("{}")}, member{name: "dir/b.json", body: []byte("[]")})
	zr, err := NewReader(ok, 2)
	if err != nil || len(zr.File) != 2 {
		t.Fatalf("%v, %v", zr, err)
	}
	if _, err := NewReader(ok, 1); kindOf(err) != TooMany || !strings.Contains(err.Error(), "2 members, over the limit of 1") {
		t.Errorf("too many: %v", err)
	}
	if _, err := NewReader([]byte("PK\x03\x04 not a zip"), 0); kindOf(err) != Corrupt || !errors.Is(err, zip.ErrFormat) {
		t.Errorf("corrupt: %v", err)
	}
	for _, name := range []string{"../x", "/etc/passwd", `a\..\b`, "c:/x", "a/../../b", "a\x00b"} {
		_, err := NewReader(archive(t, member{name: name, body: []byte("x")}), 0)
		var e *Error
		if !errors.As(err, &e) || e.Kind != UnsafeName || e.Member != name {
			t.Errorf("%q: %v", name, err)
		}
	}
}

func TestOpenAndReadAll(t *testing.T) {
	big := bytes.Repeat([]byte("a"), 1000)
	zr, err := NewReader(archive(t,
		member{name: "ok", body: []byte("hello")},
		member{name: "link", body: []byte("/etc/passwd"), mode: fs.ModeSymlink | 0o777},
		member{name: "declared", body: big},
		member{name: "bomb", body: big, size: 10},
	), 0)
	if err != nil {
		t.Fatal(err)
	}
	get := func(name string) *zip.File {
		for _, f := range zr.File {
			if f.Name == name {
				return f
			}
		}
		t.Fatalf("no member %s", name)
		return nil
	}
	if b, err := ReadAll(get("ok"), 5); err != nil || string(b) != "hello" {
		t.Errorf("at the limit: %q, %v", b, err)
	}
	if _, err := ReadAll(get("link"), 100); kindOf(err) != NotRegular || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("symlink: %v", err)
	}
	if _, err := ReadAll(get("declared"), 100); kindOf(err) != TooLarge || !strings.Contains(err.Error(), "declares 1000 bytes uncompressed, over the 100-byte limit") {
		t.Errorf("declared too large: %v", err)
	}
	// The header says 10 bytes and the member holds 1000: it is refused,
	// having read no more than the limit.
	if _, err := ReadAll(get("bomb"), 100); kindOf(err) != Corrupt || !errors.Is(err, zip.ErrFormat) {
		t.Errorf("understated size: %v", err)
	}
	rc, err := Open(get("declared"), 2000)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	if n, _ := io.Copy(io.Discard, rc); n != 1000 {
		t.Errorf("Open's reader gave %d bytes, want 1000", n)
	}
	// An Overrun words the limit.
	if e := (&Error{Kind: Overrun, Member: "m", Limit: 7}); !strings.Contains(e.Error(), "m exceeds the 7-byte limit uncompressed (zip bomb?)") {
		t.Errorf("overrun: %v", e)
	}
}

// ZstdArchive builds a zip archive whose members are compressed with
// Zstandard (method 93), each member's data written as frames of at most
// frame bytes of input, as Inspect AI's multi-frame writer does.
func zstdArchive(t *testing.T, frame int, ms ...member) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, m := range ms {
		var c bytes.Buffer
		for rest := m.body; ; {
			n := min(frame, len(rest))
			enc, err := zstd.NewWriter(&c, zstd.WithEncoderConcurrency(1))
			if err != nil {
				t.Fatal(err)
			}
			enc.Write(rest[:n])
			enc.Close()
			if rest = rest[n:]; len(rest) == 0 {
				break
			}
		}
		h := &zip.FileHeader{Name: m.name, Method: ZstdMethod, UncompressedSize64: uint64(len(m.body)), CompressedSize64: uint64(c.Len()), CRC32: crc32.ChecksumIEEE(m.body)}
		if m.size > 0 {
			h.UncompressedSize64 = m.size
		}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(c.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// Zstandard members (current Inspect logs) read like deflated ones, frames
// and all, and keep the same limits: a member holding more than its header
// declares is refused (zip's size check, as for deflate), and one larger
// than the limit is an Overrun, never read past it.
func TestZstdMembers(t *testing.T) {
	body := bytes.Repeat([]byte(`{"sample": 1, "scores": {"match": {"value": "C"}}}`+"\n"), 4000)
	zr, err := NewReader(zstdArchive(t, 64<<10, member{name: "samples/1_epoch_1.json", body: body}), 10)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ReadAll(zr.File[0], int64(len(body)))
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read %d bytes, err %v; want the %d bytes written", len(got), err, len(body))
	}
	// A lying header: it declares 100 bytes, the frames hold the whole body.
	zr, err = NewReader(zstdArchive(t, 64<<10, member{name: "bomb.json", body: body, size: 100}), 10)
	if err != nil {
		t.Fatal(err)
	}
	_, err = ReadAll(zr.File[0], 1000)
	var ze *Error
	if !errors.As(err, &ze) || ze.Kind != Corrupt {
		t.Errorf("lying zstd header: %v, want Corrupt", err)
	}
	zr, err = NewReader(zstdArchive(t, 64<<10, member{name: "big.json", body: body}), 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err = ReadAll(zr.File[0], 1000); !errors.As(err, &ze) || ze.Kind != TooLarge {
		t.Errorf("zstd member over the limit: %v, want TooLarge", err)
	}
	// Garbage where the frames should be is Corrupt, not a panic.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, _ := zw.CreateRaw(&zip.FileHeader{Name: "x.json", Method: ZstdMethod, UncompressedSize64: 10, CompressedSize64: 10})
	w.Write([]byte("not zstd!!"))
	zw.Close()
	zr, err = NewReader(buf.Bytes(), 10)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ReadAll(zr.File[0], 1000); !errors.As(err, &ze) || ze.Kind != Corrupt {
		t.Errorf("garbage zstd member: %v, want Corrupt", err)
	}
}
