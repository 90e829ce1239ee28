package gate

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"

	"github.com/rubricgate/rubricgate/finding"
)

// InputHash binds a judged item to its task: the sha256 of what defines the
// task (the question or input, the context, the reference answer), never of
// the answer, which is what is judged. The zero value is no hash. A pull
// request writes the answers the judge reads, so without it an item could
// keep a regressed item's id and swap its question for an easy one: the
// pairing treats an item whose hash differs from the baseline's as the
// baseline's removed and a new one added (see [Pairer]).
type InputHash [sha256.Size]byte

// inputHashPrefix is the text form's prefix.
const inputHashPrefix = "sha256:"

// taskHashDomain starts the hashed encoding, so that the hash of a task is
// never the hash of some other rubricgate encoding.
const taskHashDomain = "rubricgate-task-v1"

// HashTask returns the InputHash of a task: sha256 over "rubricgate-task-v1"
// followed, for input, context and reference in that order, by the text's
// length in bytes (8 bytes, big-endian) and the text's bytes. The texts are
// taken exactly as the judge reads them (a list of context passages joined
// with blank lines); an absent field is the empty text.
func HashTask(input, context, reference string) InputHash {
	h := sha256.New()
	h.Write([]byte(taskHashDomain))
	var n [8]byte
	for _, s := range [...]string{input, context, reference} {
		binary.BigEndian.PutUint64(n[:], uint64(len(s)))
		h.Write(n[:])
		h.Write([]byte(s))
	}
	var out InputHash
	h.Sum(out[:0])
	return out
}

// IsZero reports whether h is no hash.
func (h InputHash) IsZero() bool { return h == InputHash{} }

// String is "sha256:<64 lowercase hex digits>", or "" for no hash.
func (h InputHash) String() string {
	if h.IsZero() {
		return ""
	}
	return inputHashPrefix + hex.EncodeToString(h[:])
}

// ParseInputHash reads the text form String writes: "sha256:" and 64
// lowercase hex digits, nothing else. ok is false for anything else
// (including the empty text and a hash of all zeros, which no task has).
func ParseInputHash(s []byte) (h InputHash, ok bool) {
	if len(s) != len(inputHashPrefix)+2*sha256.Size || string(s[:len(inputHashPrefix)]) != inputHashPrefix {
		return h, false
	}
	for _, c := range s[len(inputHashPrefix):] {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return h, false
		}
	}
	if _, err := hex.Decode(h[:], s[len(inputHashPrefix):]); err != nil {
		return InputHash{}, false
	}
	return h, !h.IsZero()
}

// SetInputHash sets the i-th item's InputHash (a zero h clears it). The
// hashes take room only from the first item given one.
func (c *ItemColumns) SetInputHash(i int, h InputHash) {
	if h.IsZero() && len(c.hashes) <= i*sha256.Size {
		return
	}
	if need := (i + 1) * sha256.Size; len(c.hashes) < need {
		c.hashes = append(c.hashes, make([]byte, need-len(c.hashes))...)
	}
	copy(c.hashes[i*sha256.Size:], h[:])
}

// InputHash is the i-th item's InputHash, zero when it has none.
func (c *ItemColumns) InputHash(i int) InputHash {
	var h InputHash
	if c != nil && (i+1)*sha256.Size <= len(c.hashes) {
		copy(h[:], c.hashes[i*sha256.Size:])
	}
	return h
}

// HasInputHashes reports whether any item has an InputHash.
func (c *ItemColumns) HasInputHashes() bool {
	if c == nil {
		return false
	}
	for i := 0; i+sha256.Size <= len(c.hashes); i += sha256.Size {
		if !InputHash(c.hashes[i : i+sha256.Size]).IsZero() {
			return true
		}
	}
	return false
}

// taskChanged compares the InputHash of the current item it with the
// baseline's item i: true when both have one and they differ (the item is
// then not the baseline's item, whatever its id). When only one side has a
// hash the item is compared by id, as before the hashes, and counted
// (Paired.UnboundBaseline, UnboundCurrent) for the report's note.
func (pr *Pairer) taskChanged(i int, it *ItemResult) bool {
	b, c := pr.items.InputHash(i), it.InputHash
	switch {
	case b.IsZero() && c.IsZero():
		return false
	case b.IsZero():
		pr.p.UnboundBaseline++
		return false
	case c.IsZero():
		pr.p.UnboundCurrent++
		return false
	case b == c:
		return false
	}
	pr.p.TaskChanged++
	if len(pr.p.TaskChangedIDs) < listedIDs {
		pr.p.TaskChangedIDs = append(pr.p.TaskChangedIDs, it.ID)
	}
	return true
}

// taskFindings warns about items whose task changed under their id, and
// notes once per side that items were compared by id alone.
func taskFindings(p *Paired, warn func(finding.Finding)) {
	if p.TaskChanged > 0 {
		ids := p.TaskChangedIDs
		warn(finding.Finding{Kind: finding.ItemTaskChanged, Params: finding.Params{Count: p.TaskChanged, Items: append([]string{}, ids[:min(len(ids), 5)]...)}})
	}
	if p.UnboundBaseline > 0 {
		warn(finding.Finding{Kind: finding.TaskUnboundBaseline, Params: finding.Params{Count: p.UnboundBaseline}})
	}
	if p.UnboundCurrent > 0 {
		warn(finding.Finding{Kind: finding.TaskUnboundResults, Params: finding.Params{Count: p.UnboundCurrent}})
	}
}

// SetInputHashBytes sets every item's InputHash from b, the items' 32-byte
// digests concatenated in item order (32 zero bytes for an item without
// one), which the columns keep (b is not copied). ok is false, and nothing
// set, when b does not hold one digest an item.
func (c *ItemColumns) SetInputHashBytes(b []byte) (ok bool) {
	if len(b) != c.Len()*sha256.Size {
		return false
	}
	c.hashes = b
	return true
}
