package gate

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// REVIEW: the sorted id index agrees with a map: duplicates found, the last
// of repeated ids found, absent ids not found, at sizes around the
// directory's powers of two.
func TestReviewIDIndexAgainstMap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 1023, 1024, 1025, 5000} {
		for _, space := range []int{n/2 + 1, 4*n + 1} {
			c := &ItemColumns{}
			last := map[string]int{}
			dup := false
			for i := range n {
				id := fmt.Sprint(rng.IntN(space))
				if _, ok := last[id]; ok {
					dup = true
				}
				last[id] = i
				c.Append(id, float64(i))
			}
			if got := c.HasDuplicate(); got != dup {
				t.Fatalf("n=%d space=%d: HasDuplicate %v, want %v", n, space, got, dup)
			}
			for k := range space + 3 {
				id := fmt.Sprint(k)
				want, ok := last[id]
				if !ok {
					want = -1
				}
				if got := c.index().find(c, id); got != want {
					t.Fatalf("n=%d space=%d: find(%s) = %d, want %d", n, space, id, got, want)
				}
			}
		}
	}
}
