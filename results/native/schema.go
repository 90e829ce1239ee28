package native

import (
	"bytes"
	"errors"
	"fmt"
	"github.com/rubricgate/rubricgate/gate"
	"github.com/rubricgate/rubricgate/rubric"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// schema is the rubric prepared for fast decoding and scoring.
type schema struct {
	rb      *rubric.Rubric
	opts    ReadOptions
	maxLine int
	// lookup maps lower-cased ids and aliases to criterion indexes.
	lookup map[string]int
	// slowFold is set when an alias is not ASCII: a key that misses lookup
	// is then retried with rubric.Index (Unicode case folding).
	slowFold bool
	ids      []string
	weight   []float64
	low      []float64
	high     []float64
	span     []float64 // high - low
	critical []bool
	min      []float64
	blocking []bool
	na       []bool
	cont     []bool // continuous
	// levels is the number of histogram bins: the scale's levels, or
	// rubric.ContinuousBins.
	levels []int
	// list names the criteria for "expected one of" messages.
	list string
}

// fromSource maps a value reported on criterion i's source scale for format
// onto the criterion's real scale (see ReadOptions.realScales).
func (sc *schema) fromSource(i int, format string, v float64) float64 {
	c := &sc.rb.Criteria[i]
	if i < len(sc.opts.realScales) {
		cc := *c
		cc.Scale = sc.opts.realScales[i]
		return cc.FromSource(format, v)
	}
	return c.FromSource(format, v)
}

func newSchema(rb *rubric.Rubric, opts ReadOptions) (*schema, error) {
	if rb == nil || len(rb.Criteria) == 0 {
		return nil, errors.New("gate: the rubric has no criteria")
	}
	n := len(rb.Criteria)
	sc := &schema{
		rb: rb, opts: opts, maxLine: opts.MaxLine,
		lookup: make(map[string]int, 2*n),
		ids:    make([]string, n), weight: make([]float64, n),
		low: make([]float64, n), high: make([]float64, n), span: make([]float64, n),
		critical: make([]bool, n), min: make([]float64, n),
		blocking: make([]bool, n), na: make([]bool, n),
		cont: make([]bool, n), levels: make([]int, n),
	}
	if sc.maxLine <= 0 {
		sc.maxLine = defaultMaxLine
	}
	add := func(k string, i int) {
		k = strings.TrimSpace(k)
		if !isASCII(k) {
			sc.slowFold = true
			return
		}
		k = strings.ToLower(k)
		if _, dup := sc.lookup[k]; !dup {
			sc.lookup[k] = i
		}
	}
	names := make([]string, n)
	for i := range rb.Criteria {
		c := &rb.Criteria[i]
		if c.Scale.High <= c.Scale.Low {
			return nil, fmt.Errorf("gate: criterion %q has an empty scale %d..%d", c.ID, c.Scale.Low, c.Scale.High)
		}
		if c.Weight < 0 || math.IsNaN(c.Weight) || math.IsInf(c.Weight, 0) {
			return nil, fmt.Errorf("gate: criterion %q has a bad weight %v", c.ID, c.Weight)
		}
		sc.ids[i] = c.ID
		names[i] = c.ID
		sc.weight[i] = c.Weight
		sc.low[i], sc.high[i] = float64(c.Scale.Low), float64(c.Scale.High)
		sc.span[i] = float64(c.Scale.High - c.Scale.Low)
		sc.cont[i] = c.Continuous
		sc.levels[i] = c.Scale.Levels()
		if c.Continuous {
			sc.levels[i] = rubric.ContinuousBins
		}
		if c.Critical != nil {
			sc.critical[i] = true
			sc.min[i] = *c.Critical
			sc.blocking[i] = c.Blocking
		}
		sc.na[i] = c.NA
	}
	// Ids first so that an alias never shadows another criterion's id
	// (rubric.Index checks criteria in order, ids and aliases together;
	// a valid rubric has no such clash).
	for i := range rb.Criteria {
		add(rb.Criteria[i].ID, i)
	}
	for i := range rb.Criteria {
		for _, a := range rb.Criteria[i].Aliases {
			add(a, i)
		}
	}
	sc.list = strings.Join(names, ", ")
	return sc, nil
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// find returns the criterion index for a key or column name (id or alias,
// case-insensitive, surrounding space ignored), or -1.
func (sc *schema) find(key []byte) int {
	k := bytes.TrimSpace(key)
	var buf [64]byte
	if len(k) <= len(buf) {
		lower := buf[:len(k)]
		ascii := true
		for i, c := range k {
			if c >= utf8.RuneSelf {
				ascii = false
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			lower[i] = c
		}
		if ascii {
			if i, ok := sc.lookup[string(lower)]; ok {
				return i
			}
			if !sc.slowFold {
				return -1
			}
		}
	}
	return sc.rb.Index(string(k))
}

// unscoredValue checks a value an unscored item carries for blocking
// criterion i and keeps it in *v when it is the lowest so far: an integer
// (on the scale, or off it: then the gate cannot be shown to hold and it
// fails). Other values are the failed judge's placeholders and ignored.
func (sc *schema) unscoredValue(i int, rv *rawVal, v *gate.Value) {
	if !rv.set {
		return
	}
	var nv gate.Value
	if pv, err := sc.parseValue(i, rv); err == nil && pv.State == gate.Scored {
		nv = pv
	} else if n, ok := sc.looseInt(rv); ok {
		f := float64(n)
		nv = gate.Value{Score: f, Min: f, Max: f, N: 1, State: gate.Scored, Below: true}
	} else {
		return
	}
	if i < len(sc.opts.realScales) {
		// CheckBlocking reads on a widened scale: off the real one fails.
		if rs := sc.opts.realScales[i]; nv.Score < float64(rs.Low) || nv.Score > float64(rs.High) {
			nv.Below = true
		}
	}
	if v.State != gate.Scored || nv.Below && !v.Below || nv.Below == v.Below && nv.Score < v.Score {
		*v = nv
	}
}

// fmtNum formats a score for a message: 3, 0.35.
func fmtNum(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

// parseValue turns a raw criterion value into a Value on the criterion's
// scale (one judging: N or NAs is 1, Below set against the critical
// minimum). The message of the error does not name the criterion.
func (sc *schema) parseValue(i int, rv *rawVal) (gate.Value, error) {
	if rv.kind == kindNumber && len(rv.raw) == 1 { // the common case: one digit
		if s := float64(rv.raw[0] - '0'); s >= sc.low[i] && s <= sc.high[i] {
			return gate.Value{Score: s, Min: s, Max: s, N: 1, State: gate.Scored, Below: sc.critical[i] && s < sc.min[i]}, nil
		}
	}
	return sc.parseSlow(i, rv)
}

// parseSlow is parseValue for every other value.
func (sc *schema) parseSlow(i int, rv *rawVal) (gate.Value, error) {
	var text []byte
	switch {
	case rv.direct == directNA:
		if !sc.na[i] {
			return gate.Value{}, fmt.Errorf(`"na" is not allowed: the criterion does not set na: true (expected %s)`, sc.want(i))
		}
		return gate.Value{State: gate.NA, NAs: 1}, nil
	case rv.direct == directNum:
		f := rv.f
		if !sc.cont[i] && f != math.Trunc(f) {
			return gate.Value{}, fmt.Errorf("expected %s, got %s", sc.want(i), fmtNum(f))
		}
		return sc.onScale(i, f)
	case rv.cell:
		text = rv.raw
	case rv.kind == kindString:
		text = rv.str
	case rv.kind == kindNumber:
		if len(rv.raw) == 1 { // the common case: one digit
			return sc.onScale(i, float64(rv.raw[0]-'0'))
		}
		if sc.cont[i] {
			return sc.decimal(i, rv.raw)
		}
		v, ok := jsonInt(rv.raw)
		if !ok {
			return gate.Value{}, fmt.Errorf("expected %s, got %s", sc.want(i), quoteBytes(rv.raw))
		}
		return sc.onScale(i, float64(v))
	default:
		return gate.Value{}, fmt.Errorf("expected %s%s, got %s", sc.want(i), sc.naHint(i), rv.kind)
	}
	t := bytes.TrimSpace(text)
	if len(t) == 2 && (t[0]|0x20) == 'n' && (t[1]|0x20) == 'a' {
		if !sc.na[i] {
			return gate.Value{}, fmt.Errorf(`"na" is not allowed: the criterion does not set na: true (expected %s)`, sc.want(i))
		}
		return gate.Value{State: gate.NA, NAs: 1}, nil
	}
	if sc.cont[i] {
		if !isJSONNumber(t) {
			return gate.Value{}, fmt.Errorf("expected %s%s, got %s", sc.want(i), sc.naHint(i), quoteBytes(text))
		}
		return sc.decimal(i, t)
	}
	// strconv.Atoi, not ParseFloat: ParseFloat would accept NaN, Inf and
	// hex floats such as 0x1p-2.
	n, err := strconv.Atoi(string(t))
	if err != nil {
		return gate.Value{}, fmt.Errorf("expected %s%s, got %s", sc.want(i), sc.naHint(i), quoteBytes(text))
	}
	return sc.onScale(i, float64(n))
}

// want describes the scores a criterion takes, for messages.
func (sc *schema) want(i int) string {
	if sc.cont[i] {
		return fmt.Sprintf("a number within %s..%s", fmtNum(sc.low[i]), fmtNum(sc.high[i]))
	}
	return fmt.Sprintf("an integer score on %s..%s", fmtNum(sc.low[i]), fmtNum(sc.high[i]))
}

// decimal parses a number already checked against the JSON number grammar
// (so no NaN, Inf, hex or underscores) for a continuous criterion.
func (sc *schema) decimal(i int, t []byte) (gate.Value, error) {
	f, err := strconv.ParseFloat(string(t), 64)
	if err != nil || math.IsInf(f, 0) {
		return gate.Value{}, fmt.Errorf("expected %s, got %s", sc.want(i), quoteBytes(t))
	}
	if f == 0 {
		f = 0 // no negative zero
	}
	return sc.onScale(i, f)
}

// isJSONNumber reports whether t is a number in JSON's grammar, with an
// optional leading '+' (review sheets are typed by people).
func isJSONNumber(t []byte) bool {
	if len(t) > 0 && t[0] == '+' {
		t = t[1:]
	}
	var s scanner
	s.reset(t)
	_, err := s.number()
	return err == nil && s.i == len(t)
}

// looseInt reads a raw value as an integer, on the scale or not; false when
// it is not one (na, null, text, a fraction).
func (sc *schema) looseInt(rv *rawVal) (int, bool) {
	var text []byte
	switch {
	case rv.cell:
		text = rv.raw
	case rv.kind == kindString:
		text = rv.str
	case rv.kind == kindNumber:
		return jsonInt(rv.raw)
	default:
		return 0, false
	}
	n, err := strconv.Atoi(string(bytes.TrimSpace(text)))
	return n, err == nil
}

func (sc *schema) naHint(i int) string {
	if sc.na[i] {
		return ` or "na"`
	}
	return ""
}

// boundSlack is how far past a scale's end a score may lie and still be
// read as that end, in units of the scale's range: 4 ulps of it. Tools that
// compute scores in floating point write 1.0000000000000002 for 1 (or
// -5.551115123125783e-17 for 0); a real out-of-scale value is far larger.
const boundSlack = 4 * 0x1p-52

func (sc *schema) onScale(i int, v float64) (gate.Value, error) {
	if slack := boundSlack * sc.span[i]; v < sc.low[i] && v >= sc.low[i]-slack {
		v = sc.low[i]
	} else if v > sc.high[i] && v <= sc.high[i]+slack {
		v = sc.high[i]
	}
	if !(v >= sc.low[i] && v <= sc.high[i]) {
		return gate.Value{}, fmt.Errorf("score %s is outside its scale %s..%s", fmtNum(v), fmtNum(sc.low[i]), fmtNum(sc.high[i]))
	}
	return gate.Value{Score: v, Min: v, Max: v, N: 1, State: gate.Scored, Below: sc.critical[i] && v < sc.min[i]}, nil
}

// jsonInt returns the integer value of a JSON number. Integer-valued numbers
// written with a fraction or exponent (4.0, 4e0, 40e-1) are accepted: Python's
// json module and others write whole floats that way. The check is exact, on
// the decimal digits: 4.9999999999999999 or 1e-400 are not integers, although
// a float64 would round them to one. The text has already been checked
// against the JSON number grammar.
func jsonInt(t []byte) (int, bool) {
	s := string(t)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, expText, hasExp := strings.Cut(strings.ToLower(s), "e")
	exp := 0
	if hasExp {
		e, err := strconv.Atoi(strings.TrimPrefix(expText, "+"))
		if err != nil || e > 1000 || e < -1000 {
			// Only zero is an integer of that magnitude that fits a scale.
			return 0, strings.Trim(mant, "0.") == ""
		}
		exp = e
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	digits := intPart + frac
	point := len(intPart) + exp // the decimal point's position in digits
	var whole string
	switch {
	case point <= 0:
		whole = ""
	case point >= len(digits):
		whole = digits + strings.Repeat("0", point-len(digits))
	default:
		whole = digits[:point]
	}
	if point < len(digits) && strings.Trim(digits[max(point, 0):], "0") != "" {
		return 0, false // a non-zero digit after the decimal point
	}
	whole = strings.TrimLeft(whole, "0")
	if len(whole) > 15 {
		return 0, false
	}
	v := 0
	if whole != "" {
		var err error
		if v, err = strconv.Atoi(whole); err != nil {
			return 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, true
}
