package native

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/shardid"
)

// digestOf is the input_ids of an input with ids.
func digestOf(ids ...string) string {
	var d shardid.Digest
	for _, id := range ids {
		h := shardid.Of([]byte(id))
		d.Add(&h)
	}
	return d.String()
}

// fourIDs is the digest of the 4-item input the header tests' shards name.
var fourIDs = digestOf("a", "b", "c", "d")

func resultLine(id string) string {
	return fmt.Sprintf(`{"id":%q,"scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"reasoning":"r","judge_model":"m","usage":{"input_tokens":1,"output_tokens":2},"latency_ms":3,"attempts":1}`+"\n", id)
}

// shardFile is a results file with a shard header (index > 0) naming a
// 4-item input, and ids as its items (wherever they belong).
func shardFile(name string, index, count int, hash string, ids ...string) Input {
	var b strings.Builder
	if index > 0 {
		fmt.Fprintf(&b, `{"rubricgate_shard":{"index":%d,"count":%d,"input_items":4,"input_hash":"%s","input_ids":"%s"}}`+"\n", index, count, hash, fourIDs)
	}
	for _, id := range ids {
		b.WriteString(resultLine(id))
	}
	return Input{Name: name, R: strings.NewReader(b.String())}
}

// judgedShards splits ids into count shards as the judge does, each file
// with its header; edit changes the items of shard k before they are
// written (nil: none).
func judgedShards(count int, ids []string, edit func(k int, items []string) []string) []Input {
	by := make([][]string, count+1)
	for _, id := range ids {
		k := shardid.ShardOf(id, count)
		by[k] = append(by[k], id)
	}
	inputs := make([]Input, 0, count)
	for k := 1; k <= count; k++ {
		items := by[k]
		if edit != nil {
			items = edit(k, items)
		}
		var b strings.Builder
		fmt.Fprintf(&b, `{"rubricgate_shard":{"index":%d,"count":%d,"input_items":%d,"input_hash":"sha256:ab","input_ids":"%s"}}`+"\n", k, count, len(ids), digestOf(ids...))
		for _, id := range items {
			b.WriteString(resultLine(id))
		}
		inputs = append(inputs, Input{Name: fmt.Sprintf("s%d.jsonl", k), R: strings.NewReader(b.String())})
	}
	return inputs
}

func TestShardHeaderIsMetadata(t *testing.T) {
	rep, err := Score(supportRubric(), judgedShards(2, []string{"a", "b", "c", "d"}, nil), ScoreOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Items != 4 {
		t.Fatalf("%d items, want 4", rep.Items)
	}
	// The same run without headers reads as today.
	if _, err := Score(supportRubric(), []Input{shardFile("a.jsonl", 0, 0, "", "a", "b")}, ScoreOptions{}); err != nil {
		t.Fatal(err)
	}
	// ReadItems (and so the blocking check) skips the header too.
	n := 0
	if err := ReadItems(supportRubric(), judgedShards(1, []string{"a"}, nil)[0], ReadOptions{}, func(*Item) error { n++; return nil }); err != nil || n != 1 {
		t.Fatalf("ReadItems: %d items, %v", n, err)
	}
}

func TestShardRunMustBeWhole(t *testing.T) {
	for name, c := range map[string]struct {
		inputs []Input
		want   string
	}{
		"missing": {[]Input{shardFile("s1.jsonl", 1, 3, "sha256:ab", "a"), shardFile("s3.jsonl", 3, 3, "sha256:ab", "c")},
			"s1.jsonl (1/3), s3.jsonl (3/3): shard 2/3 is missing"},
		"overlap": {[]Input{shardFile("s1.jsonl", 1, 2, "sha256:ab", "a"), shardFile("again.jsonl", 1, 2, "sha256:ab", "b"), shardFile("s2.jsonl", 2, 2, "sha256:ab", "c")},
			"again.jsonl:1: shards overlap: s1.jsonl and again.jsonl are both shard 1/2"},
		"other run": {[]Input{shardFile("s1.jsonl", 1, 2, "sha256:ab", "a"), shardFile("s2.jsonl", 2, 2, "sha256:cd", "b")},
			"s2.jsonl:1: shard 2/2 of an input of 4 items (sha256:cd) does not belong with s1.jsonl"},
		"other count": {[]Input{shardFile("s1.jsonl", 1, 2, "sha256:ab", "a"), shardFile("s2.jsonl", 2, 3, "sha256:ab", "b")},
			"the shards come from different runs"},
		"mixed": {[]Input{shardFile("s1.jsonl", 1, 1, "sha256:ab", "a"), shardFile("plain.jsonl", 0, 0, "", "b")},
			"plain.jsonl: no rubricgate_shard header, but s1.jsonl has one"},
		"bad header": {[]Input{{Name: "s.jsonl", R: strings.NewReader(`{"rubricgate_shard":{"index":3,"count":2,"input_items":1,"input_hash":"sha256:x"}}` + "\n")}},
			"s.jsonl:1: \"rubricgate_shard\": expected 1 <= index <= count"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Score(supportRubric(), c.inputs, ScoreOptions{})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want an *InputError containing %q", err, c.want)
			}
		})
	}
}

