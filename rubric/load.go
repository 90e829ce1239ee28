package rubric

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MaxCriteria is the most criteria a rubric may have. The report's
// per-criterion table is never cut, and at this many criteria (with as many
// more removed from the baseline's rubric) it still fits in a PR comment.
const MaxCriteria = 50

const (
	// maxBound bounds scale ends, so that level arithmetic cannot overflow.
	maxBound = 1_000_000
	// maxLevels is the most levels a scale may have (0-100 is the widest
	// sensible scale; 1-5 is advised).
	maxLevels = 101
	// advisedCriteria is the most criteria before judges degrade.
	advisedCriteria = 7
	// minPoints is the least a non-gate criterion should move the score by,
	// in points of the 0-100 score.
	minPoints = 5.0
)

var (
	idRe    = regexp.MustCompile(`^[a-z0-9_]+$`)
	aliasRe = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)
	intRe   = regexp.MustCompile(`^[-+]?[0-9]+$`)
	yamlErr = regexp.MustCompile(`^yaml: line ([0-9]+): (.*)$`)
)

var (
	rubricKeys    = []string{"name", "version", "threshold", "criteria", "notes_required_for", "model_families", "hash"}
	criterionKeys = []string{"id", "name", "description", "weight", "scale", "anchors", "critical", "blocking", "na", "aliases", "continuous", "from"}
	sourceKeys    = []string{"metric", "scale"}
)

// MinWeight and MaxWeight bound a non-zero weight: far smaller or larger
// weights only bring floating-point trouble (a weight of 5e-324 scored 2 of 5
// as 0), and no rubric needs a ratio beyond a trillion between criteria.
const (
	MinWeight = 1e-6
	MaxWeight = 1e6
)

// Load parses and validates a rubric file (YAML or JSON). name is used in
// error messages. Unknown keys are errors; every error is an *Error naming the
// file, line and column (YAML syntax errors carry the line only, as the YAML
// parser reports no column). Warnings are returned as data. The rubric
// returned is normalised: defaults applied, NotesRequiredFor sorted.
func Load(name string, data []byte) (r *Rubric, warns []Warning, err error) {
	defer func() {
		// The YAML parser is third-party code; never let it take the caller down.
		if p := recover(); p != nil {
			r, warns = nil, nil
			err = &Error{File: name, Msg: fmt.Sprintf("cannot parse rubric: %v", p)}
		}
	}()
	root, err := parseYAML(name, data)
	if err != nil {
		return nil, nil, err
	}
	l := &loader{file: name, at: map[string]pos{"": {root.Line, root.Column}}}
	raw, err := l.rubric(root)
	if err != nil {
		return nil, nil, err
	}
	r = normalized(raw)
	warns, err = check(r, name, l.locate)
	if err != nil {
		return nil, nil, err
	}
	if l.hash != "" && l.hash != r.Hash() {
		at := l.at["hash"]
		warns = append(warns, Warning{File: name, Line: at.line, Col: at.col,
			Msg: fmt.Sprintf("hash: %s does not match this rubric (%s): it was edited since it was exported; the hash is recomputed from the content", l.hash, r.Hash())})
	}
	return r, warns, nil
}

// Validate checks a Rubric built in code or decoded from its canonical form
// against every rule Load enforces. Errors are *Error without a position.
func (r *Rubric) Validate() error {
	_, err := check(r, "", nil)
	return err
}

// Canonical returns the canonical JSON form: defaults applied (a missing
// criterion name is its id), fields in declaration order, anchors in level
// order, NotesRequiredFor sorted and de-duplicated, model families sorted by
// name, no insignificant whitespace. Equal meaning gives equal bytes. It is
// nil for a rubric that cannot be encoded (a NaN or infinite number), which
// Validate rejects.
func (r *Rubric) Canonical() []byte {
	b, err := json.Marshal(normalized(r))
	if err != nil {
		return nil
	}
	return b
}

// Hash is "sha256:<hex>" of the canonical form.
func (r *Rubric) Hash() string {
	s := sha256.Sum256(r.Canonical())
	return "sha256:" + hex.EncodeToString(s[:])
}

// FromCanonical decodes and validates a rubric in canonical JSON form (as
// stored in a baseline file). Unknown fields and trailing data are errors.
func FromCanonical(data []byte) (*Rubric, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var r Rubric
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("rubric: decoding canonical form: %w", err)
	}
	var extra json.RawMessage
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		return nil, errors.New("rubric: decoding canonical form: unexpected data after the rubric object")
	}
	n := normalized(&r)
	if err := n.Validate(); err != nil {
		return nil, fmt.Errorf("rubric: canonical form: %w", err)
	}
	return n, nil
}

