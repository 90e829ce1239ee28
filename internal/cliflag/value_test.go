package cliflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/internal/usage"
)

type mode string

func parseMode(s string) (mode, error) {
	if s == "on" || s == "off" {
		return mode(s), nil
	}
	return "", fmt.Errorf("mode %q: expected on or off", s)
}

// A Value parses when set; Parse returns the parser's message as a
// *usage.Error, not the flag package's "invalid value ... for flag" text;
// the help shows the default as written and the kind as a string.
func TestValueParsedWhenSet(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var m mode
	var n int
	Enum(fs, &m, "mode", "off", parseMode, "the mode")
	Var(fs, &n, "n", "7", strconv.Atoi, "a number")
	verbose := fs.Bool("v", false, "verbose")
	if m != "off" || n != 7 || fs.Lookup("mode").DefValue != "off" {
		t.Fatalf("defaults: %q %d %q", m, n, fs.Lookup("mode").DefValue)
	}
	if _, err := Parse(fs, []string{"-v", "--mode", "on", "--n=3"}); err != nil || m != "on" || n != 3 || !*verbose {
		t.Fatalf("%v: %q %d %v", err, m, n, *verbose)
	}
	_, err := Parse(fs, []string{"--mode", "maybe"})
	var ue *usage.Error
	if !errors.As(err, &ue) || err.Error() != `mode "maybe": expected on or off` {
		t.Errorf("error %v", err)
	}
	// Other values keep the flag package's wording, which names the flag.
	if _, err := Parse(fs, []string{"-v=maybe"}); err == nil || !strings.Contains(err.Error(), "-v") {
		t.Errorf("bool error %v", err)
	}
	var b strings.Builder
	writeFlag(&b, fs.Lookup("mode"))
	if !strings.Contains(b.String(), "--mode string") || !strings.Contains(b.String(), "(default off)") {
		t.Errorf("help %q", b.String())
	}
}
