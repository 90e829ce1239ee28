package judge

import (
	"errors"
	"flag"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/rubricgate/rubricgate/family"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// The judge command's flags default to DefaultOptions, and the one-step
// gate's subset leaves every setting it does not expose at those defaults
// (the seed, retries and timeouts the gate has no flag for).
func TestFlagDefaults(t *testing.T) {
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	var o Options
	o.Flags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	if want := DefaultOptions(); !reflect.DeepEqual(o, want) {
		t.Errorf("judge flags' defaults:\n got %+v\nwant %+v", o, want)
	}

	gs := flag.NewFlagSet("gate", flag.ContinueOnError)
	gs.SetOutput(io.Discard)
	var g Options
	g.Seed, g.MaxRetries = 99, 99 // whatever was there is reset
	g.GateFlags(gs)
	if err := gs.Parse([]string{"--samples", "3", "--judge-provider", "anthropic", "--judge-cache", "c"}); err != nil {
		t.Fatal(err)
	}
	want := DefaultOptions()
	want.Samples, want.Provider, want.Cache = 3, "anthropic", "c"
	if !reflect.DeepEqual(g, want) {
		t.Errorf("gate judge flags:\n got %+v\nwant %+v", g, want)
	}
	if g.Timeout != 0 || g.MaxRetries != 6 || g.Seed != 1 || g.AnthropicVersion != AnthropicCurrent || g.KeyHeader != KeyBearer {
		t.Errorf("defaults the gate has no flag for: %+v", g)
	}
	if gs.Lookup("model") != nil || gs.Lookup("seed") != nil {
		t.Error("the gate declares the judge command's own flags")
	}
}

// The judge's choice flags are typed settings: a value they do not take is
// the setting's own one-line usage error when the flag is parsed.
func TestJudgeChoiceFlagsAreTyped(t *testing.T) {
	for _, tc := range []struct{ flag, value, want string }{
		{"provider", "gemini", `--provider "gemini": expected openai, anthropic or azure`},
		{"anthropic-version", "2024-01-01", `--anthropic-version "2024-01-01"`},
		{"anthropic-key-header", "cookie", `--anthropic-key-header "cookie"`},
		{"progress", "loud", `--progress "loud"`},
		{"same-family", "maybe", "--same-family"},
	} {
		fs := flag.NewFlagSet("judge", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		var o Options
		o.Flags(fs)
		_, err := cliflag.Parse(fs, []string{"--" + tc.flag, tc.value})
		var ue *usage.Error
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("--%s %s: %v", tc.flag, tc.value, err)
		}
	}
	fs := flag.NewFlagSet("judge", flag.ContinueOnError)
	var o Options
	o.Flags(fs)
	if _, err := cliflag.Parse(fs, []string{"--provider", "Azure", "--anthropic-version", "2023-06-01", "--same-family", "warn"}); err != nil ||
		o.Provider != ProviderAzure || o.AnthropicVersion != AnthropicPinned || o.SameFamily != family.FamilyWarn {
		t.Errorf("%+v %v", o, err)
	}
}
