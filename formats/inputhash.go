package formats

import (
	"strings"

	"github.com/rubricgate/rubricgate/gate"
)

// The readers of formats whose files carry each item's input bind the item
// to its task with gate.HashTask, as rubricgate judge does: a pull request
// that rewrites a regressed item's question under the same id then compares
// as the baseline's item removed and a new one added. Where the input is
// missing, or not in the plain form read here, the record has no hash and
// is compared by id (the gate says so once).

// deepevalTask hashes a deepeval test case's input, its context and
// retrievalContext (both lists of strings, joined with blank lines, the
// context first, separated from the retrieval context by a line "---"),
// and its expectedOutput. Zero when input is not a string (a conversational
// test case) or a list holds anything but strings.
func deepevalTask(tc node) gate.InputHash {
	in := tc.at("input")
	if in.missing() || in.v.kind != kString {
		return gate.InputHash{}
	}
	ctx, ok := strList(tc.at("context"))
	if !ok {
		return gate.InputHash{}
	}
	rctx, ok := strList(tc.at("retrievalContext"))
	if !ok {
		return gate.InputHash{}
	}
	if rctx != "" {
		ctx += "\n\n---\n\n" + rctx
	}
	ref := tc.at("expectedOutput")
	if !ref.missing() && !ref.null() && ref.v.kind != kString {
		return gate.InputHash{}
	}
	r := ""
	if !ref.missing() && !ref.null() {
		r = ref.v.s
	}
	return gate.HashTask(in.v.s, ctx, r)
}

// strList joins a list of strings with blank lines ("" when absent or
// null); ok is false for anything else.
func strList(n node) (string, bool) {
	if n.missing() || n.null() {
		return "", true
	}
	if n.v.kind != kArray {
		return "", false
	}
	parts := make([]string, len(n.v.arr))
	for i := range n.v.arr {
		e := n.index(i)
		if e.missing() || e.v.kind != kString {
			return "", false
		}
		parts[i] = e.v.s
	}
	return strings.Join(parts, "\n\n"), true
}

// ragasTask hashes a ragas row's question (user_input or question, at
// textCol), its retrieved contexts (retrieved_contexts or contexts) and its
// reference (reference or ground_truth), each cell's text as the file holds
// it (ragas writes a list of contexts as its Python form: the hash binds
// that text, which ragas writes the same way each run).
func ragasTask(head, cells []string, textCol int) gate.InputHash {
	cell := func(names ...string) string {
		for _, name := range names {
			for i, h := range head {
				if h == name && i < len(cells) {
					return cells[i]
				}
			}
		}
		return ""
	}
	return gate.HashTask(cells[textCol], cell("retrieved_contexts", "contexts"), cell("reference", "ground_truth"))
}

// promptfooTask hashes a promptfoo row's test vars (the test case's, else
// the row's), in canonical JSON form (keys sorted) as the input. The prompt
// is not part of it: a changed prompt is what a promptfoo run evaluates
// (and with several prompts each is part of the id). Zero without vars.
func promptfooTask(row, tc node) gate.InputHash {
	vars := tc.at("vars")
	if vars.missing() || vars.null() {
		vars = row.at("vars")
	}
	if vars.missing() || vars.v.kind != kObject {
		return gate.InputHash{}
	}
	var b strings.Builder
	canonical(vars.v, &b)
	return gate.HashTask(b.String(), "", "")
}

// inspectTask hashes an Inspect sample's input (a string, or its chat
// messages in canonical JSON form) and its target (likewise) as the
// reference. Zero without an input.
func inspectTask(sample node) gate.InputHash {
	in := sample.at("input")
	if in.missing() || in.null() {
		return gate.InputHash{}
	}
	return gate.HashTask(plainOrCanonical(in), "", plainOrCanonical(sample.at("target")))
}

// plainOrCanonical is a string's text, "" for nothing, else the value's
// canonical JSON form.
func plainOrCanonical(n node) string {
	switch {
	case n.missing() || n.null():
		return ""
	case n.v.kind == kString:
		return n.v.s
	}
	var b strings.Builder
	canonical(n.v, &b)
	return b.String()
}
