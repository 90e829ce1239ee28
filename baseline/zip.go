package baseline

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"strings"
)

// ArchiveEntry is the name of the baseline file inside an artifact archive.
const ArchiveEntry = "baseline.json"

// extractBaseline returns the content of the top-level baseline.json entry
// of an in-memory zip archive, reading at most limit uncompressed bytes (the
// header's size is not trusted: a zip bomb stops at limit). Other entries are
// ignored, but an archive with an unsafe entry name (absolute, "..", a
// backslash or a drive letter) is refused, as is a baseline.json that is a
// symlink or not a regular file, or appears twice.
func extractBaseline(data []byte, limit int64) ([]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return nil, fmt.Errorf("corrupt zip archive: %w", err)
	}
	if zr == nil {
		return nil, fmt.Errorf("corrupt zip archive: %w", err)
	}
	var entry *zip.File
	for _, f := range zr.File {
		if !safeEntryName(f.Name) {
			return nil, fmt.Errorf("archive entry %q has an unsafe name (absolute or with ..); refusing the archive", f.Name)
		}
		if f.Name == ArchiveEntry {
			if entry != nil {
				return nil, fmt.Errorf("archive holds %s twice", ArchiveEntry)
			}
			entry = f
		}
	}
	if entry == nil {
		return nil, fmt.Errorf("archive has no top-level %s (it has %d entries)", ArchiveEntry, len(zr.File))
	}
	if m := entry.Mode(); !m.IsRegular() {
		return nil, fmt.Errorf("archive entry %s is not a regular file (mode %v); refusing it", ArchiveEntry, m)
	}
	if entry.UncompressedSize64 > uint64(limit) {
		return nil, fmt.Errorf("archive entry %s declares %d bytes uncompressed, over the %d-byte limit", ArchiveEntry, entry.UncompressedSize64, limit)
	}
	rc, err := entry.Open()
	if err != nil {
		return nil, fmt.Errorf("corrupt zip archive: open %s: %w", ArchiveEntry, err)
	}
	defer rc.Close()
	out, err := io.ReadAll(io.LimitReader(rc, limit+1))
	if int64(len(out)) > limit {
		return nil, fmt.Errorf("archive entry %s exceeds the %d-byte limit uncompressed (zip bomb?)", ArchiveEntry, limit)
	}
	if err != nil {
		return nil, fmt.Errorf("corrupt zip archive: read %s: %w", ArchiveEntry, err)
	}
	return out, nil
}

// safeEntryName reports whether a zip entry name is relative and stays
// inside the archive root.
func safeEntryName(name string) bool {
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
