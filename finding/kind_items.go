package finding

import (
	"fmt"
	"strings"
)

// The kinds of the item sets against the baseline.
const (
	// ItemsRemoved: baseline items the run no longer carries (an unscored
	// item is not removed). Count, Items (the first ids), Label when the
	// accept label accepted it or AcceptLabel (the label that would),
	// NewBaseline (a warning on the baseline branch).
	ItemsRemoved Kind = "items-removed"
	// ItemTaskChanged: items that keep a baseline item's id but not its
	// task (their input_hash differs: the question, context or reference
	// was rewritten), each counted as the baseline's item removed and a new
	// one added. Count, Items (the first ids).
	ItemTaskChanged Kind = "item-task-changed"
	// TaskUnboundBaseline: Count items were compared by id alone because
	// the baseline has no input_hash for them (made before the hashes, or
	// from a format that carries no input); the results have one.
	TaskUnboundBaseline Kind = "task-unbound-baseline"
	// TaskUnboundResults: Count items were compared by id alone because
	// the results carry no input_hash for them while the baseline has one.
	TaskUnboundResults Kind = "task-unbound-results"
	// ItemSetsDiffer: items were added or removed since the baseline.
	// Added, Removed, Common.
	ItemSetsDiffer Kind = "item-sets-differ"
)

// itemKinds are the renderers of these kinds (see renderers).
var itemKinds = map[Kind]renderer{
	ItemsRemoved:        renderItemsRemoved,
	ItemTaskChanged:     renderItemTaskChanged,
	TaskUnboundBaseline: renderTaskUnboundBaseline,
	TaskUnboundResults:  renderTaskUnboundResults,
	ItemSetsDiffer:      renderItemSetsDiffer,
}

func renderItemsRemoved(f Finding, e escaper) string {
	s := fmt.Sprintf("ITEMS REMOVED: %d item(s) of the baseline are missing from this run", f.Count) + e.firstOf(f.Items, f.Count)
	switch {
	case f.NewBaseline:
		s += "; this run is on the baseline branch, where the removal was reviewed when it merged: a new baseline starts here"
	case f.Label == "" && f.AcceptLabel != "":
		s += "; a reviewer who accepts the removal adds the " + e.id(f.AcceptLabel) + " label"
	}
	return accepted(e, f, s)
}

func renderItemTaskChanged(f Finding, e escaper) string {
	s := fmt.Sprintf("TASK CHANGED: %d item(s) keep a baseline item's id but not its task (the question, context or reference differs from the baseline's)", f.Count) + e.firstOf(f.Items, f.Count)
	return s + "; each is compared as the baseline's item removed and a new item added"
}

func renderTaskUnboundBaseline(f Finding, e escaper) string {
	return fmt.Sprintf("%d item(s) were compared with the baseline by id alone: the baseline records no input hash for them (made before input hashes, or from results without them), so a changed question under the same id cannot be told", f.Count)
}

func renderTaskUnboundResults(f Finding, e escaper) string {
	return fmt.Sprintf("%d item(s) were compared with the baseline by id alone: these results carry no input_hash for them, so a changed question under the same id cannot be told", f.Count)
}

func renderItemSetsDiffer(f Finding, e escaper) string {
	return fmt.Sprintf("the item sets differ: %d items added, %d removed since the baseline (%d in common)", f.Added, f.Removed, f.Common)
}

// firstOf lists the first maxListed of items, count in all, as ": a, b"
// with " and N more" when count is larger ("" for no items).
func (e escaper) firstOf(items []string, count int) string {
	ids := make([]string, 0, min(len(items), maxListed))
	for _, id := range items[:min(len(items), maxListed)] {
		ids = append(ids, e.id(id))
	}
	if len(ids) == 0 {
		return ""
	}
	s := ": " + strings.Join(ids, ", ")
	if count > len(ids) {
		s += fmt.Sprintf(" and %d more", count-len(ids))
	}
	return s
}
