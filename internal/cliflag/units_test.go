package cliflag

import (
	"strings"
	"testing"
	"time"
)

func TestParseAgeAndSize(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "72h": 72 * time.Hour, "0": 0, "": 0, " 1d ": 24 * time.Hour} {
		if got, err := ParseAge("age", in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"-1d", "xd", "-5h", "soon"} {
		if _, err := ParseAge("age", in); err == nil {
			t.Errorf("ParseAge(%q) accepted", in)
		}
	}
	for in, want := range map[string]int64{"100MiB": 100 << 20, "50MB": 50e6, "1048576": 1 << 20, "2 KiB": 2048, "1GiB": 1 << 30} {
		if got, err := ParseSize("size", in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %v, %v", in, got, err)
		}
	}
	for _, in := range []string{"0", "-1MiB", "lots", "2000GiB", "MiB"} {
		if _, err := ParseSize("max-report", in); err == nil || !strings.Contains(err.Error(), "max-report") {
			t.Errorf("ParseSize(%q): %v", in, err)
		}
	}
}
