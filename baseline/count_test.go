package baseline

import (
	"bytes"
	"fmt"
	"runtime"
	"testing"
)

// The fast reader sizes the columns from the file's own "count". A file
// padded with whitespace that claims a count it does not hold (a pull
// request can commit a baseline.json to a local store) must not make the
// read allocate many times what the true count does: the presize is capped.
func TestCountAmplification(t *testing.T) {
	base := encode(t, testFile(t, "rag-review"))
	pad := bytes.Repeat([]byte(" "), 40<<20) // 40 MiB of whitespace after the object
	at := bytes.Index(base, []byte(`"count": `))
	if at < 0 {
		t.Fatalf("no count in\n%s", base)
	}
	end := at + bytes.IndexAny(base[at:], ",}\n")
	alloc := func(count string) uint64 {
		data := append(append(append(bytes.Clone(base[:at]), `"count": `+count...), base[end:]...), pad...)
		var m0, m1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&m0)
		_, err := Read(bytes.NewReader(data), "b.json", 0)
		runtime.ReadMemStats(&m1)
		t.Logf("count %s: %v; %d MiB allocated for a %d MiB file", count, err, (m1.TotalAlloc-m0.TotalAlloc)>>20, len(data)>>20)
		return m1.TotalAlloc - m0.TotalAlloc
	}
	honest := alloc(fmt.Sprint(len(testFile(t, "x").Items.Scores())))
	lying := alloc(fmt.Sprint(20 << 20))
	if lying > 4*honest {
		t.Errorf("a false count makes the read allocate %d MiB, the true one %d MiB", lying>>20, honest>>20)
	}
}
