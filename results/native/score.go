package native

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"io"
	"runtime"
	"strings"
	"sync"

	"github.com/rubricgate/rubricgate/internal/shardid"
	"github.com/rubricgate/rubricgate/rubric"
)

// chunkSize is the buffer size of a JSON-lines chunk; csvChunkRows the rows
// of a review-sheet chunk.
const (
	chunkSize    = 256 << 10
	csvChunkRows = 1024
)

// ScoreOptions tune Score.
type ScoreOptions struct {
	// MaxUnscored is the share of unscored items the run tolerates (0-1).
	MaxUnscored float64
	// Workers is the number of decoding goroutines (0: GOMAXPROCS).
	Workers int
	// Read tunes the readers.
	Read ReadOptions
	// OnItem, when set, receives every item's result in input order, in
	// an ItemResult reused from call to call (copy what you keep).
	OnItem func(*gate.ItemResult) error
	// WantReasoning, when set, is asked before OnItem whether it needs the
	// item's Reasoning (see gate.Tally.Each); nil: every item's.
	WantReasoning func(*gate.ItemResult) bool
}

// job is a chunk on its way through the pipeline; done receives its result.
type job struct {
	c    *chunk
	done chan *partial
}

// partial is one chunk's outcome: its tally, the traces of its ids, the
// input's shard header when the chunk held it, and the first error.
type partial struct {
	t     *gate.Tally
	recs  []dupRec
	shard *ShardHeader
	err   error
	// shardIDs and idSum trace the items of a sharded input (see shardIDs).
	shardIDs []shardID
	idSum    shardid.Digest
}

// Score reads every input (shards of one run), scores each item, and
// aggregates the run. It streams and uses every core. Bad input returns an
// *InputError naming file and line; a duplicate id names both places. An
// empty run is an error.
//
// One goroutine reads the inputs and cuts them into chunks of whole lines;
// Workers goroutines decode and score chunks; the calling goroutine takes
// the results in input order, calls OnItem, and folds the chunk aggregates
// in chunk order, so the report is bit-identical whatever the number of
// workers. The first error in input order is returned.
func Score(rb *rubric.Rubric, inputs []Input, opts ScoreOptions) (*gate.Report, error) {
	sc, err := newSchema(rb, opts.Read)
	if err != nil {
		return nil, err
	}
	scorer := gate.NewScorer(rb)
	if len(inputs) == 0 {
		return nil, errors.New("gate: no results inputs")
	}
	if len(inputs) > 1<<16 {
		return nil, fmt.Errorf("gate: too many inputs (%d; at most %d)", len(inputs), 1<<16)
	}
	workers := opts.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	// Where each input starts, to re-read it when checking a duplicate id.
	starts := inputStarts(inputs)

	pool := newBufPool(3*workers + 4)
	quit := make(chan struct{})
	jobs := make(chan *job, workers)
	order := make(chan *job, 2*workers+2)
	keep := opts.OnItem != nil
	go readInputs(sc, inputs, pool, jobs, order, quit)
	wg := startWorkers(workers, scorer, sc, pool, jobs, keep)

	f := &folded{u: scorer.NewRun(), shards: map[int]*ShardHeader{}}
	ferr := f.collect(order, opts.WantReasoning, opts.OnItem)
	close(quit)
	if ferr != nil {
		// The reader stops at its next chunk and the workers when it has
		// closed jobs; nothing waits for them (the reader may be blocked
		// reading a stream).
		return nil, ferr
	}
	wg.Wait()
	if err := checkShards(inputs, f.shards); err != nil {
		return nil, err
	}
	if f.u.Items() == 0 {
		names := make([]string, len(inputs))
		for i, in := range inputs {
			names[i] = in.Name
		}
		return nil, &InputError{File: strings.Join(names, ", "), Msg: "no items: the results are empty (an empty run has no score)"}
	}
	if err := dupError(sc, inputs, starts, f.store.pairs()); err != nil {
		return nil, err
	}
	if err := f.ids.check(inputs, f.shards); err != nil {
		return nil, err
	}
	rep := f.u.Report(opts.MaxUnscored)
	for _, in := range inputs {
		if w, ok := in.Records.(RecordsWarner); ok {
			rep.Warn(w.Warnings(rb)...)
		}
	}
	return rep, nil
}

