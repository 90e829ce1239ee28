package gaterun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/host"
	"github.com/rubricgate/rubricgate/internal/cliflag"
	"github.com/rubricgate/rubricgate/internal/usage"
)

// defaults returns the settings as the flags leave them.
func defaults(t *testing.T) *Settings {
	t.Helper()
	var s Settings
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	s.Flags(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	return &s
}

func TestSettingsDefaults(t *testing.T) {
	c, err := defaults(t).Parse()
	if err != nil {
		t.Fatal(err)
	}
	if c.Thresholds.MaxDrop != 0.02 || c.Thresholds.HardDrop != 0.05 || c.Thresholds.MaxBaselineAge != 30*24*time.Hour ||
		c.MaxArchive != 100<<20 || c.OnBaselineError != BaselineErrorFail || c.Comment != host.CommentAuto || c.MaxUnscored != 0 {
		t.Errorf("defaults: %+v", c)
	}
	if co := c.CommentOptions(); co.Author != host.DefaultCommentAuthor || co.Mode != host.CommentAuto {
		t.Errorf("comment options %+v", co)
	}
}

// Every bad setting is a *usage.Error (a usage error, exit 2) that names
// the setting, found when the flag is set: through cliflag.Parse its
// message is the setting's own, not the flag package's wrapping.
func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-drop", "two"}, `max-drop "two"`},
		{[]string{"--noisy-drop=maybe"}, `noisy-drop "maybe": expected block, warn or rerun`},
		{[]string{"--hard-drop", "5 percent"}, "hard-drop"},
		{[]string{"--max-unscored", "150%"}, "max-unscored"},
		{[]string{"--max-baseline-age", "a month"}, `max-baseline-age "a month": expected days like 30d`},
		{[]string{"--max-archive", "0"}, `max-archive "0": expected a size like 100MiB`},
		{[]string{"--if-no-baseline", "maybe"}, `if-no-baseline "maybe": expected pass or fail`},
		{[]string{"--on-baseline-error", "retry"}, `on-baseline-error "retry": expected fail or pass`},
		{[]string{"--on-rubric-change", "ignore"}, `on-rubric-change "ignore": expected block or fail`},
		{[]string{"--comment", "sometimes"}, `comment "sometimes": expected auto, always or never`},
	} {
		var s Settings
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		s.Flags(fs)
		_, err := cliflag.Parse(fs, tc.args)
		var se *usage.Error
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%v: %v, want %q first", tc.args, err, tc.want)
		}
	}
	// What no single flag can check is Parse's.
	for _, tc := range []struct {
		set  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.BaselineFile, s.BaselineDir = "a.json", "dir" }, "not both"},
		{func(s *Settings) { s.Accept = "  " }, "accept: give the reason"},
		{func(s *Settings) { s.IfNoBaseline = "maybe" }, "if-no-baseline"},
		{func(s *Settings) { s.NoisyDrop = "maybe" }, "noisy-drop"},
		{func(s *Settings) { s.OnBaselineError = "retry" }, "on-baseline-error"},
		{func(s *Settings) { s.Comment = "sometimes" }, "comment"},
	} {
		s := defaults(t)
		tc.set(s)
		_, err := s.Parse()
		var se *usage.Error
		if !errors.As(err, &se) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v", tc.want, err)
		}
	}
}

// The typed settings take the values given, parsed once.
func TestSettingsParsedWhenSet(t *testing.T) {
	var s Settings
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	s.Flags(fs)
	if _, err := cliflag.Parse(fs, []string{"--max-drop", "3%", "--max-baseline-age", "2d", "--max-archive", "1KiB",
		"--if-no-baseline", "fail", "--on-rubric-change", "fail", "--comment", "never", "--noisy-drop", "warn"}); err != nil {
		t.Fatal(err)
	}
	if s.MaxDrop != 0.03 || s.MaxBaselineAge != 48*time.Hour || s.MaxArchive != 1024 || s.IfNoBaseline != gate.NoBaselineFail ||
		s.OnRubricChange != gate.RubricChangeFail || s.Comment != host.CommentNever || s.NoisyDrop != gate.NoisyWarn {
		t.Errorf("%+v", s)
	}
	if d := fs.Lookup("max-drop").DefValue; d != "2%" {
		t.Errorf("max-drop default shown as %q", d)
	}
}

func TestIsUsage(t *testing.T) {
	_, err := (&Settings{IfNoBaseline: "x"}).Parse()
	if !IsUsage(err) || !IsUsage(fmt.Errorf("wrapped: %w", host.Configf("no token"))) || IsUsage(errors.New("disk full")) || IsUsage(nil) {
		t.Error("IsUsage")
	}
}
