package gate

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// The report carries the baseline's trend and this run's compared score,
// with the relative interval applied to the baseline's score; not
// comparable (a rubric change it could not follow), the point is left out.
func TestDecideCarriesTrend(t *testing.T) {
	b := base(80)
	day := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	b.Trend = []TrendPoint{
		{Score: 78, SHA: "0123456789abcdef0123456789abcdef01234567", Date: day, Criteria: []CriterionMean{{ID: "accuracy", Normalized: fptr(78)}}},
		{Score: 80, Date: day.Add(24 * time.Hour), Criteria: []CriterionMean{{ID: "accuracy", Normalized: fptr(80)}}},
	}
	g := decide(runReport(79), b, nil)
	if g.Trend == nil || len(g.Trend.Points) != 2 || g.Trend.Current == nil || *g.Trend.Current != 79 {
		t.Fatalf("trend %+v", g.Trend)
	}
	if g.CI95 != nil {
		t.Fatalf("no paired items, yet an interval %v", g.CI95)
	}
	g.CI95 = &[2]float64{-0.05, 0.01}
	tr := TrendOf(b, g)
	if tr.CI95 == nil || math.Abs(tr.CI95[0]-76) > 1e-9 || math.Abs(tr.CI95[1]-80.8) > 1e-9 {
		t.Errorf("interval %v, want 76 .. 80.8", tr.CI95)
	}
	data, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"trend":{"points":[{"score":78,"criteria":[{"id":"accuracy","normalized":78}],"sha":"0123456789abcdef0123456789abcdef01234567","date":"2026-11-01T00:00:00Z"}`) {
		t.Errorf("JSON report lacks the trend: %s", data)
	}
	other := base(80)
	other.RubricHash = "sha256:bbbb"
	other.Trend = b.Trend
	if g := decide(runReport(79), other, nil); g.Trend == nil || g.Trend.Current != nil {
		t.Errorf("not comparable: trend %+v, want the baselines without this run", g.Trend)
	}
	if g := decide(runReport(79), base(80), nil); g.Trend != nil {
		t.Errorf("a baseline without history gave a trend %+v", g.Trend)
	}
	if g := decide(runReport(79), nil, nil); g.Trend != nil {
		t.Errorf("no baseline gave a trend %+v", g.Trend)
	}
}
