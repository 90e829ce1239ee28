// Package zipread reads zip archives held in memory defensively, for the
// archives a pull request or a CI artifact controls (an Inspect .eval log, a
// baseline artifact): it refuses member names that would leave the archive
// root, members that are not regular files, and never reads more
// uncompressed bytes than asked, whatever the headers declare (a zip bomb
// stops at the limit). Members may be stored, deflated, or compressed with
// Zstandard (method 93, which current Inspect AI logs use), in one frame or
// several.
//
// Errors are *Error values whose Kind says what was refused; callers that
// word their own messages inspect it with errors.As.
package zipread

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// ZstdMethod is the zip compression method number of Zstandard (APPNOTE
// 6.3.7, section 4.4.5).
const ZstdMethod uint16 = 93

// zstdMaxWindow bounds the memory a Zstandard member's decoder may take:
// a frame declaring a larger window is refused as corrupt instead of
// allocated. zstd's own default encoders use at most 8 MiB windows.
const zstdMaxWindow = 64 << 20

// zstdDecompressor reads one Zstandard member, frame after frame, on one
// goroutine and with a bounded window.
func zstdDecompressor(r io.Reader) io.ReadCloser {
	d, err := zstd.NewReader(r, zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true),
		zstd.WithDecoderMaxWindow(zstdMaxWindow), zstd.WithDecoderMaxMemory(1<<40))
	if err != nil {
		return errReadCloser{err}
	}
	return d.IOReadCloser()
}

// errReadCloser fails every read with err.
type errReadCloser struct{ err error }

func (e errReadCloser) Read([]byte) (int, error) { return 0, e.err }
func (e errReadCloser) Close() error             { return nil }

// Kind says what an archive or member was refused for.
type Kind int

// The kinds of Error.
const (
	// Corrupt: not a zip archive, or a member that cannot be opened or read.
	Corrupt Kind = iota + 1
	// TooMany: more members than allowed.
	TooMany
	// UnsafeName: a member name that is absolute or leaves the archive root
	// ("..", a backslash, a NUL, a drive letter).
	UnsafeName
	// NotRegular: a member that is a symlink, directory or device.
	NotRegular
	// TooLarge: a member that declares more uncompressed bytes than allowed.
	TooLarge
	// Overrun: a member that holds more uncompressed bytes than allowed,
	// whatever its header declares (a zip bomb).
	Overrun
)

// Error is an archive or member refused.
type Error struct {
	Kind Kind
	// Member is the member's name; "" for the archive itself.
	Member string
	// Mode is the member's mode (NotRegular).
	Mode fs.FileMode
	// Count and Max are the members found and allowed (TooMany).
	Count, Max int
	// Size is the declared uncompressed size (TooLarge); Limit the most
	// bytes allowed (TooLarge, Overrun).
	Size  uint64
	Limit int64
	// Err is the cause (Corrupt).
	Err error
}

// Error words the refusal.
func (e *Error) Error() string {
	switch e.Kind {
	case TooMany:
		return fmt.Sprintf("archive has %d members, over the limit of %d", e.Count, e.Max)
	case UnsafeName:
		return fmt.Sprintf("archive member %q has an unsafe name (absolute, with .. or a backslash); refusing the archive", e.Member)
	case NotRegular:
		return fmt.Sprintf("archive member %s is not a regular file (mode %v); refusing it", e.Member, e.Mode)
	case TooLarge:
		return fmt.Sprintf("archive member %s declares %d bytes uncompressed, over the %d-byte limit", e.Member, e.Size, e.Limit)
	case Overrun:
		return fmt.Sprintf("archive member %s exceeds the %d-byte limit uncompressed (zip bomb?)", e.Member, e.Limit)
	}
	if e.Member != "" {
		return fmt.Sprintf("corrupt zip archive: member %s: %v", e.Member, e.Err)
	}
	return fmt.Sprintf("corrupt zip archive: %v", e.Err)
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// NewReader opens data as a zip archive with at most maxMembers members (0:
// any number), every member name safe (see SafeName).
func NewReader(data []byte, maxMembers int) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	// ErrInsecurePath comes with a usable reader: the names are checked
	// below, with a clearer error.
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) || zr == nil {
		if err == nil {
			err = zip.ErrFormat
		}
		return nil, &Error{Kind: Corrupt, Err: err}
	}
	zr.RegisterDecompressor(ZstdMethod, zstdDecompressor)
	if maxMembers > 0 && len(zr.File) > maxMembers {
		return nil, &Error{Kind: TooMany, Count: len(zr.File), Max: maxMembers}
	}
	for _, f := range zr.File {
		if !SafeName(f.Name) {
			return nil, &Error{Kind: UnsafeName, Member: f.Name}
		}
	}
	return zr, nil
}

// Open opens member f of a regular file declaring at most limit bytes
// uncompressed. The reader yields at most limit+1 bytes (the declared size
// is not trusted): a caller that reads more than limit has an Overrun.
func Open(f *zip.File, limit int64) (io.ReadCloser, error) {
	if m := f.Mode(); !m.IsRegular() {
		return nil, &Error{Kind: NotRegular, Member: f.Name, Mode: m}
	}
	if f.UncompressedSize64 > uint64(limit) {
		return nil, &Error{Kind: TooLarge, Member: f.Name, Size: f.UncompressedSize64, Limit: limit}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, &Error{Kind: Corrupt, Member: f.Name, Err: err}
	}
	return struct {
		io.Reader
		io.Closer
	}{io.LimitReader(rc, limit+1), rc}, nil
}

// ReadAll reads member f whole, at most limit bytes uncompressed: Open's
// errors, an Overrun past limit, Corrupt when it cannot be read (a member
// holding more than its header declares fails its check here too).
func ReadAll(f *zip.File, limit int64) ([]byte, error) {
	rc, err := Open(f, limit)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out, err := io.ReadAll(rc)
	if int64(len(out)) > limit {
		return nil, &Error{Kind: Overrun, Member: f.Name, Limit: limit}
	}
	if err != nil {
		return nil, &Error{Kind: Corrupt, Member: f.Name, Err: err}
	}
	return out, nil
}

// SafeName reports whether a member name is relative and stays inside the
// archive root: not empty, no backslash or NUL, not absolute, no drive
// letter, no ".." element.
func SafeName(name string) bool {
	if name == "" || strings.ContainsAny(name, "\\\x00") || strings.HasPrefix(name, "/") {
		return false
	}
	if len(name) >= 2 && name[1] == ':' {
		return false
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." {
			return false
		}
	}
	return !strings.HasPrefix(path.Clean(name), "../")
}
