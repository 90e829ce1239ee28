package cliflag

import (
	"strconv"
	"strings"
	"time"

	"github.com/rubricgate/rubricgate/internal/usage"
)

// ParseAge reads a duration setting written "30d", "72h" or "0" (never).
func ParseAge(name, s string) (time.Duration, error) {
	t := strings.TrimSpace(s)
	if t == "0" || t == "" {
		return 0, nil
	}
	bad := usage.Errorf("%s %q: expected days like 30d or a duration like 72h", name, s)
	if d, ok := strings.CutSuffix(t, "d"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, bad
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(t)
	if err != nil || d < 0 {
		return 0, bad
	}
	return d, nil
}

// ParseSize reads a size setting written "100MiB", "50MB" or "1048576":
// positive, at most 1 TiB.
func ParseSize(name, s string) (int64, error) {
	t := strings.TrimSpace(s)
	mult := int64(1)
	for _, u := range []struct {
		suf string
		m   int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"B", 1}} {
		if v, ok := strings.CutSuffix(t, u.suf); ok {
			t, mult = strings.TrimSpace(v), u.m
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<40)/mult {
		return 0, usage.Errorf("%s %q: expected a size like 100MiB", name, s)
	}
	return n * mult, nil
}
