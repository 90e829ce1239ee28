// Package boundedio reads whole files with a size cap, so that a hostile or
// corrupt input (an event payload, a report, a git metadata file) can never
// make a command read without bound.
package boundedio

import (
	"fmt"
	"io"
	"os"
)

// ReadFile reads the whole file at path, refusing one larger than limit
// bytes. A missing file's error satisfies os.IsNotExist / errors.Is(err,
// fs.ErrNotExist).
func ReadFile(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", path, limit)
	}
	return data, nil
}
