// Package fraction reads the share settings of the gate (max-drop,
// max-unscored, min-agreement, ...): one parser, so every setting takes the
// same forms and refuses the same inputs. A share written wrong is a
// *usage.Error: a mistake in the setting as the user gave it.
package fraction

import (
	"math"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/internal/usage"
)

// Parse reads a share written as a percentage ("5%", " 5 % ") or as a
// fraction ("0.05"), between 0 and 1 inclusive. name names the setting in
// the error. NaN, infinities and hexadecimal floats are refused.
func Parse(name, s string) (float64, error) {
	t := strings.TrimSpace(s)
	pct := strings.HasSuffix(t, "%")
	t = strings.TrimSpace(strings.TrimSuffix(t, "%"))
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || strings.ContainsAny(t, "xXpPnNiI") {
		return 0, usage.Errorf("%s %q: expected a percentage like 5%% or a fraction like 0.05", name, s)
	}
	if pct {
		v /= 100
	}
	if !pct && v > 1 && v <= 100 {
		return 0, usage.Errorf("%s %q: expected a share between 0 and 1 (0%% to 100%%); did you mean %s%%?", name, s, t)
	}
	if v < 0 || v > 1 {
		return 0, usage.Errorf("%s %q: expected a share between 0 and 1 (0%% to 100%%)", name, s)
	}
	return v, nil
}

// ParsePositive is Parse refusing 0: a share in (0, 1], such as an
// agreement target.
func ParsePositive(name, s string) (float64, error) {
	v, err := Parse(name, s)
	if err == nil && v == 0 {
		return 0, usage.Errorf("%s %q: expected a share above 0, up to 1 (100%%)", name, s)
	}
	return v, err
}

// Percent writes f as Parse reads it back: 0.02 as "2%". It is how a
// default held as a fraction (gate.DefaultThresholds) becomes a flag's
// default text, so the value has one source.
func Percent(f float64) string { return strconv.FormatFloat(100*f, 'f', -1, 64) + "%" }