// inputStarts is where each input starts (-1 where it cannot seek).
func inputStarts(inputs []Input) []int64 {
	starts := make([]int64, len(inputs))
	for i, in := range inputs {
		starts[i] = -1
		if s, ok := in.R.(io.Seeker); ok {
			if off, err := s.Seek(0, io.SeekCurrent); err == nil {
				starts[i] = off
			}
		}
	}
	return starts
}

// readInputs cuts the inputs into chunks, in order: each is sent to order
// (the order the results are folded in) and to jobs (the workers), until
// quit is closed. It closes both when done.
func readInputs(sc *schema, inputs []Input, pool *bufPool, jobs, order chan<- *job, quit <-chan struct{}) {
	defer close(jobs)
	defer close(order)
	seq := 0
	send := func(c *chunk) bool {
		c.seq = seq
		seq++
		j := &job{c: c, done: make(chan *partial, 1)}
		select {
		case order <- j:
		case <-quit:
			return false
		}
		select {
		case jobs <- j:
		case <-quit:
			return false
		}
		return true
	}
	for i, in := range inputs {
		if !readInput(sc, i, in, pool, send) {
			return
		}
	}
}

// startWorkers starts the workers that decode and score the chunks of
// jobs, each with one decoder per file.
func startWorkers(workers int, scorer *gate.Scorer, sc *schema, pool *bufPool, jobs <-chan *job, keep bool) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			decs := make(map[string]*decoder)
			for j := range jobs {
				d := decs[j.c.file]
				if d == nil {
					d = newDecoder(sc, j.c.file)
					decs[j.c.file] = d
				}
				j.done <- work(scorer, d, j.c, keep)
				pool.put(j.c.buf, chunkSize)
				j.c.buf = nil
			}
		}()
	}
	return &wg
}

// folded is what the chunks' results add up to, folded in input order.
type folded struct {
	u      *gate.Run
	store  dupStore
	shards map[int]*ShardHeader
	ids    shardIDs
}

// collect folds each chunk's result in input order, handing kept items to
// onItem (nil for none), their reasoning where want says (see
// gate.Tally.Each); it stops at the first error.
func (f *folded) collect(order <-chan *job, want func(*gate.ItemResult) bool, onItem func(*gate.ItemResult) error) error {
	for j := range order {
		p := <-j.done
		if p.err != nil {
			return p.err
		}
		if onItem != nil {
			err := p.t.Each(want, onItem)
			p.t.Release()
			if err != nil {
				return err
			}
		}
		if p.shard != nil {
			f.shards[j.c.input] = p.shard
		}
		if h := f.shards[j.c.input]; h != nil && len(p.shardIDs) > 0 {
			f.ids.fold(h, j.c.file, p.shardIDs, &p.idSum)
		}
		f.u.Fold(p.t)
		f.store.add(p.recs)
	}
	return nil
}

