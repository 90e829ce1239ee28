package baseline

import (
	"archive/zip"
	"fmt"

	"github.com/rubricgate/rubricgate/internal/zipread"
)

// ArchiveEntry is the name of the baseline file inside an artifact archive.
const ArchiveEntry = "baseline.json"

// extractBaseline returns the content of the top-level baseline.json entry
// of an in-memory zip archive, reading at most limit uncompressed bytes (the
// header's size is not trusted: a zip bomb stops at limit). Other entries are
// ignored, but an archive with an unsafe entry name (absolute, "..", a
// backslash or a drive letter) is refused, as is a baseline.json that is a
// symlink or not a regular file, or appears twice. The archive is read by
// internal/zipread, as the Inspect .eval reader reads its own.
func extractBaseline(data []byte, limit int64) ([]byte, error) {
	zr, err := zipread.NewReader(data, 0)
	if err != nil {
		return nil, err
	}
	var entry *zip.File
	for _, f := range zr.File {
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
	return zipread.ReadAll(entry, limit)
}
