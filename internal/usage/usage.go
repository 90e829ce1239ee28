// Package usage marks the errors that are a mistake in a setting as the
// user gave it (a flag or an action input), as opposed to a file or a
// service that failed: the command reports them with a pointer to its usage.
// Libraries that check settings (results, judge, pipeline) return them.
package usage

import (
	"errors"
	"fmt"
)

// Error is a mistake in a setting; Msg names the setting and what was
// expected. Err, when set, is the error it was made from.
type Error struct {
	Msg string
	Err error
}

func (e *Error) Error() string { return e.Msg }

// Unwrap returns the error the mistake was made from, if any.
func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an Error from a format, as fmt.Errorf does: a %w verb
// keeps its operand in the chain.
func Errorf(format string, a ...any) error {
	err := fmt.Errorf(format, a...)
	return &Error{Msg: err.Error(), Err: errors.Unwrap(err)}
}

// Wrap makes err a setting mistake with its message, keeping err in the
// chain (nil stays nil).
func Wrap(err error) error {
	if err == nil {
		return nil
	}
	return &Error{Msg: err.Error(), Err: err}
}
