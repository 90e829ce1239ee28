package judge

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/internal/shardid"
)

// Shard selects a deterministic subset of items: Index of Count, 1-based.
// The zero Shard selects everything.
type Shard struct {
	Index, Count int
}

// ParseShard parses "I/N" with 1 <= I <= N.
func ParseShard(s string) (Shard, error) {
	a, b, ok := strings.Cut(strings.TrimSpace(s), "/")
	i, err1 := strconv.Atoi(strings.TrimSpace(a))
	n, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n || n > 10000 {
		return Shard{}, fmt.Errorf("shard %q: expected I/N with 1 <= I <= N (like 2/4)", s)
	}
	return Shard{Index: i, Count: n}, nil
}

// Enabled reports whether the shard selects a subset.
func (s Shard) Enabled() bool { return s.Count > 0 }

// Has reports whether the item id falls in the shard: the first 8 bytes of
// SHA-256(id), modulo Count, equal Index-1.
func (s Shard) Has(id string) bool {
	if !s.Enabled() {
		return true
	}
	return ShardOf(id, s.Count) == s.Index
}

// ShardOf returns the 1-based shard of id among n (see
// internal/shardid, which the gate checks shards with).
func ShardOf(id string, n int) int { return shardid.ShardOf(id, n) }

// idsDigest is the order-free digest of the input's ids, each once however
// many answers it has (the gate sums the ids of the results lines, one an
// item), which a shard header carries so that the gate can check the
// shards' union.
func idsDigest(ans *Answers) string {
	var d shardid.Digest
	for i := range ans.Groups {
		h := shardid.Of([]byte(ans.Groups[i].ID))
		d.Add(&h)
	}
	return d.String()
}
