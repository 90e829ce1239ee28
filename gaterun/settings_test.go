package gaterun

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/rubricgate/rubricgate/host"
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
		c.MaxArchive != 100<<20 || c.OnBaselineError != BaselineErrorFail || c.CommentMode != host.CommentAuto || c.MaxUnscored != 0 {
		t.Errorf("defaults: %+v", c)
	}
	if co := c.CommentOptions(); co.Author != host.DefaultCommentAuthor || co.Mode != host.CommentAuto {
		t.Errorf("comment options %+v", co)
	}
}

// Every bad setting is a *usage.Error (a usage error, exit 2) that names
// the setting.
func TestSettingsErrors(t *testing.T) {
	for _, tc := range []struct {
		set  func(*Settings)
		want string
	}{
		{func(s *Settings) { s.MaxDrop = "two" }, "max-drop"},
		{func(s *Settings) { s.NoisyDrop = "maybe" }, "noisy"},
		{func(s *Settings) { s.HardDrop = "5 percent" }, "hard-drop"},
		{func(s *Settings) { s.MaxUnscored = "150%" }, "max-unscored"},
		{func(s *Settings) { s.MaxBaselineAge = "a month" }, "max-baseline-age"},
		{func(s *Settings) { s.MaxArchive = "0" }, "max-archive"},
		{func(s *Settings) { s.IfNoBaseline = "maybe" }, "if-no-baseline"},
		{func(s *Settings) { s.OnBaselineError = "retry" }, "on-baseline-error"},
		{func(s *Settings) { s.Comment = "sometimes" }, "comment"},
		{func(s *Settings) { s.BaselineFile, s.BaselineDir = "a.json", "dir" }, "not both"},
		{func(s *Settings) { s.Accept = "  " }, "accept: give the reason"},
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

func TestIsUsage(t *testing.T) {
	_, err := (&Settings{MaxDrop: "x"}).Parse()
	if !IsUsage(err) || !IsUsage(fmt.Errorf("wrapped: %w", host.Configf("no token"))) || IsUsage(errors.New("disk full")) || IsUsage(nil) {
		t.Error("IsUsage")
	}
}
