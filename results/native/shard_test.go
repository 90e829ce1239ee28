package native

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func shardFile(name string, index, count int, hash string, ids ...string) Input {
	var b strings.Builder
	if index > 0 {
		fmt.Fprintf(&b, `{"rubricgate_shard":{"index":%d,"count":%d,"input_items":4,"input_hash":"%s"}}`+"\n", index, count, hash)
	}
	for _, id := range ids {
		fmt.Fprintf(&b, `{"id":%q,"scores":{"accuracy":4,"resolution":3,"tone":4,"safety":1},"reasoning":"r","judge_model":"m","usage":{"input_tokens":1,"output_tokens":2},"latency_ms":3,"attempts":1}`+"\n", id)
	}
	return Input{Name: name, R: strings.NewReader(b.String())}
}

func TestShardHeaderIsMetadata(t *testing.T) {
	rep, err := Score(supportRubric(), []Input{
		shardFile("s1.jsonl", 1, 2, "sha256:ab", "a", "b"),
		shardFile("s2.jsonl", 2, 2, "sha256:ab", "c", "d"),
	}, ScoreOptions{})
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
	if err := ReadItems(supportRubric(), shardFile("s1.jsonl", 1, 1, "sha256:ab", "a"), ReadOptions{}, func(*Item) error { n++; return nil }); err != nil || n != 1 {
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
			`{"rubricgate_shard":{"index":1,"count":1,"input_items":1,"input_hash":"sha256:ab"}}` + "\n")}
	if _, err := Score(supportRubric(), []Input{in}, ScoreOptions{}); err == nil || !strings.Contains(err.Error(), `x.jsonl:2: missing "id"`) {
		t.Fatalf("a header after the first line: %v", err)
	}
}
