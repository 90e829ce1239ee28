package judge

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// progress reports items (or answers) done, rate, ETA, cache hits and
// errors: a bar redrawn in place on a terminal, plain lines at an
// interval otherwise.
type progress struct {
	w        io.Writer
	tty      bool
	unit     string // what total counts: "items", or "answers"
	interval time.Duration
	total    int
	start    time.Time
	done     atomic.Int64
	hits     atomic.Int64
	errs     atomic.Int64
	stop     chan struct{}
	wg       sync.WaitGroup
}

func newProgress(w io.Writer, tty bool, interval time.Duration, total int, unit string) *progress {
	if interval <= 0 {
		interval = 10 * time.Second
		if tty {
			interval = 200 * time.Millisecond
		}
	}
	return &progress{w: w, tty: tty, unit: unit, interval: interval, total: total, start: time.Now(), stop: make(chan struct{})}
}

func (p *progress) run() {
	if p == nil || p.w == nil {
		return
	}
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			select {
			case <-t.C:
				p.print(false)
			case <-p.stop:
				return
			}
		}
	}()
}

func (p *progress) finish() {
	if p == nil || p.w == nil {
		return
	}
	close(p.stop)
	p.wg.Wait()
	p.print(true)
}

func (p *progress) item(hit, failed bool) {
	if p == nil {
		return
	}
	p.done.Add(1)
	if hit {
		p.hits.Add(1)
	}
	if failed {
		p.errs.Add(1)
	}
}

func (p *progress) line() string {
	done := p.done.Load()
	el := time.Since(p.start)
	rate := 0.0
	if el > 0 {
		rate = float64(done) / el.Seconds()
	}
	eta := "?"
	if rate > 0 && int(done) < p.total {
		eta = time.Duration(float64(int64(p.total)-done) / rate * float64(time.Second)).Round(time.Second).String()
	} else if int(done) >= p.total {
		eta = "0s"
	}
	return fmt.Sprintf("%d/%d %s, %.1f/s, ETA %s, %d cached, %d errors", done, p.total, p.unit, rate, eta, p.hits.Load(), p.errs.Load())
}

func (p *progress) print(final bool) {
	if !p.tty {
		fmt.Fprintf(p.w, "judge: %s\n", p.line())
		return
	}
	const width = 30
	frac := 0.0
	if p.total > 0 {
		frac = float64(p.done.Load()) / float64(p.total)
	}
	n := int(frac * width)
	bar := strings.Repeat("#", n) + strings.Repeat("-", width-n)
	end := ""
	if final {
		end = "\n"
	}
	fmt.Fprintf(p.w, "\r[%s] %3.0f%% %s\x1b[K%s", bar, frac*100, p.line(), end)
}
