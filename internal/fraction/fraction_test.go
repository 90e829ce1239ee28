package fraction

import (
	"errors"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/usage"
)

func TestParse(t *testing.T) {
	good := map[string]float64{"2%": 0.02, "0.02": 0.02, " 5 % ": 0.05, "0": 0, "100%": 1, "1": 1, "0%": 0}
	for in, want := range good {
		if got, err := Parse("max-drop", in); err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "two", "NaN", "nan", "-1%", "150%", "1.5", "0x1p-2", "Inf", "-inf", "%", "5%%"} {
		_, err := Parse("max-unscored", in)
		if err == nil {
			t.Errorf("Parse(%q) accepted", in)
		} else if !strings.HasPrefix(err.Error(), "max-unscored ") {
			t.Errorf("Parse(%q) error %q does not name the setting", in, err)
		} else if u := (*usage.Error)(nil); !errors.As(err, &u) {
			t.Errorf("Parse(%q) error %T is not a setting mistake", in, err)
		}
	}
}

func TestParsePositive(t *testing.T) {
	if v, err := ParsePositive("min-agreement", "80%"); err != nil || v != 0.8 {
		t.Errorf("80%% = %v, %v", v, err)
	}
	for _, in := range []string{"0", "0%", "-0", "1.01"} {
		if _, err := ParsePositive("min-agreement", in); err == nil {
			t.Errorf("ParsePositive(%q) accepted", in)
		}
	}
}

// Percent's text parses back to the same fraction, for the defaults that
// become flag defaults.
func TestPercentRoundTrip(t *testing.T) {
	for _, f := range []float64{0.02, 0.05, 0.1, 0.015, 0, 1} {
		s := Percent(f)
		if got, err := Parse("x", s); err != nil || got != f {
			t.Errorf("Percent(%v) = %q, parses to %v, %v", f, s, got, err)
		}
	}
	if Percent(0.02) != "2%" {
		t.Errorf("Percent(0.02) = %q", Percent(0.02))
	}
}