// normalized returns a deep copy of r with defaults applied.
func normalized(r *Rubric) *Rubric {
	n := *r
	n.Threshold = noNegZero(r.Threshold)
	n.Criteria = make([]Criterion, len(r.Criteria))
	for i, c := range r.Criteria {
		if c.Name == "" {
			c.Name = c.ID
		}
		c.Weight = noNegZero(c.Weight)
		if len(c.Anchors) > 0 {
			a := make(map[int]string, len(c.Anchors))
			for k, v := range c.Anchors {
				a[k] = v
			}
			c.Anchors = a
		} else {
			c.Anchors = nil
		}
		if c.Critical != nil {
			v := noNegZero(*c.Critical)
			c.Critical = &v
		}
		if len(c.Aliases) > 0 {
			c.Aliases = append([]string(nil), c.Aliases...)
		} else {
			c.Aliases = nil
		}
		if len(c.From) > 0 {
			f := make(map[string]Source, len(c.From))
			for k, v := range c.From {
				if v.Scale != nil {
					sc := *v.Scale
					v.Scale = &sc
				}
				v.Metric = strings.TrimSpace(v.Metric) // matched ignoring surrounding space
				f[k] = v
			}
			c.From = f
		} else {
			c.From = nil
		}
		n.Criteria[i] = c
	}
	n.NotesRequiredFor = append([]int(nil), r.NotesRequiredFor...)
	slices.Sort(n.NotesRequiredFor)
	n.NotesRequiredFor = dedupe(n.NotesRequiredFor)
	n.ModelFamilies = nil
	if len(r.ModelFamilies) > 0 {
		n.ModelFamilies = make(map[string][]string, len(r.ModelFamilies))
		for k, v := range r.ModelFamilies {
			n.ModelFamilies[k] = append([]string(nil), v...)
		}
	}
	return &n
}

func noNegZero(f float64) float64 {
	if f == 0 {
		return 0
	}
	return f
}

func dedupe(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	out := s[:1]
	for _, v := range s[1:] {
		if v != out[len(out)-1] {
			out = append(out, v)
		}
	}
	return out
}

// parseYAML returns the root node of the single document in data.
func parseYAML(file string, data []byte) (*yaml.Node, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, &Error{File: file, Line: 1, Col: 1, Msg: "empty rubric file; expected a mapping with name and criteria"}
		}
		return nil, syntaxError(file, data, err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); !errors.Is(err, io.EOF) {
		if err != nil {
			return nil, syntaxError(file, data, err)
		}
		at := &extra
		if len(extra.Content) > 0 {
			at = extra.Content[0]
		}
		return nil, &Error{File: file, Line: at.Line, Col: at.Column, Msg: "found a second YAML document; expected one rubric per file"}
	}
	if len(doc.Content) == 0 {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "empty rubric file; expected a mapping with name and criteria"}
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, &Error{File: file, Line: 1, Col: 1, Msg: "empty rubric file; expected a mapping with name and criteria"}
	}
	return root, nil
}

// syntaxError is a YAML syntax error at the line where the problem is.
// yaml.v3 reports the line of the enclosing construct (a bad indent on
// line 5 inside a list item that starts on line 2 is "line 2"), so the
// line is found again: the first prefix of the file, from that line on,
// that fails to parse with the same message ends at the problem. A tab in
// the indentation there is named as such.
func syntaxError(file string, data []byte, err error) error {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	line := 0
	if m := yamlErr.FindStringSubmatch(err.Error()); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = m[2]
	}
	col := 0
	if line > 0 {
		line = problemLine(data, line, msg)
		lines := bytes.Split(data, []byte("\n"))
		if line <= len(lines) {
			l := lines[line-1]
			lead := l[:len(l)-len(bytes.TrimLeft(l, " \t"))]
			if i := bytes.IndexByte(lead, '\t'); i >= 0 {
				col = i + 1
				msg = "a tab indents this line; YAML indents with spaces only (" + msg + ")"
			}
		}
	}
	return &Error{File: file, Line: line, Col: col, Msg: "invalid YAML: " + msg}
}

// maxRescanLines bounds the search for the problem line (each step parses
// a prefix of the file): past it, yaml.v3's line is kept.
const maxRescanLines = 2000

