package baseline

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// lenReader is a reader that tells a length, right or wrong.
type lenReader struct {
	r   io.Reader
	len int
}

func (l *lenReader) Read(p []byte) (int, error) { return l.r.Read(p) }
func (l *lenReader) Len() int                   { return l.len }

// readAll reads what the reader holds, whatever length it tells, and never
// more than limit+1 bytes.
func TestReadAllSizedAndBounded(t *testing.T) {
	data := strings.Repeat("0123456789", 100) // 1,000 bytes
	path := filepath.Join(t.TempDir(), "b.json")
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, tt := range []struct {
		name  string
		r     io.Reader
		limit int64
		want  int
	}{
		{"file", f, 5000, 1000},
		{"bytes.Reader", bytes.NewReader([]byte(data)), 5000, 1000},
		{"says less", &lenReader{strings.NewReader(data), 10}, 5000, 1000},
		{"says less, over the limit", &lenReader{strings.NewReader(data), 10}, 500, 501},
		{"says more", &lenReader{strings.NewReader(data), 2000}, 5000, 1000},
		{"says nothing", io.MultiReader(strings.NewReader(data)), 5000, 1000},
		{"over the limit", bytes.NewReader([]byte(data)), 999, 1000},
		{"empty", bytes.NewReader(nil), 5000, 0},
	} {
		got, err := readAll(tt.r, tt.limit)
		if err != nil || len(got) != tt.want || string(got) != data[:tt.want] {
			t.Errorf("%s: %d bytes, %v; want the first %d", tt.name, len(got), err, tt.want)
		}
	}
}
