package main

import (
	"os"
	"sync"
	"sync/atomic"
)

// runTrials runs trials trial(w, t) on c.workers workers, each with a
// scratch directory of its own outside any git checkout: results[t] is
// trial t's. The first error stops the workers and is returned.
func runTrials[T any](c *config, trials int, trial func(w *worker, t int) (T, error)) ([]T, error) {
	results := make([]T, trials)
	errs := make([]error, trials)
	var next atomic.Int64
	var failed atomic.Bool
	var wg sync.WaitGroup
	var ws []*worker
	for range max(1, min(c.workers, trials)) {
		dir, err := os.MkdirTemp("", "noisesim-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(dir)
		if err := outsideGit(dir); err != nil {
			return nil, err
		}
		ws = append(ws, &worker{c: c, dir: dir})
	}
	for _, w := range ws {
		wg.Go(func() {
			for !failed.Load() {
				t := int(next.Add(1)) - 1
				if t >= trials {
					return
				}
				if results[t], errs[t] = trial(w, t); errs[t] != nil {
					failed.Store(true)
					return
				}
			}
		})
	}
	wg.Wait()
	for t := range trials {
		if errs[t] != nil {
			return nil, errs[t]
		}
	}
	return results, nil
}
