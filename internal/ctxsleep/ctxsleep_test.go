package ctxsleep

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestSleep(t *testing.T) {
	if err := Sleep(context.Background(), time.Millisecond); err != nil {
		t.Errorf("sleep: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := Sleep(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled sleep: %v", err)
	}
	// A cancelled context wins over a zero wait, every time.
	for range 100 {
		if err := Sleep(ctx, 0); !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled zero sleep: %v", err)
		}
	}
	if err := Sleep(context.Background(), -time.Second); err != nil {
		t.Errorf("negative sleep: %v", err)
	}
}
