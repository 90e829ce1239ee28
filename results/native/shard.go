package native

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// ShardHeader is the first line of a results file written by one shard of a
// sharded judge run: {"rubricgate_shard":{"index":I,"count":N,
// "input_items":M,"input_hash":"sha256:..."}}. M and the hash describe the
// whole input, so every shard of one run carries the same ones.
type ShardHeader struct {
	Index      int    `json:"index"`
	Count      int    `json:"count"`
	InputItems int    `json:"input_items"`
	InputHash  string `json:"input_hash"`
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
		return nil, true, fmt.Errorf(`"rubricgate_shard": expected {"index":I,"count":N,"input_items":M,"input_hash":"sha256:..."}: %v`, err)
	}
	if h.Count < 1 || h.Index < 1 || h.Index > h.Count || h.InputItems < 0 || !strings.HasPrefix(h.InputHash, "sha256:") {
		return nil, true, fmt.Errorf(`"rubricgate_shard": expected 1 <= index <= count, input_items >= 0 and an input_hash "sha256:...", got index %d, count %d, input_items %d`, h.Index, h.Count, h.InputItems)
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
		if h.Count != first.Count || h.InputItems != first.InputItems || h.InputHash != first.InputHash {
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
