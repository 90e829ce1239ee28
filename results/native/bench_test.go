package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/rubricgate/rubricgate/internal/shardid"
)

var (
	benchOnce sync.Once
	benchData []byte
)

// benchRun is 100k generated items (5 criteria), about 20 MB of JSON lines.
func benchRun() []byte {
	benchOnce.Do(func() { benchData = genRun(100000, 42) })
	return benchData
}

func BenchmarkScore(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		rep, err := Score(rb, []Input{{Name: "bench.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{})
		if err != nil || rep.Items != 100000 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/item")
}

func BenchmarkScoreOneWorker(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Score(rb, []Input{{Name: "bench.jsonl", R: bytes.NewReader(data)}}, ScoreOptions{Workers: 1}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkReadJSONL(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := ReadItems(rb, Input{Name: "bench.jsonl", R: bytes.NewReader(data)}, ReadOptions{}, func(*Item) error { n++; return nil })
		if err != nil || n != 100000 {
			b.Fatal(err, n)
		}
	}
}

// BenchmarkScoreSharded is benchRun's items split into 4 judge shards with
// headers: the per-item shard and union checks (one SHA-256 of each id)
// against BenchmarkScore.
func BenchmarkScoreSharded(b *testing.B) {
	data := benchRun()
	rb := prodRubric()
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	ids := make([]string, len(lines))
	for i, l := range lines {
		var v struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(l, &v); err != nil {
			b.Fatal(err)
		}
		ids[i] = strings.Trim(string(v.ID), `"`)
	}
	var d shardid.Digest
	for _, id := range ids {
		h := shardid.Of([]byte(id))
		d.Add(&h)
	}
	shards := make([]bytes.Buffer, 4)
	for k := range shards {
		fmt.Fprintf(&shards[k], `{"rubricgate_shard":{"index":%d,"count":4,"input_items":%d,"input_hash":"sha256:ab","input_ids":"%s"}}`+"\n", k+1, len(ids), d.String())
	}
	for i, l := range lines {
		w := &shards[shardid.ShardOf(ids[i], 4)-1]
		w.Write(l)
		w.WriteByte('\n')
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		in := make([]Input, 4)
		for k := range shards {
			in[k] = Input{Name: fmt.Sprintf("s%d.jsonl", k+1), R: bytes.NewReader(shards[k].Bytes())}
		}
		rep, err := Score(rb, in, ScoreOptions{})
		if err != nil || rep.Items != 100000 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/100000, "ns/item")
}
