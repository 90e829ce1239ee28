// Package usage marks the errors that are a mistake in a setting as the
// user gave it (a flag or an action input), as opposed to a file or a
// service that failed: the command reports them with a pointer to its usage.
// Libraries that check settings (results, judge, pipeline) return them.
package usage

import "fmt"

// Error is a mistake in a setting; Msg names the setting and what was
// expected.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Errorf makes an Error from a format.
func Errorf(format string, a ...any) error { return &Error{fmt.Sprintf(format, a...)} }

// Wrap makes err a setting mistake keeping its message (nil stays nil).
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{err.Error()}
}
