package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/rubricgate/rubricgate/internal/shardid"
)

// ShardHeader is the first line of a results file written by one shard of a
// sharded judge run: {"rubricgate_shard":{"index":I,"count":N,
// "input_items":M,"input_hash":"sha256:...","input_ids":"sha256-sum:..."}}.
// M, the hash and the ids' digest describe the whole input, so every shard
// of one run carries the same ones. Each item of a shard must belong to it
// (internal/shardid), and the shards' items must be the input's: M of
// them, with that digest.
type ShardHeader struct {
	Index      int    `json:"index"`
	Count      int    `json:"count"`
	InputItems int    `json:"input_items"`
	InputHash  string `json:"input_hash"`
	// InputIDs is the order-free digest of the whole input's ids
	// ("sha256-sum:...", see internal/shardid): the shards' items must add
	// up to it.
	InputIDs string `json:"input_ids"`
}

// shardKey is the key of a shard header line.
var shardKey = []byte(`"rubricgate_shard"`)

// shardHeader decodes line as a shard header when it is an object whose only
// key is "rubricgate_shard"; ok is false for any other line.
func shardHeader(line []byte) (h *ShardHeader, ok bool, err error) {
	if !bytes.Contains(line, shardKey) {
		return nil, false, nil
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || len(top) != 1 || top["rubricgate_shard"] == nil {
		return nil, false, nil
	}
	dec := json.NewDecoder(bytes.NewReader(top["rubricgate_shard"]))
	dec.DisallowUnknownFields()
	h = &ShardHeader{}
	if err := dec.Decode(h); err != nil {
		return nil, true, fmt.Errorf(`"rubricgate_shard": expected {"index":I,"count":N,"input_items":M,"input_hash":"sha256:...","input_ids":"sha256-sum:..."}: %v`, err)
	}
	if h.Count < 1 || h.Index < 1 || h.Index > h.Count || h.InputItems < 0 || !strings.HasPrefix(h.InputHash, "sha256:") {
		return nil, true, fmt.Errorf(`"rubricgate_shard": expected 1 <= index <= count, input_items >= 0 and an input_hash "sha256:...", got index %d, count %d, input_items %d`, h.Index, h.Count, h.InputItems)
	}
	if !shardid.Valid(h.InputIDs) {
		return nil, true, fmt.Errorf(`"rubricgate_shard": expected "input_ids":"sha256-sum:" and 64 hex digits (the digest of the input's ids, written by rubricgate judge --shard), got %q: judge the shards again with this version`, clipHeader(h.InputIDs))
	}
	return h, true, nil
}

// checkShards refuses a sharded run that is not whole: some inputs with a
// shard header and others without, shards of different runs (count, item
// count or input hash differ), two files for one shard, or a shard missing.
// A run without headers passes.
func checkShards(inputs []Input, shards map[int]*ShardHeader) error {
	if len(shards) == 0 {
		return nil
	}
	var with, without []string
	for i, in := range inputs {
		if shards[i] != nil {
			with = append(with, in.Name)
		} else {
			without = append(without, in.Name)
		}
	}
	if len(without) > 0 {
		return &InputError{File: strings.Join(without, ", "), Msg: fmt.Sprintf("no rubricgate_shard header, but %s %s one: a sharded run must be given all its shards and nothing else", strings.Join(with, ", "), has(len(with)))}
	}
	idx := make([]int, 0, len(shards))
	for i := range shards {
		idx = append(idx, i)
	}
	sort.Ints(idx)
	first := shards[idx[0]]
	fname := inputs[idx[0]].Name
	byIndex := map[int]string{}
	for _, i := range idx {
		h, name := shards[i], inputs[i].Name
		if h.Count != first.Count || h.InputItems != first.InputItems || h.InputHash != first.InputHash || h.InputIDs != first.InputIDs {
			return &InputError{File: name, Line: 1, Msg: fmt.Sprintf("shard %d/%d of an input of %d items (%s) does not belong with %s, shard %d/%d of %d items (%s): the shards come from different runs",
				h.Index, h.Count, h.InputItems, h.InputHash, fname, first.Index, first.Count, first.InputItems, first.InputHash)}
		}
		if prev, dup := byIndex[h.Index]; dup {
			return &InputError{File: name, Line: 1, Msg: fmt.Sprintf("shards overlap: %s and %s are both shard %d/%d", prev, name, h.Index, h.Count)}
		}
		byIndex[h.Index] = name
	}
	var missing []string
	for k := 1; k <= first.Count; k++ {
		if _, ok := byIndex[k]; !ok {
			missing = append(missing, fmt.Sprintf("%d/%d", k, first.Count))
		}
	}
	if len(missing) > 0 {
		names := make([]string, 0, len(idx))
		for _, i := range idx {
			names = append(names, fmt.Sprintf("%s (%d/%d)", inputs[i].Name, shards[i].Index, shards[i].Count))
		}
		return &InputError{File: strings.Join(names, ", "), Msg: fmt.Sprintf("shard %s missing: a sharded run needs every shard", strings.Join(missing, ", ")+plural(len(missing)))}
	}
	return nil
}

// clipHeader shortens a header value for a message.
func clipHeader(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// shardID is the trace a sharded input's item leaves for the shard checks:
// its shard hash's first 8 bytes and its line.
type shardID struct {
	h    uint64
	line int
}

// shardIDs checks a sharded run's items against its shard headers: each
// item in the shard its id belongs to, and the union the headers' input,
// as many items with the same ids' digest. The headers were checked
// against each other first (checkShards).
type shardIDs struct {
	n   int
	sum shardid.Digest
	// err is the first item found in another shard than its file's.
	err error
}

// fold checks the items of one chunk of the input named name against its
// header h and adds them to the union. An item in the wrong shard is kept
// for check, which reports it after the headers were checked.
func (u *shardIDs) fold(h *ShardHeader, name string, ids []shardID, sum *shardid.Digest) {
	for _, it := range ids {
		if k := int(it.h%uint64(h.Count)) + 1; k != h.Index && u.err == nil {
			u.err = &InputError{File: name, Line: it.line, Msg: fmt.Sprintf("this item belongs to shard %d/%d, not to this file's shard %d/%d: the shards were changed after judging (judge them again)", k, h.Count, h.Index, h.Count)}
		}
	}
	u.n += len(ids)
	u.sum.Merge(sum)
}

// check reports an item in the wrong shard, then compares the union with
// the input the headers name.
func (u *shardIDs) check(inputs []Input, shards map[int]*ShardHeader) error {
	if u.err != nil {
		return u.err
	}
	var h *ShardHeader
	names := make([]string, 0, len(shards))
	for i, in := range inputs {
		if shards[i] != nil {
			h = shards[i]
			names = append(names, in.Name)
		}
	}
	if h == nil {
		return nil
	}
	switch {
	case u.n != h.InputItems:
		return &InputError{File: strings.Join(names, ", "), Msg: fmt.Sprintf("the shards hold %d items, but the input they were judged from had %d: items were dropped or added after judging (judge them again)", u.n, h.InputItems)}
	case u.sum.String() != h.InputIDs:
		return &InputError{File: strings.Join(names, ", "), Msg: "the shards' item ids are not the ids of the input they were judged from (input_ids): items were replaced after judging (judge them again)"}
	}
	return nil
}

func has(n int) string {
	if n == 1 {
		return "has"
	}
	return "have"
}

func plural(n int) string {
	if n == 1 {
		return " is"
	}
	return " are"
}
