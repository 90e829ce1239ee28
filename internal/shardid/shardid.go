// Package shardid is the one definition of a sharded judge run's item
// assignment, shared by the judge (which splits the answers) and the gate
// (which checks that each shard holds its own items): an item's shard is
// the first 8 bytes of SHA-256(id), big-endian, modulo the shard count. It
// also digests the set of a run's ids, independently of their order, so
// that the gate can tell the shards' union from the judged input.
package shardid

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math/bits"
	"strings"
)

// Hash is the SHA-256 of an id, from which its shard and its part of a
// Digest come.
type Hash [sha256.Size]byte

// Of returns the hash of id.
func Of(id []byte) Hash { return sha256.Sum256(id) }

// Shard returns the 1-based shard of an id with hash h among n shards.
func (h *Hash) Shard(n int) int {
	return int(binary.BigEndian.Uint64(h[:8])%uint64(n)) + 1
}

// ShardOf returns the 1-based shard of id among n shards.
func ShardOf(id string, n int) int {
	h := Of([]byte(id))
	return h.Shard(n)
}

// DigestPrefix starts a Digest's text.
const DigestPrefix = "sha256-sum:"

// Digest is the sum, modulo 2^256, of the SHA-256 of each id of a multiset
// of ids: the same for the same ids in any order (and for any split of them
// into parts merged later), and different when an id is added, dropped,
// repeated or replaced. It guards against mix-ups, not against someone who
// writes both the ids and the digest.
type Digest struct {
	limb [4]uint64 // big-endian: limb[0] is the most significant
}

// Add adds the id whose hash is h.
func (d *Digest) Add(h *Hash) {
	var c uint64
	for i := 3; i >= 0; i-- {
		d.limb[i], c = bits.Add64(d.limb[i], binary.BigEndian.Uint64(h[8*i:8*i+8]), c)
	}
}

// Merge adds every id of o.
func (d *Digest) Merge(o *Digest) {
	var c uint64
	for i := 3; i >= 0; i-- {
		d.limb[i], c = bits.Add64(d.limb[i], o.limb[i], c)
	}
}

// String is the digest as "sha256-sum:" and 64 hex digits.
func (d *Digest) String() string {
	var b [32]byte
	for i, l := range d.limb {
		binary.BigEndian.PutUint64(b[8*i:], l)
	}
	return DigestPrefix + hex.EncodeToString(b[:])
}

// Valid reports whether s has the form of a Digest's text.
func Valid(s string) bool {
	h, ok := strings.CutPrefix(s, DigestPrefix)
	if !ok || len(h) != 64 {
		return false
	}
	_, err := hex.DecodeString(h)
	return err == nil && strings.ToLower(h) == h
}
