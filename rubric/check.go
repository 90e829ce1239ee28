package rubric

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// checker applies the rubric's rules, one small method a rule, and collects
// the warnings. Each rule returns the first *Error it finds.
type checker struct {
	r     *Rubric
	file  string
	loc   func(string) (int, int)
	warns []Warning
	// names maps a lower-case id or alias to the path that claimed it.
	names map[string]string
}

// check enforces the rules on a decoded rubric and collects warnings. loc maps
// a field path to a position (nil: no positions).
func check(r *Rubric, file string, loc func(string) (int, int)) ([]Warning, error) {
	c := &checker{r: r, file: file, loc: loc, names: map[string]string{}}
	if err := c.top(); err != nil {
		return nil, err
	}
	var total float64
	for i := range r.Criteria {
		if err := c.criterion(i); err != nil {
			return nil, err
		}
		total += r.Criteria[i].Weight
	}
	if err := checkFrom(r, c.fail); err != nil {
		return nil, err
	}
	if err := c.total(total); err != nil {
		return nil, err
	}
	if err := c.modelFamilies(); err != nil {
		return nil, err
	}
	c.advise(total)
	return c.warns, nil
}

func (c *checker) at(path string) (int, int) {
	if c.loc == nil {
		return 0, 0
	}
	return c.loc(path)
}

// fail is the error of the rule broken at path.
func (c *checker) fail(path, format string, args ...any) error {
	line, col := c.at(path)
	return &Error{File: c.file, Line: line, Col: col, Msg: withPath(path, fmt.Sprintf(format, args...))}
}

// warn records advice about the value at path (crit: the criterion it is about, if any).
func (c *checker) warn(path, crit, format string, args ...any) {
	line, col := c.at(path)
	c.warns = append(c.warns, Warning{File: c.file, Line: line, Col: col, Criterion: crit, Msg: withPath(path, fmt.Sprintf(format, args...))})
}

// top checks the rubric's own fields: a name, a threshold, and 1..MaxCriteria criteria.
func (c *checker) top() error {
	r := c.r
	if strings.TrimSpace(r.Name) == "" {
		return c.fail("name", "required; expected a non-empty rubric name")
	}
	if !finite(r.Threshold) || r.Threshold < 0 || r.Threshold > 100 {
		return c.fail("threshold", "expected a number within 0..100, got %v", r.Threshold)
	}
	if len(r.Criteria) == 0 {
		return c.fail("criteria", "expected at least one criterion")
	}
	if len(r.Criteria) > MaxCriteria {
		return c.fail("criteria", "%d criteria: at most %d are allowed (the report shows every criterion in its table)", len(r.Criteria), MaxCriteria)
	}
	return nil
}

// claim reserves a column name (an id or an alias) for the criterion at path:
// names are unique ignoring case, and reserved column names are refused.
func (c *checker) claim(path, kind, name string) error {
	k := strings.ToLower(name)
	if Reserved(k) {
		return c.fail(path, "%q is a reserved column name; choose another %s", name, kind)
	}
	if prev, ok := c.names[k]; ok {
		return c.fail(path, "%s %q collides with %s (ids and aliases must be unique, ignoring case)", kind, name, prev)
	}
	c.names[k] = path
	return nil
}

// criterion checks criteria[i]: its id, weight, scale, anchors, critical
// minimum, blocking flag and aliases.
func (c *checker) criterion(i int) error {
	cr := &c.r.Criteria[i]
	p := fmt.Sprintf("criteria[%d]", i)
	for _, rule := range []func(*Criterion, string) error{c.id, c.weight, c.scale, c.anchors, c.critical, c.aliases} {
		if err := rule(cr, p); err != nil {
			return err
		}
	}
	return nil
}

func (c *checker) id(cr *Criterion, p string) error {
	if !idRe.MatchString(cr.ID) {
		if cr.ID == "" {
			return c.fail(p+".id", "required; expected an id matching [a-z0-9_]+")
		}
		return c.fail(p+".id", "expected an id matching [a-z0-9_]+, got %q", clip(cr.ID, 40))
	}
	return c.claim(p+".id", "id", cr.ID)
}

func (c *checker) weight(cr *Criterion, p string) error {
	if w := cr.Weight; !finite(w) || w < 0 || (w != 0 && (w < MinWeight || w > MaxWeight)) {
		return c.fail(p+".weight", "expected 0 or a number from %g to %g, got %v", MinWeight, MaxWeight, w)
	}
	return nil
}

func (c *checker) scale(cr *Criterion, p string) error {
	s := cr.Scale
	if s.Low >= s.High || s.Low < -maxBound || s.High > maxBound {
		return c.fail(p+".scale", "expected [lowest, highest] integers with lowest < highest, got [%d, %d]", s.Low, s.High)
	}
	if s.Levels() > maxLevels && !cr.Continuous {
		return c.fail(p+".scale", "expected at most %d levels, got [%d, %d] (%d levels)", maxLevels, s.Low, s.High, s.Levels())
	}
	return nil
}

func (c *checker) anchors(cr *Criterion, p string) error {
	s := cr.Scale
	for _, lvl := range sortedLevels(cr.Anchors) {
		ap := p + ".anchors." + strconv.Itoa(lvl)
		if !s.Contains(lvl) {
			return c.fail(ap, "expected a level inside the scale [%d, %d], got %d", s.Low, s.High, lvl)
		}
		if strings.TrimSpace(cr.Anchors[lvl]) == "" {
			return c.fail(ap, "expected a description of level %d, got an empty string", lvl)
		}
	}
	return nil
}

