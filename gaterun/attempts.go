package gaterun

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/internal/boundedio"
	"github.com/rubricgate/rubricgate/internal/stage"
)

// attemptsPrefix starts the hidden line the gate keeps in its own sticky
// comment on a change request (gate.AttemptState): the digest of the
// evaluated inputs and rubric, the pooled estimate of the attempts at them
// and whether one was blocked, and the re-run the last one asked for. It
// is read back, like the accept record, only from a comment whose author
// is the token's identity; outside CI the same line is the content of a
// file of the local attempts store. The line has a fixed set of fields:
// its size is bounded whatever the run.
const attemptsPrefix = "<!-- rubricgate:attempts "

// AttemptsField is the hidden line recording s.
func AttemptsField(s gate.AttemptState) string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 17, 64) }
	b := "0"
	if s.Blocked {
		b = "1"
	}
	line := attemptsPrefix + "key=" + s.Key + " n=" + strconv.Itoa(s.Pool.N) + " change=" + f(s.Pool.Change) + " se=" + f(s.Pool.SE) + " hold=" + b
	if p := s.Pending; p != nil {
		line += " pending=" + p.Answers + "," + strconv.Itoa(p.K) + "," + strconv.Itoa(p.Asked) + "," + f(p.First.Change) + "," + f(p.First.SE)
	}
	return line + " -->"
}

// errAttemptsLine is a hidden attempts line that is not well formed.
var errAttemptsLine = errors.New("the attempts line is malformed")

// ParseAttempts reads the attempts line from the hidden lines that start
// a comment body (or a local state file): nil when there is none, an
// error when it is not well formed.
func ParseAttempts(body string) (*gate.AttemptState, error) {
	for i := 0; i < 4; i++ {
		line, rest, _ := strings.Cut(body, "\n")
		line = strings.TrimSuffix(line, "\r")
		if !strings.HasPrefix(line, "<!-- rubricgate:") {
			return nil, nil
		}
		if r, ok := strings.CutPrefix(line, attemptsPrefix); ok {
			return parseAttemptsLine(r)
		}
		body = rest
	}
	return nil, nil
}

func parseAttemptsLine(rest string) (*gate.AttemptState, error) {
	rest, ok := strings.CutSuffix(rest, " -->")
	if !ok {
		return nil, errAttemptsLine
	}
	var s gate.AttemptState
	seen := map[string]bool{}
	num := func(v string) (float64, bool) {
		x, err := strconv.ParseFloat(v, 64)
		return x, err == nil && x == x && x-x == 0 // finite
	}
	for _, kv := range strings.Fields(rest) {
		k, v, _ := strings.Cut(kv, "=")
		if seen[k] {
			return nil, errAttemptsLine
		}
		seen[k] = true
		var good bool
		switch k {
		case "key":
			s.Key, good = v, isRubricHash(v)
		case "n":
			n, err := strconv.Atoi(v)
			s.Pool.N, good = n, err == nil && n >= 0
		case "change":
			s.Pool.Change, good = num(v)
		case "se":
			s.Pool.SE, good = num(v)
			good = good && s.Pool.SE >= 0
		case "hold":
			s.Blocked, good = v == "1", v == "0" || v == "1"
		case "pending":
			f := strings.Split(v, ",")
			if len(f) != 5 || !isRubricHash(f[0]) {
				return nil, errAttemptsLine
			}
			p := &gate.RerunRequest{Answers: f[0], First: gate.Estimate{N: 1}}
			var e1, e2 error
			p.K, e1 = strconv.Atoi(f[1])
			p.Asked, e2 = strconv.Atoi(f[2])
			c, ok1 := num(f[3])
			se, ok2 := num(f[4])
			good = e1 == nil && e2 == nil && ok1 && ok2 && p.K >= 1 && p.Asked >= 1 && se > 0
			p.First.Change, p.First.SE = c, se
			s.Pending = p
		}
		if !good {
			return nil, errAttemptsLine
		}
	}
	if !seen["key"] || !seen["n"] || !seen["change"] || !seen["se"] || !seen["hold"] {
		return nil, errAttemptsLine
	}
	return &s, nil
}

// attemptsStore is where a run keeps its attempts' state: the gate's own
// sticky comment (read through previous, written with the comment), or a
// local directory (one file per key).
type attemptsStore struct {
	previous func(ctx context.Context, key string) (string, bool, error)
	dir      string
}

// read reads the state for key (commentKey names the comment).
func (s attemptsStore) read(ctx context.Context, commentKey, key string) (*gate.AttemptState, error) {
	var body string
	switch {
	case s.previous != nil:
		b, _, err := s.previous(ctx, commentKey)
		if err != nil {
			return nil, fmt.Errorf("could not read the previous comment: %w", err)
		}
		body = b
	case s.dir != "":
		p := s.path(key)
		data, err := boundedio.ReadFile(p, 4096)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		body = string(data)
		st, err := ParseAttempts(body)
		if err == nil && st == nil {
			err = errAttemptsLine
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		return st, nil
	}
	return ParseAttempts(body)
}

// path is the local state file of key.
func (s attemptsStore) path(key string) string {
	return filepath.Join(s.dir, strings.TrimPrefix(key, "sha256:")+".attempts")
}

// output is the local state file to write with the run's other files
// (none for the comment, which carries the line itself).
func (s attemptsStore) output(st *gate.AttemptState) []stage.Output {
	if s.dir == "" || st == nil {
		return nil
	}
	line := AttemptsField(*st) + "\n"
	return []stage.Output{{Path: s.path(st.Key), Write: func(w io.Writer) error { _, err := io.WriteString(w, line); return err }}}
}
