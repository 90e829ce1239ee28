package gate

import "sync"

// kept holds the items a tally keeps (Add with keep) in flat buffers, not
// as ItemResults: a million ItemResults, each with its id, reasoning and
// lists, were most of the gate's allocation, only to be handed to a
// callback that keeps a few fields. The buffers go back to the scorer once
// the items are delivered (Tally.Release), so the tallies of a run reuse
// them.
type kept struct {
	items []keptItem
	// ids and text hold the items' ids and their reasonings (or judge
	// errors), back to back; crits each item's failed criteria (i) and its
	// na ones (-1-i); hashes the input hashes of the items that carry one.
	ids, text []byte
	crits     []int32
	hashes    []InputHash
	// scores holds the answers' own scores of the items with two or more.
	scores []float64
}

// keptFree is a scorer's list of released buffers. Unlike a sync.Pool it
// is not emptied by every collection, which would make each tally grow
// its buffers again.
type keptFree struct {
	mu   sync.Mutex
	list []*kept
}

func (f *keptFree) get() *kept {
	f.mu.Lock()
	defer f.mu.Unlock()
	if n := len(f.list); n > 0 {
		k := f.list[n-1]
		f.list = f.list[:n-1]
		return k
	}
	return new(kept)
}

func (f *keptFree) put(k *kept) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.list = append(f.list, k)
}

// keptItem is one kept item: its figures, and where its text, criteria and
// input hash end in the buffers (each starts where the previous item's
// ends).
type keptItem struct {
	score, answerVar float64
	model            string
	length           int
	idEnd, whyEnd    int // in ids, text
	critEnd          int
	scoresEnd        int // in scores
	answers          int32
	pass, unscored   bool
	hashed           bool
}

// keep records one item; failed and na are added with keepCrit.
func (p *Tally) keep(r *Judged, score float64, pass bool, why []byte) {
	k := p.kept
	if k == nil {
		k = p.sc.free.get()
		p.kept = k
	}
	k.ids = append(k.ids, r.ID...)
	k.text = append(k.text, why...)
	it := keptItem{score: score, pass: pass, unscored: r.Unscored, model: r.JudgeModel, length: r.Length,
		idEnd: len(k.ids), whyEnd: len(k.text), critEnd: len(k.crits)}
	if r.Answers > 1 && !r.Unscored {
		it.answers, it.answerVar = int32(r.Answers), r.AnswerVar
		k.scores = append(k.scores, r.AnswerScores...)
	}
	it.scoresEnd = len(k.scores)
	if !r.InputHash.IsZero() {
		it.hashed = true
		k.hashes = append(k.hashes, r.InputHash)
	}
	k.items = append(k.items, it)
}

// keepCrit adds criterion i to the last kept item's failed (or na) list.
func (p *Tally) keepCrit(i int, na bool) {
	k := p.kept
	c := int32(i)
	if na {
		c = -1 - c
	}
	k.crits = append(k.crits, c)
	k.items[len(k.items)-1].critEnd = len(k.crits)
}

// Each calls fn with the result of every item added with keep, in order.
// The ItemResult is reused from call to call: copy it to keep it (its
// strings and its Failed and NA are its own; Failed and NA are empty, not
// nil, when there are none; the IDs of a tally's items share one string). want, when not nil, is asked before each item whether fn needs
// its Reasoning (the judge's reasoning, a reviewer's notes, or an unscored
// item's judge error), with Reasoning still empty: an item it declines is
// delivered with Reasoning empty, and its text is never copied. Each stops
// at fn's first error and returns it.
func (p *Tally) Each(want func(*ItemResult) bool, fn func(*ItemResult) error) error {
	k := p.kept
	if k == nil {
		return nil
	}
	var res ItemResult
	ids := string(k.ids)
	id, why, crit, hash, sc := 0, 0, 0, 0, 0
	for n := range k.items {
		it := &k.items[n]
		res = ItemResult{ID: ids[id:it.idEnd], Score: it.score, Pass: it.pass, Unscored: it.unscored,
			Answers: int(it.answers), AnswerVar: it.answerVar, JudgeModel: it.model, Length: it.length,
			Failed: p.critNames(k.crits[crit:it.critEnd], false), NA: p.critNames(k.crits[crit:it.critEnd], true)}
		if it.hashed {
			res.InputHash = k.hashes[hash]
			hash++
		}
		if it.scoresEnd > sc {
			res.AnswerScores = k.scores[sc:it.scoresEnd:it.scoresEnd]
		}
		sc = it.scoresEnd
		if it.whyEnd > why && (want == nil || want(&res)) {
			res.Reasoning = string(k.text[why:it.whyEnd])
		}
		id, why, crit = it.idEnd, it.whyEnd, it.critEnd
		if err := fn(&res); err != nil {
			return err
		}
	}
	return nil
}

// critNames returns the criteria ids of the failed (or na) entries of cs,
// a new slice (empty, not nil, when there are none).
func (p *Tally) critNames(cs []int32, na bool) []string {
	n := 0
	for _, c := range cs {
		if (c < 0) == na {
			n++
		}
	}
	if n == 0 {
		return []string{}
	}
	out := make([]string, 0, n)
	for _, c := range cs {
		switch {
		case na && c < 0:
			out = append(out, p.sc.ids[-1-c])
		case !na && c >= 0:
			out = append(out, p.sc.ids[c])
		}
	}
	return out
}

// Release gives the buffers of the kept items back for reuse by later
// tallies; the tally keeps no items after it (call it once they are
// delivered with Each).
func (p *Tally) Release() {
	k := p.kept
	if k == nil {
		return
	}
	p.kept = nil
	k.items, k.ids, k.text, k.crits, k.hashes, k.scores = k.items[:0], k.ids[:0], k.text[:0], k.crits[:0], k.hashes[:0], k.scores[:0]
	p.sc.free.put(k)
}