func (c *checker) critical(cr *Criterion, p string) error {
	s := cr.Scale
	if m := cr.Critical; m != nil {
		if !cr.Continuous && *m != math.Trunc(*m) {
			return c.fail(p+".critical", "expected an integer minimum score inside the scale (a non-integer minimum needs continuous: true), got %v", *m)
		}
		if !(*m >= float64(s.Low) && *m <= float64(s.High)) {
			return c.fail(p+".critical", "expected a minimum score inside the scale [%d, %d], got %v", s.Low, s.High, *m)
		}
	}
	if cr.Blocking && cr.Critical == nil {
		return c.fail(p+".blocking", "blocking needs critical: set the minimum score below which an item blocks the run")
	}
	return nil
}

func (c *checker) aliases(cr *Criterion, p string) error {
	for j, a := range cr.Aliases {
		ap := fmt.Sprintf("%s.aliases[%d]", p, j)
		if !aliasRe.MatchString(a) {
			return c.fail(ap, "expected a column name of letters, digits, '_', '.' or '-' (not starting with '.' or '-'), got %q", clip(a, 40))
		}
		if err := c.claim(ap, "alias", a); err != nil {
			return err
		}
	}
	return nil
}

// total checks the sum of the weights: finite, and above 0.
func (c *checker) total(total float64) error {
	if total == 0 {
		return c.fail("criteria", "the weights sum to 0; expected at least one criterion with weight > 0")
	}
	if !finite(total) {
		return c.fail("criteria", "the weights sum to %v; expected a finite total", total)
	}
	return nil
}

// modelFamilies checks model_families: named families of non-empty prefixes.
func (c *checker) modelFamilies() error {
	for _, fam := range sortedKeys(c.r.ModelFamilies) {
		p := "model_families." + fam
		if strings.TrimSpace(fam) == "" {
			return c.fail(p, "expected a non-empty family name")
		}
		if len(c.r.ModelFamilies[fam]) == 0 {
			return c.fail(p, "expected at least one model name prefix")
		}
		for j, pre := range c.r.ModelFamilies[fam] {
			if strings.TrimSpace(pre) == "" {
				return c.fail(fmt.Sprintf("%s[%d]", p, j), "expected a non-empty model name prefix")
			}
		}
	}
	return nil
}

// advise records the warnings of a valid rubric: too many criteria, a wide
// scale without anchors at its ends and middle, a criterion too light to move
// the score.
func (c *checker) advise(total float64) {
	if len(c.r.Criteria) > advisedCriteria {
		c.warn("criteria", "", "%d criteria; judges degrade past %d, consider merging some", len(c.r.Criteria), advisedCriteria)
	}
	for i := range c.r.Criteria {
		cr := &c.r.Criteria[i]
		p := fmt.Sprintf("criteria[%d]", i)
		c.adviseAnchors(cr, p)
		if !cr.IsGate() {
			if pts := cr.MaxPoints(total); pts < minPoints {
				c.warn(p+".weight", cr.ID, "can move the score by only %.1f points (100 x %v / %v); raise its weight or make it a gate with critical",
					pts, cr.Weight, total)
			}
		}
	}
}

// adviseAnchors warns when a scale of five or more levels has no anchor for
// its lowest, a middle, or its highest level.
func (c *checker) adviseAnchors(cr *Criterion, p string) {
	s := cr.Scale
	if s.Levels() < 5 || cr.Continuous {
		return
	}
	var missing []string
	if _, ok := cr.Anchors[s.Low]; !ok {
		missing = append(missing, "lowest "+strconv.Itoa(s.Low))
	}
	if mids := middle(s); !hasAny(cr.Anchors, mids) {
		missing = append(missing, "middle "+strconv.Itoa(mids[0]))
	}
	if _, ok := cr.Anchors[s.High]; !ok {
		missing = append(missing, "highest "+strconv.Itoa(s.High))
	}
	if len(missing) > 0 {
		c.warn(p+".anchors", cr.ID, "scale [%d, %d] has %d levels but no anchor for the %s level; anchors are what make graders agree",
			s.Low, s.High, s.Levels(), strings.Join(missing, ", "))
	}
}

// checkFrom checks every criterion's `from`: known formats, a metric name,
// a valid source scale on continuous criteria only, and no metric of a
// format feeding two criteria.
func checkFrom(r *Rubric, fail func(path, format string, args ...any) error) error {
	taken := map[string]string{} // format + "\x00" + lower-case metric -> path
	for i := range r.Criteria {
		c := &r.Criteria[i]
		for _, format := range sortedFormats(c.From) {
			src := c.From[format]
			p := fmt.Sprintf("criteria[%d].from.%s", i, format)
			if !contains(Sources, format) {
				return fail(p, "unknown results format %q; expected one of: %s", clip(format, 40), strings.Join(Sources, ", "))
			}
			m := strings.TrimSpace(src.Metric)
			if m == "" {
				return fail(p, "expected a non-empty metric name")
			}
			if ss := src.Scale; ss != nil {
				if !c.Continuous {
					return fail(p+".scale", "a source scale needs continuous: true on the criterion (the mapped scores are rarely integers)")
				}
				if ss.Low == ss.High || min(ss.Low, ss.High) < -maxBound || max(ss.Low, ss.High) > maxBound {
					return fail(p+".scale", "expected [worst, best] integers that differ ([0, 1] when higher is better, [1, 0] when lower is), got [%d, %d]", ss.Low, ss.High)
				}
			}
			k := format + "\x00" + strings.ToLower(m)
			if prev, ok := taken[k]; ok {
				return fail(p, "the %s metric %q already feeds %s; a metric can feed one criterion only", format, clip(m, 40), prev)
			}
			taken[k] = p
		}
	}
	return nil
}
