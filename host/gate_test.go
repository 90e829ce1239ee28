package host

import (
	"math"
	"testing"
)

// Outputs are for people: float noise from the arithmetic is rounded away
// (one decimal for scores, four significant digits for the change).
func TestOutputNumbers(t *testing.T) {
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{81.25000000000001, "81.3"},
		{75.89285714285715, "75.9"},
		{100, "100.0"},
		{0, "0.0"},
	} {
		if got := OutputScore(tc.f); got != tc.want {
			t.Errorf("OutputScore(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    float64
		want string
	}{
		{-0.06593406593406598, "-0.06593"},
		{0.020000000000000018, "0.02"},
		{-0.019999999999999574, "-0.02"},
		{0, "0"},
		{math.Copysign(0, -1), "0"},
		{1.23456789e-7, "0.0000001235"},
		{-1, "-1"},
		{12.3456, "12.35"},
	} {
		if got := OutputChange(tc.f); got != tc.want {
			t.Errorf("OutputChange(%v) = %q, want %q", tc.f, got, tc.want)
		}
	}
}
