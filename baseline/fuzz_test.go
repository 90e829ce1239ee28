package baseline

import (
	"bytes"
	"testing"
)

// FuzzRead: Read never panics, and whatever it accepts writes and reads back.
func FuzzRead(f *testing.F) {
	f.Add(encode(f, testFile(f, "rag-review")))
	f.Add([]byte(`{"schema":1}`))
	f.Add(encodeHashed(f))
	f.Add([]byte(`{"schema":2,"items":[]}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		bf, err := Read(bytes.NewReader(data), "fuzz.json", 1<<20)
		if err != nil {
			return
		}
		var buf bytes.Buffer
		if err := bf.Write(&buf); err != nil {
			t.Fatalf("accepted file does not write: %v", err)
		}
		if _, err := Read(&buf, "again.json", 0); err != nil {
			t.Fatalf("rewritten file does not read: %v", err)
		}
	})
}

// FuzzExtract: extractBaseline never panics and never returns more than the limit.
func FuzzExtract(f *testing.F) {
	f.Add(makeZip(f, zipEntry{name: ArchiveEntry, body: []byte(`{"schema":1}`)}))
	f.Add(makeZip(f, zipEntry{name: "../x", body: []byte("x")}))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := extractBaseline(data, 4096)
		if err == nil && len(out) > 4096 {
			t.Fatalf("returned %d bytes over the limit", len(out))
		}
	})
}