func TestShardHeaderOnlyOnTheFirstLine(t *testing.T) {
	in := Input{Name: "x.jsonl", R: strings.NewReader(
		`{"id":"a","scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1}}` + "\n" +
			`{"rubricgate_shard":{"index":1,"count":1,"input_items":1,"input_hash":"sha256:ab","input_ids":"` + fourIDs + `"}}` + "\n")}
	if _, err := Score(supportRubric(), []Input{in}, ScoreOptions{}); err == nil || !strings.Contains(err.Error(), `x.jsonl:2: missing "id"`) {
		t.Fatalf("a header after the first line: %v", err)
	}
}

// The items are checked too, not only the headers: an item moved to
// another shard's file, an item dropped, one duplicated, or one replaced
// (as many items, other ids) is refused, naming the files.
func TestShardItemsMustBeTheInputs(t *testing.T) {
	ids := make([]string, 40)
	for i := range ids {
		ids[i] = fmt.Sprintf("item-%02d", i)
	}
	if rep, err := Score(supportRubric(), judgedShards(4, ids, nil), ScoreOptions{}); err != nil || rep.Items != 40 {
		t.Fatalf("the judged shards: %v", err)
	}
	var moved string
	for name, c := range map[string]struct {
		edit func(k int, items []string) []string
		want string
	}{
		"moved": {func(k int, items []string) []string {
			switch k {
			case 1:
				moved = items[0]
				return items[1:]
			case 2:
				return append(items, moved)
			}
			return items
		}, "this item belongs to shard 1/4, not to this file's shard 2/4"},
		"dropped": {func(k int, items []string) []string {
			if k == 3 {
				return items[1:]
			}
			return items
		}, "s1.jsonl, s2.jsonl, s3.jsonl, s4.jsonl: the shards hold 39 items, but the input they were judged from had 40"},
		"duplicated": {func(k int, items []string) []string {
			if k == 3 {
				return append(items, items[0])
			}
			return items
		}, "duplicate id"},
		"replaced": {func(k int, items []string) []string {
			if k != 4 {
				return items
			}
			// Another id of shard 4 in place of its first item.
			for i := 0; ; i++ {
				if id := fmt.Sprintf("new-%d", i); shardid.ShardOf(id, 4) == 4 {
					return append([]string{id}, items[1:]...)
				}
			}
		}, "the shards' item ids are not the ids of the input they were judged from"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Score(supportRubric(), judgedShards(4, ids, c.edit), ScoreOptions{})
			var ie *InputError
			if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want an *InputError containing %q", err, c.want)
			}
		})
	}
}

// A header without the ids' digest (an older judge's) is refused with what
// to do.
func TestShardHeaderNeedsTheIDsDigest(t *testing.T) {
	in := Input{Name: "s.jsonl", R: strings.NewReader(`{"rubricgate_shard":{"index":1,"count":1,"input_items":1,"input_hash":"sha256:ab"}}` + "\n" + resultLine("a"))}
	if _, err := Score(supportRubric(), []Input{in}, ScoreOptions{}); err == nil || !strings.Contains(err.Error(), `s.jsonl:1: "rubricgate_shard": expected "input_ids"`) {
		t.Fatalf("%v", err)
	}
}
