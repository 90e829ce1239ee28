package cliflag

import (
	"errors"
	"flag"

	"github.com/rubricgate/rubricgate/internal/usage"
)

// Value is a flag.Value that parses its text when the flag is set, as
// cmd/go's base/flag.go values do: the parsed setting is stored in P and
// the text as given is kept for String (the help's default). A mistake is
// the parser's own error as a *usage.Error, which [Parse] returns as it is
// (not the flag package's "invalid value ... for flag" wrapping).
type Value[T any] struct {
	P     *T
	text  string
	parse func(string) (T, error)
}

// Var declares a flag of a setting of type T on fs: def is its default as
// written (parsed into *p now), parse reads a value given.
func Var[T any](fs *flag.FlagSet, p *T, name, def string, parse func(string) (T, error), help string) {
	v := &Value[T]{P: p, text: def, parse: parse}
	if x, err := parse(def); err == nil {
		*p = x
	}
	fs.Var(v, name, help)
}

// Set parses s into the setting.
func (v *Value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err != nil {
		return usage.Wrap(err)
	}
	*v.P, v.text = x, s
	return nil
}

// String is the text the setting was given as (its default until set).
func (v *Value[T]) String() string {
	if v == nil {
		return ""
	}
	return v.text
}

// writtenAsText marks a Value for the help: it is given as a string.
func (v *Value[T]) writtenAsText() {}

// Enum is the flag.Value of a string kind whose values are named
// constants: the kind's parser checks the text when the flag is set.
func Enum[T ~string](fs *flag.FlagSet, p *T, name string, def T, parse func(string) (T, error), help string) {
	Var(fs, p, name, string(def), parse, help)
}

// recorder wraps a flag's Value to keep the error its Set returned, so
// [Parse] can return a *usage.Error as the Value made it.
type recorder struct {
	flag.Value
	err *error
}

func (r recorder) Set(s string) error {
	err := r.Value.Set(s)
	if err != nil {
		*r.err = err
	}
	return err
}

// boolRecorder is a recorder of a boolean flag (-name without a value).
type boolRecorder struct{ recorder }

func (r boolRecorder) IsBoolFlag() bool { return true }

// recordSets wraps every flag of fs in a recorder and returns the function
// that puts the Values back.
func recordSets(fs *flag.FlagSet, err *error) (restore func()) {
	saved := map[*flag.Flag]flag.Value{}
	fs.VisitAll(func(f *flag.Flag) {
		saved[f] = f.Value
		r := recorder{Value: f.Value, err: err}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			f.Value = boolRecorder{r}
		} else {
			f.Value = r
		}
	})
	return func() {
		for f, v := range saved {
			f.Value = v
		}
	}
}

// setError is the *usage.Error a Value's Set returned, nil when the error
// was another (the flag package's own wording is kept for those).
func setError(err error) error {
	var ue *usage.Error
	if errors.As(err, &ue) {
		return ue
	}
	return nil
}
