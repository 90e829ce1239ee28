package zipread

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"errors"
	"io"
	"io/fs"
	"strings"
	"testing"
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