// readInput cuts one input into chunks and sends them; false when told to stop.
func readInput(sc *schema, idx int, in Input, pool *bufPool, send func(*chunk) bool) bool {
	if in.Records != nil {
		return readRecordsInput(idx, in, send)
	}
	if formatOf(in) == FormatCSV {
		cr, err := newCSVReader(sc, in)
		if err != nil {
			send(&chunk{input: idx, file: in.Name, err: err})
			return false
		}
		for {
			c := &chunk{input: idx, file: in.Name, head: cr.head}
			var rerr error
			for len(c.rows) < csvChunkRows {
				row, line, err := cr.next()
				if err != nil {
					rerr = err
					break
				}
				c.rows = append(c.rows, row)
				c.rowLines = append(c.rowLines, line)
			}
			if rerr != nil && rerr != io.EOF {
				c.err = rerr
			}
			if len(c.rows) > 0 || c.err != nil {
				if !send(c) {
					return false
				}
			}
			if rerr != nil {
				return c.err == nil
			}
		}
	}
	ch := newChunker(in, sc.maxLine, chunkSize)
	ch.pool = pool
	sharded, first := false, true
	for {
		c, err := ch.next()
		if c == nil && err != nil && err != io.EOF {
			c = &chunk{file: in.Name, err: err}
		}
		if c != nil {
			if first && len(c.lines) > 0 {
				l := c.lines[0]
				sharded = l.line == 1 && bytes.Contains(c.buf[l.off:l.end], shardKey)
				first = false
			}
			c.input, c.sharded = idx, sharded
			if !send(c) {
				return false
			}
			if c.err != nil {
				return false
			}
		}
		if err != nil {
			return err == io.EOF
		}
	}
}

// recChunk is the number of records of a Records chunk.
const recChunk = 1024

// readRecordsInput cuts a Records input into chunks of records; false when
// told to stop or when the input fails.
func readRecordsInput(idx int, in Input, send func(*chunk) bool) bool {
	format := in.Records.Format()
	newChunk := func() *chunk { return &chunk{input: idx, file: in.Name, format: format, recs: []*Record{}} }
	c := newChunk()
	k := 0
	errStop := errors.New("stop")
	err := in.Records.Each(func(rec *Record) error {
		k++
		pos := rec.Line
		if pos <= 0 {
			pos = k
		}
		c.recs = append(c.recs, rec)
		c.recPos = append(c.recPos, pos)
		if len(c.recs) == recChunk {
			if !send(c) {
				return errStop
			}
			c = newChunk()
		}
		return nil
	})
	if err == errStop {
		return false
	}
	if err != nil {
		var ie *InputError
		if !errors.As(err, &ie) {
			err = &InputError{File: in.Name, Msg: err.Error()}
		}
		c.err = err
	}
	if len(c.recs) > 0 || c.err != nil {
		if !send(c) {
			return false
		}
	}
	return c.err == nil
}

// work decodes and scores one chunk.
func work(scorer *gate.Scorer, d *decoder, c *chunk, keep bool) *partial {
	p := &partial{t: scorer.NewTally()}
	p.recs = make([]dupRec, 0, len(c.lines)+len(c.rows))
	if c.recs != nil {
		for k, rec := range c.recs {
			if err := d.decodeRecord(rec, c.format, c.recPos[k]); err != nil {
				p.err = err
				return p
			}
			p.add(d, c.file, c.input, keep)
		}
	} else if c.head != nil {
		for k, row := range c.rows {
			if err := d.decodeCSV(c.head, row, c.rowLines[k]); err != nil {
				p.err = err
				return p
			}
			p.add(d, c.file, c.input, keep)
		}
	} else {
		for _, l := range c.lines {
			ok, err := d.decodeJSON(c.buf[l.off:l.end], l.line)
			if err != nil {
				p.err = err
				return p
			}
			if ok {
				p.add(d, c.file, c.input, keep)
				if c.sharded {
					h := shardid.Of(d.raw.id)
					p.shardIDs = append(p.shardIDs, shardID{h: binary.BigEndian.Uint64(h[:8]), line: d.raw.line})
					p.idSum.Add(&h)
				}
			}
		}
	}
	if d.shard != nil {
		p.shard, d.shard = d.shard, nil
	}
	p.err = c.err
	return p
}

// add hands the decoder's item to the tally and keeps the trace of its id.
func (p *partial) add(d *decoder, file string, input int, keep bool) {
	r := &d.raw
	p.recs = append(p.recs, newDupRec(r.id, input, r.line))
	p.t.Add(d.judged(keep), file, keep)
}
