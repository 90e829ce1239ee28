package usage

import (
	"errors"
	"fmt"
	"testing"
)

func TestErrorIsFoundThroughWrapping(t *testing.T) {
	err := fmt.Errorf("gate: %w", Errorf("--tier %q: expected one of %s", "33", "10,25"))
	var u *Error
	if !errors.As(err, &u) || u.Msg != `--tier "33": expected one of 10,25` {
		t.Fatalf("%v", err)
	}
	if Wrap(nil) != nil {
		t.Fatal("Wrap(nil) is not nil")
	}
	cause := errors.New("bad")
	if err := Errorf("--metric: %w", cause); !errors.As(err, &u) || u.Msg != "--metric: bad" || !errors.Is(err, cause) {
		t.Fatalf("Errorf with %%w: %v", err)
	}
	if err := Wrap(cause); !errors.As(err, &u) || u.Msg != "bad" || !errors.Is(err, cause) {
		t.Fatal("Wrap lost the message or the cause")
	}
}
