package gate

import (
	"github.com/rubricgate/rubricgate/finding"
)

// RemovedItems records baseline items that the run no longer carries. A
// pull request must not remove the items it regressed: it blocks unless the
// accept label is on (a warning on the baseline branch).
type RemovedItems struct {
	Count int      `json:"count"`
	IDs   []string `json:"ids"`
	// Accepted is true when the accept label accepted the removal.
	Accepted bool `json:"accepted"`
}

// itemSetsRule warns when items were added or removed since the baseline
// (p nil: no baseline).
func itemSetsRule(p *Paired) ruling {
	if p == nil || (p.Added == 0 && p.Removed == 0) {
		return ruling{}
	}
	return ruling{Warn: []finding.Finding{{Kind: finding.ItemSetsDiffer, Params: finding.Params{ItemSetParams: finding.ItemSetParams{Added: p.Added, Removed: p.Removed, Common: p.Common}}}}}
}

// removedItemsRule: a pull request must not remove the items it
// regressed. Baseline items the run no longer carries (an unscored item
// is not removed) are a change the accept label waives, recorded in the
// report (removed, nil when none).
func removedItemsRule(p *Paired) (r ruling, removed *RemovedItems) {
	if p == nil || p.Removed == 0 {
		return ruling{}, nil
	}
	ids := append([]string{}, p.RemovedIDs...)
	f := finding.Finding{Kind: finding.ItemsRemoved, Params: finding.Params{Count: p.Removed, Items: ids[:min(len(ids), 5)]}}
	return ruling{Waivable: []finding.Finding{f}, Waivers: []Waiver{WaiveRemovedItems}}, &RemovedItems{Count: p.Removed, IDs: ids}
}

// taskRule warns about items whose task changed under their id, and items
// compared by id alone (see taskFindings).
func taskRule(p *Paired) ruling {
	var r ruling
	if p != nil {
		taskFindings(p, func(f finding.Finding) { r.Warn = append(r.Warn, f) })
	}
	return r
}