// problemLine is the first line n >= from such that the file's first n
// lines fail to parse with the message msg; from when there is none.
func problemLine(data []byte, from int, msg string) int {
	ends := []int{} // ends[i] is the offset just past line i+1
	for i, b := range data {
		if b == '\n' {
			ends = append(ends, i+1)
		}
	}
	ends = append(ends, len(data))
	if len(ends) > maxRescanLines {
		return from
	}
	for n := from; n <= len(ends); n++ {
		var doc yaml.Node
		err := yaml.Unmarshal(data[:ends[n-1]], &doc)
		if err == nil {
			continue
		}
		if m := yamlErr.FindStringSubmatch(err.Error()); m != nil && m[2] == msg {
			return n
		}
	}
	return from
}

type pos struct{ line, col int }

// loader turns the YAML node tree into a Rubric, checking types and keys and
// recording the position of every value by its path for the rule checks.
type loader struct {
	file string
	at   map[string]pos
	// hash is the "hash" an exported rubric carries, if any.
	hash string
}

func (l *loader) errAt(n *yaml.Node, path, format string, args ...any) error {
	return &Error{File: l.file, Line: n.Line, Col: n.Column, Msg: withPath(path, fmt.Sprintf(format, args...))}
}

func withPath(path, msg string) string {
	if path == "" {
		return msg
	}
	return path + ": " + msg
}

func (l *loader) record(path string, n *yaml.Node) { l.at[path] = pos{n.Line, n.Column} }

// locate returns the position recorded for path, or for its closest
// recorded parent.
func (l *loader) locate(path string) (int, int) {
	for {
		if p, ok := l.at[path]; ok {
			return p.line, p.col
		}
		if path == "" {
			return 0, 0
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			path = ""
		} else {
			path = path[:i]
		}
	}
}

// describe names what a node is, for "expected X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.AliasNode:
		return "a YAML alias (*" + clip(n.Value, 30) + "); aliases are not supported"
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.DocumentNode:
		return "a document"
	}
	switch n.ShortTag() {
	case "!!null":
		return "nothing (null)"
	case "!!str":
		return strconv.Quote(clip(n.Value, 40))
	}
	return clip(n.Value, 40)
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// fields walks a mapping's pairs, rejecting non-scalar, unknown and duplicate
// keys. known == nil accepts any key.
func (l *loader) fields(n *yaml.Node, path, what string, known []string, fn func(key string, k, v *yaml.Node) error) error {
	if n.Kind != yaml.MappingNode {
		return l.errAt(n, path, "expected %s, got %s", what, describe(n))
	}
	seen := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			return l.errAt(k, path, "expected a key name, got %s", describe(k))
		}
		if known != nil && !contains(known, k.Value) {
			return l.errAt(k, path, "unknown key %s; expected one of: %s", strconv.Quote(clip(k.Value, 40)), strings.Join(known, ", "))
		}
		if prev, ok := seen[k.Value]; ok {
			return l.errAt(k, path, "duplicate key %s (first at line %d:%d)", strconv.Quote(clip(k.Value, 40)), prev.Line, prev.Column)
		}
		seen[k.Value] = k
		if err := fn(k.Value, k, v); err != nil {
			return err
		}
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func (l *loader) text(n *yaml.Node, path, what string) (string, error) {
	l.record(path, n)
	if n.Kind != yaml.ScalarNode || isNull(n) {
		return "", l.errAt(n, path, "expected %s, got %s", what, describe(n))
	}
	return n.Value, nil
}

func (l *loader) integer(n *yaml.Node, path, what string) (int, error) {
	l.record(path, n)
	var v int
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" || n.Decode(&v) != nil {
		return 0, l.errAt(n, path, "expected %s, got %s", what, describe(n))
	}
	return v, nil
}

func (l *loader) number(n *yaml.Node, path, what string) (float64, error) {
	l.record(path, n)
	var v float64
	if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") || n.Decode(&v) != nil {
		return 0, l.errAt(n, path, "expected %s, got %s", what, describe(n))
	}
	return v, nil
}

func (l *loader) boolean(n *yaml.Node, path string) (bool, error) {
	l.record(path, n)
	var v bool
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" || n.Decode(&v) != nil {
		return false, l.errAt(n, path, "expected true or false, got %s", describe(n))
	}
	return v, nil
}

