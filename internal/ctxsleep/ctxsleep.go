// Package ctxsleep is the one sleep that a context cuts short, used by the
// retrying clients (the judge's rate limiter, the GitHub baseline store).
package ctxsleep

import (
	"context"
	"time"
)

// Sleep waits d or until ctx is done, whichever comes first, and returns
// ctx.Err() when the context ended the wait. A d of zero or less does not
// wait: it returns ctx.Err() at once.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
