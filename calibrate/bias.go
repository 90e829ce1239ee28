package calibrate

import (
	"github.com/rubricgate/rubricgate/finding"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
)

// Thresholds tune the length-bias check. The zero value is not useful; start
// from DefaultThresholds.
type Thresholds struct {
	// MinN is the fewest items with a known length for the check to speak.
	MinN int
	// MaxRho is the Spearman correlation between answer length and score at
	// or above which the judge is suspected of favouring longer answers.
	MaxRho float64
}

// DefaultThresholds warn when at least 20 items give rho >= 0.5: a strong
// rank correlation on a sample large enough not to be noise.
var DefaultThresholds = Thresholds{MinN: 20, MaxRho: 0.5}

// LengthPoint is one item's answer length and score.
type LengthPoint struct {
	ID     string
	Length int
	Score  float64
}

// LengthBias is the outcome of the length-bias check on one score.
type LengthBias struct {
	// Criterion is the criterion id, or "" for the item score.
	Criterion string `json:"criterion"`
	// N counts items with a known length (>= 0) and a score.
	N int `json:"n"`
	// Rho is Spearman's rank correlation; null when undefined (n < 2 or no
	// variation in length or score).
	Rho *float64 `json:"rho"`
	// Warn is true when N >= MinN and Rho >= MaxRho.
	Warn bool `json:"warn"`
	// Message explains a warning (the text of Finding); empty otherwise.
	Message string `json:"message"`

	maxRho float64 // the threshold Rho reached, for Finding
}

// Finding is the warning a check that warns gives, typed
// (finding.LengthBias); the zero Finding when it does not warn.
func (lb LengthBias) Finding() finding.Finding {
	if !lb.Warn || lb.Rho == nil {
		return finding.Finding{}
	}
	return finding.Finding{Kind: finding.LengthBias, Severity: finding.Warning, Criterion: lb.Criterion,
		Params: finding.Params{Count: lb.N, JudgeParams: finding.JudgeParams{Rho: *lb.Rho, MaxRho: lb.maxRho}}}
}

// CheckLengthBias computes Spearman's rho between answer length and score
// over points with a known length (Length >= 0) and warns when the judge
// seems to favour longer answers. Only a positive correlation
// warns: that is the known judge bias.
func CheckLengthBias(criterion string, points []LengthPoint, th Thresholds) LengthBias {
	lb := LengthBias{Criterion: criterion}
	var xs, ys []float64
	for _, p := range points {
		if p.Length < 0 {
			continue
		}
		xs = append(xs, float64(p.Length))
		ys = append(ys, p.Score)
	}
	lb.N = len(xs)
	if rho, ok := Spearman(xs, ys); ok {
		lb.Rho = &rho
	}
	if lb.Rho != nil && lb.N >= th.MinN && *lb.Rho >= th.MaxRho {
		lb.Warn, lb.maxRho = true, th.MaxRho
		lb.Message = lb.Finding().Text()
	}
	return lb
}

// LengthBiasOf runs CheckLengthBias on judge ratings for the item score
// (first, Criterion "") and for every criterion with weight or a gate, in
// rubric order. The item score is the weighted mean of the normalised scores
// of the criteria the item scored (na and missing left out), times 100;
// items with a judge error, no scored criterion or an unknown length are
// left out.
func LengthBiasOf(rb *rubric.Rubric, ratings []Rating, th Thresholds) []LengthBias {
	item := make([]LengthPoint, 0, len(ratings))
	per := make([][]LengthPoint, len(rb.Criteria))
	for i := range ratings {
		r := &ratings[i]
		if r.Error != "" || r.Length < 0 {
			continue
		}
		var sum, wsum float64
		for ci := range rb.Criteria {
			c := &rb.Criteria[ci]
			v := r.value(ci)
			if v.State != gate.Scored {
				continue
			}
			per[ci] = append(per[ci], LengthPoint{ID: r.ID, Length: r.Length, Score: float64(v.Score)})
			sum += c.Weight * c.Normalize(v.Score)
			wsum += c.Weight
		}
		if wsum > 0 {
			item = append(item, LengthPoint{ID: r.ID, Length: r.Length, Score: 100 * sum / wsum})
		}
	}
	out := []LengthBias{CheckLengthBias("", item, th)}
	for ci := range rb.Criteria {
		out = append(out, CheckLengthBias(rb.Criteria[ci].ID, per[ci], th))
	}
	return out
}