func (l *loader) list(n *yaml.Node, path, what string) ([]*yaml.Node, error) {
	l.record(path, n)
	if n.Kind != yaml.SequenceNode {
		return nil, l.errAt(n, path, "expected %s, got %s", what, describe(n))
	}
	return n.Content, nil
}

func (l *loader) stringList(n *yaml.Node, path, what string) ([]string, error) {
	items, err := l.list(n, path, "a list of "+what)
	if err != nil {
		return nil, err
	}
	var out []string
	for j, it := range items {
		s, err := l.text(it, fmt.Sprintf("%s[%d]", path, j), what)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

func (l *loader) rubric(root *yaml.Node) (*Rubric, error) {
	r := &Rubric{}
	err := l.fields(root, "", "a mapping with name and criteria", rubricKeys, func(key string, k, v *yaml.Node) error {
		if isNull(v) {
			l.record(key, v)
			return nil // an empty optional value; required ones are checked later
		}
		var err error
		switch key {
		case "name":
			r.Name, err = l.text(v, key, "a rubric name")
		case "version":
			r.Version, err = l.text(v, key, "a version label")
		case "hash":
			// Written by `rubric export --format json`; checked after loading.
			l.record(key, v)
			l.hash, err = l.text(v, key, "the sha256:<hex> hash of an exported rubric")
		case "threshold":
			r.Threshold, err = l.number(v, key, "a number within 0..100")
		case "criteria":
			var items []*yaml.Node
			if items, err = l.list(v, key, "a list of criteria"); err != nil {
				return err
			}
			if len(items) > 0 {
				l.record(key, k) // rules about the whole list point at its key
			}
			if len(items) > MaxCriteria {
				return l.errAt(k, key, "%d criteria: at most %d are allowed (the report shows every criterion in its table)", len(items), MaxCriteria)
			}
			for i, it := range items {
				c, err := l.criterion(it, fmt.Sprintf("criteria[%d]", i))
				if err != nil {
					return err
				}
				r.Criteria = append(r.Criteria, *c)
			}
		case "notes_required_for":
			var items []*yaml.Node
			if items, err = l.list(v, key, "a list of integer scores"); err != nil {
				return err
			}
			for j, it := range items {
				s, err := l.integer(it, fmt.Sprintf("%s[%d]", key, j), "an integer score")
				if err != nil {
					return err
				}
				r.NotesRequiredFor = append(r.NotesRequiredFor, s)
			}
		case "model_families":
			l.record(key, v)
			r.ModelFamilies = map[string][]string{}
			err = l.fields(v, key, "a mapping of family name to a list of model name prefixes", nil, func(fam string, k, pv *yaml.Node) error {
				p := key + "." + fam
				prefixes, err := l.stringList(pv, p, "model name prefixes")
				if err != nil {
					return err
				}
				r.ModelFamilies[fam] = prefixes
				return nil
			})
		}
		return err
	})
	return r, err
}

func (l *loader) criterion(n *yaml.Node, path string) (*Criterion, error) {
	l.record(path, n)
	c := &Criterion{Weight: 1}
	hasScale := false
	err := l.fields(n, path, "a criterion mapping with id and scale", criterionKeys, func(key string, k, v *yaml.Node) error {
		p := path + "." + key
		if isNull(v) {
			l.record(p, v)
			return nil
		}
		var err error
		switch key {
		case "id":
			c.ID, err = l.text(v, p, "an id matching [a-z0-9_]+")
		case "name":
			c.Name, err = l.text(v, p, "a display name")
		case "description":
			c.Description, err = l.text(v, p, "a description")
		case "weight":
			c.Weight, err = l.number(v, p, "a finite number >= 0")
		case "scale":
			hasScale = true
			c.Scale, err = l.scale(v, p)
		case "anchors":
			c.Anchors, err = l.anchors(v, p)
		case "critical":
			var m float64
			m, err = l.number(v, p, "a minimum score inside the scale (an integer unless continuous: true)")
			c.Critical = &m
		case "continuous":
			c.Continuous, err = l.boolean(v, p)
		case "from":
			c.From, err = l.from(v, p)
		case "blocking":
			c.Blocking, err = l.boolean(v, p)
		case "na":
			c.NA, err = l.boolean(v, p)
		case "aliases":
			c.Aliases, err = l.stringList(v, p, "column names")
		}
		return err
	})
	if err != nil {
		return nil, err
	}
	if !hasScale {
		return nil, l.errAt(n, path+".scale", "required; expected [lowest, highest] integers with lowest < highest")
	}
	return c, nil
}

// from reads a criterion's `from`: format name -> metric name, or
// format name -> {metric, scale}.
func (l *loader) from(n *yaml.Node, path string) (map[string]Source, error) {
	l.record(path, n)
	out := map[string]Source{}
	err := l.fields(n, path, "a mapping of results format to metric name", nil, func(format string, k, v *yaml.Node) error {
		p := path + "." + format
		l.record(p, k)
		if !contains(Sources, format) {
			return l.errAt(k, path, "unknown results format %s; expected one of: %s", strconv.Quote(clip(format, 40)), strings.Join(Sources, ", "))
		}
		if v.Kind == yaml.ScalarNode {
			m, err := l.text(v, p, "a metric name, or a mapping with metric and scale")
			if err != nil {
				return err
			}
			l.record(p, k)
			out[format] = Source{Metric: m}
			return nil
		}
		var s Source
		err := l.fields(v, p, "a metric name, or a mapping with metric and scale", sourceKeys, func(key string, _, fv *yaml.Node) error {
			var err error
			switch key {
			case "metric":
				s.Metric, err = l.text(fv, p+".metric", "a metric name")
			case "scale":
				var sc Scale
				sc, err = l.scale(fv, p+".scale")
				s.Scale = &sc
			}
			return err
		})
		if err != nil {
			return err
		}
		out[format] = s
		return nil
	})
	return out, err
}

func (l *loader) scale(n *yaml.Node, path string) (Scale, error) {
	l.record(path, n)
	const want = "expected [lowest, highest] integers with lowest < highest, got %s"
	if n.Kind != yaml.SequenceNode || len(n.Content) != 2 {
		return Scale{}, l.errAt(n, path, want, flow(n))
	}
	var b [2]int
	for i, it := range n.Content {
		if it.Kind != yaml.ScalarNode || it.ShortTag() != "!!int" || it.Decode(&b[i]) != nil {
			return Scale{}, l.errAt(it, path, want, flow(n))
		}
	}
	return Scale{Low: b[0], High: b[1]}, nil
}

// flow renders a node compactly for an error message.
func flow(n *yaml.Node) string {
	if n.Kind != yaml.SequenceNode {
		return describe(n)
	}
	parts := make([]string, 0, len(n.Content))
	for i, it := range n.Content {
		if i == 4 {
			parts = append(parts, "…")
			break
		}
		if it.Kind == yaml.ScalarNode && it.ShortTag() != "!!str" {
			parts = append(parts, clip(it.Value, 20))
		} else {
			parts = append(parts, describe(it))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func (l *loader) anchors(n *yaml.Node, path string) (map[int]string, error) {
	l.record(path, n)
	out := map[int]string{}
	keyPos := map[int]*yaml.Node{}
	err := l.fields(n, path, "a mapping of integer level to description", nil, func(key string, k, v *yaml.Node) error {
		tag := k.ShortTag()
		if !(tag == "!!int" || tag == "!!str") || !intRe.MatchString(strings.TrimSpace(key)) {
			return l.errAt(k, path, "expected an integer level as key, got %s", describe(k))
		}
		lvl, err := strconv.Atoi(strings.TrimSpace(key))
		if err != nil || lvl < -maxBound || lvl > maxBound {
			return l.errAt(k, path, "expected an integer level as key, got %s", describe(k))
		}
		if prev, ok := keyPos[lvl]; ok {
			return l.errAt(k, path, "duplicate level %d (first at line %d:%d)", lvl, prev.Line, prev.Column)
		}
		keyPos[lvl] = k
		p := path + "." + strconv.Itoa(lvl)
		s, err := l.text(v, p, "a description of the level")
		if err != nil {
			return err
		}
		l.record(p, k) // point level errors at the key
		out[lvl] = s
		return nil
	})
	return out, err
}

func sortedFormats(m map[string]Source) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func finite(f float64) bool { return f == f && f-f == 0 }

// middle returns the central level of s, or the two central levels when the
// number of levels is even.
func middle(s Scale) []int {
	m := s.Low + (s.High-s.Low)/2
	if s.Levels()%2 == 0 {
		return []int{m, m + 1}
	}
	return []int{m}
}

func hasAny(m map[int]string, levels []int) bool {
	for _, l := range levels {
		if _, ok := m[l]; ok {
			return true
		}
	}
	return false
}

func sortedLevels(m map[int]string) []int {
	out := make([]int, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

func sortedKeys(m map[string][]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
