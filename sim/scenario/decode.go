package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/coordsim/coordsim/internal/topicname"
	"github.com/coordsim/coordsim/sim"
)

// Limits on what a scenario file may hold (TIGER_STYLE: a limit on everything).
const (
	maxFileBytes   = 1 << 20 // a scenario is a page of YAML; 1 MiB is generous
	maxKeyLen      = 128     // longer keys are reported truncated, without a suggestion
	maxNameLen     = 64
	maxTopics      = 10_000
	maxTopicParts  = 100_000
	maxMarks       = 256
	maxAliasHops   = 16
	maxValueQuoted = 40 // how much of a bad value an error message quotes
)

var (
	// yamlLineErr matches the parser's "yaml: line 3: did not find expected key".
	yamlLineErr = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	// nameRe is what a scenario name may look like: it appears in reports, file
	// names and on the command line.
	nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)
)

// decoder turns one YAML document into a Scenario. It remembers the value node
// of every key given, so a failure of sim.Options.Validate can point at a line.
type decoder struct {
	file  string
	given map[string]*yaml.Node // dotted key → its value node
}

// field is one known key of a mapping and what to do with its value.
type field struct {
	key string
	set func(path string, n *yaml.Node) *Error
}

func keysOf(fields []field) []string {
	keys := make([]string, len(fields))
	for i, f := range fields {
		keys[i] = f.key
	}
	return keys
}

// parse is Parse without the final validation.
func parse(file string, data []byte) (sc *Scenario, d *decoder, perr *Error) {
	d = &decoder{file: file, given: map[string]*yaml.Node{}}
	if len(data) > maxFileBytes {
		return nil, d, d.errAt(nil, "", "file too large (%d bytes, at most %d)", len(data), maxFileBytes)
	}
	root, perr := d.document(data)
	if perr != nil {
		return nil, d, perr
	}
	sc = &Scenario{Options: sim.DefaultOptions()}
	if perr := d.mapping("", root, d.topFields(sc), d.sections("")); perr != nil {
		return nil, d, perr
	}
	if _, ok := d.given["name"]; !ok {
		return nil, d, d.errAt(root, "name", "required key missing")
	}
	sc.Options.Scenario = sc.Name
	return sc, d, nil
}

// document parses the YAML and returns its root mapping. Exactly one document
// is allowed. The YAML library reports its own failures as errors; the recover
// is a second line of defence, because Parse must never panic on any input.
func (d *decoder) document(data []byte) (root *yaml.Node, perr *Error) {
	defer func() {
		if r := recover(); r != nil {
			root, perr = nil, d.errAt(nil, "", "invalid YAML: %v", r)
		}
	}()
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, d.errAt(nil, "", "empty file (a scenario needs at least %q)", "name")
		}
		return nil, d.yamlErr(err)
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		return nil, d.errAt(&extra, "", "more than one YAML document (a scenario file holds one)")
	} else if !errors.Is(err, io.EOF) {
		return nil, d.yamlErr(err)
	}
	root = &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	root = deref(root)
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, d.errAt(nil, "", "empty file (a scenario needs at least %q)", "name")
	}
	if root.Kind != yaml.MappingNode {
		return nil, d.errAt(root, "", "the file must be a mapping of keys (name: ..., duration: ...), got %s", describe(root))
	}
	return root, nil
}

// yamlErr turns a YAML syntax error into an *Error, keeping its line.
func (d *decoder) yamlErr(err error) *Error {
	e := &Error{File: d.file, Line: 1, Msg: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := yamlLineErr.FindStringSubmatch(err.Error()); m != nil {
		if line, convErr := strconv.Atoi(m[1]); convErr == nil && line > 0 {
			e.Line, e.Msg = line, "invalid YAML: "+m[2]
		}
	}
	return e
}

// errAt builds an *Error at node n (line 1 when n is nil or has no position).
func (d *decoder) errAt(n *yaml.Node, key, format string, args ...any) *Error {
	e := &Error{File: d.file, Line: 1, Key: truncate(key, maxKeyLen), Msg: fmt.Sprintf(format, args...)}
	if n != nil && n.Line > 0 {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

// mapping walks a mapping node: every key must be a known field, given once.
// elsewhere lists the other sections' keys, to say where a misplaced key belongs.
func (d *decoder) mapping(path string, n *yaml.Node, fields []field, elsewhere map[string]string) *Error {
	n = deref(n)
	if n.Kind != yaml.MappingNode {
		return d.errAt(n, path, "expects a mapping of keys, got %s", describe(n))
	}
	return d.entries(path, n, "key", func(k, v *yaml.Node, key, full string) *Error {
		f := lookup(fields, key)
		if f == nil {
			hint := ""
			if len(key) <= maxKeyLen {
				if section, ok := elsewhere[key]; ok {
					hint = fmt.Sprintf(" (it belongs under %s:)", section)
				} else {
					hint = suggest(key, keysOf(fields))
				}
			}
			return d.errAt(k, full, "unknown key%s", hint)
		}
		d.given[full] = v
		return f.set(full, v)
	})
}

// entries walks the pairs of mapping node n in order: every key a plain
// name given once (a repeat is a "duplicate <what>" at its line), each
// handed to fn with its value and its full path. The first error stops it.
func (d *decoder) entries(path string, n *yaml.Node, what string, fn func(k, v *yaml.Node, key, full string) *Error) *Error {
	seen := map[string]int{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := deref(n.Content[i]), deref(n.Content[i+1])
		key, perr := d.key(path, k)
		if perr != nil {
			return perr
		}
		full := join(path, key)
		if first, dup := seen[key]; dup {
			return d.errAt(k, full, "duplicate %s (first given at line %d)", what, first)
		}
		seen[key] = k.Line
		if perr := fn(k, v, key, full); perr != nil {
			return perr
		}
	}
	return nil
}

// key reads a mapping key: a plain scalar name.
func (d *decoder) key(path string, k *yaml.Node) (string, *Error) {
	if k.Kind != yaml.ScalarNode {
		return "", d.errAt(k, path, "a key must be a plain name, got %s", describe(k))
	}
	if k.ShortTag() == "!!merge" {
		return "", d.errAt(k, join(path, k.Value), "merge keys (<<) are not supported; write the keys out")
	}
	return k.Value, nil
}

func lookup(fields []field, key string) *field {
	for i := range fields {
		if fields[i].key == key {
			return &fields[i]
		}
	}
	return nil
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// deref follows aliases (*name) to the anchored node, a bounded number of hops.
func deref(n *yaml.Node) *yaml.Node {
	if n == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null"}
	}
	for i := 0; n.Kind == yaml.AliasNode && n.Alias != nil && i < maxAliasHops; i++ {
		n = n.Alias
	}
	return n
}

// describe names what a node is, for "expects X, got Y" messages.
func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.DocumentNode:
		return "a document"
	case yaml.ScalarNode:
		v := truncate(n.Value, maxValueQuoted)
		switch n.ShortTag() {
		case "!!null":
			return "no value (null)"
		case "!!str":
			return "the string " + strconv.Quote(v)
		case "!!int":
			return "the integer " + plain(v)
		case "!!float":
			return "the number " + plain(v)
		case "!!bool":
			return "the boolean " + plain(v)
		default:
			return fmt.Sprintf("%s %s", strconv.Quote(truncate(n.ShortTag(), maxValueQuoted)), strconv.Quote(v))
		}
	}
	return "nothing"
}

// plain prints a value as is when that is safe on one line, else quoted (an
// explicit tag such as !!int can carry any text).
func plain(v string) string {
	if q := strconv.Quote(v); q[1:len(q)-1] != v {
		return q
	}
	return v
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary so the message stays valid UTF-8.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}

func isScalar(n *yaml.Node, tags ...string) bool {
	if n.Kind != yaml.ScalarNode {
		return false
	}
	for _, t := range tags {
		if n.ShortTag() == t {
			return true
		}
	}
	return false
}

// --- scalar readers -------------------------------------------------------

func (d *decoder) str(path string, n *yaml.Node) (string, *Error) {
	if !isScalar(n, "!!str") {
		hint := ""
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			hint = " (quote it to make it a string)"
		}
		return "", d.errAt(n, path, "expects a string, got %s%s", describe(n), hint)
	}
	return n.Value, nil
}

func (d *decoder) boolean(path string, n *yaml.Node) (bool, *Error) {
	var b bool
	if !isScalar(n, "!!bool") || n.Decode(&b) != nil {
		return false, d.errAt(n, path, "expects true or false, got %s", describe(n))
	}
	return b, nil
}

// integer reads an integer in [lo, hi].
func (d *decoder) integer(path string, n *yaml.Node, lo, hi int64) (int64, *Error) {
	if !isScalar(n, "!!int") {
		return 0, d.errAt(n, path, "expects an integer, got %s", describe(n))
	}
	var v int64
	if err := n.Decode(&v); err != nil {
		// Either beyond int64 (a valid uint64) or text under an explicit !!int tag.
		var u uint64
		if n.Decode(&u) != nil {
			return 0, d.errAt(n, path, "expects an integer, got %s", describe(n))
		}
		v = math.MaxInt64
	}
	if v < lo || v > hi {
		if lo == 0 && hi >= math.MaxInt32 {
			return 0, d.errAt(n, path, "must be an integer >= 0, got %s", plain(truncate(n.Value, maxValueQuoted)))
		}
		return 0, d.errAt(n, path, "must be an integer in [%d, %d], got %s", lo, hi, plain(truncate(n.Value, maxValueQuoted)))
	}
	return v, nil
}

func (d *decoder) unsigned(path string, n *yaml.Node) (uint64, *Error) {
	if !isScalar(n, "!!int") {
		return 0, d.errAt(n, path, "expects an unsigned integer, got %s", describe(n))
	}
	var v uint64
	if err := n.Decode(&v); err != nil {
		var i int64
		if n.Decode(&i) != nil {
			return 0, d.errAt(n, path, "expects an unsigned integer, got %s", describe(n))
		}
		return 0, d.errAt(n, path, "must be an integer in [0, %d], got %s", uint64(math.MaxUint64), plain(truncate(n.Value, maxValueQuoted)))
	}
	return v, nil
}

// number reads a finite number; an integer is accepted.
func (d *decoder) number(path string, n *yaml.Node) (float64, *Error) {
	var v float64
	if !isScalar(n, "!!float", "!!int") || n.Decode(&v) != nil {
		return 0, d.errAt(n, path, "expects a number, got %s", describe(n))
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, d.errAt(n, path, "must be a finite number, got %s", plain(truncate(n.Value, maxValueQuoted)))
	}
	return v, nil
}

func (d *decoder) probability(path string, n *yaml.Node) (float64, *Error) {
	v, perr := d.number(path, n)
	if perr != nil {
		return 0, perr
	}
	if v < 0 || v > 1 {
		return 0, d.errAt(n, path, "a probability must be in [0, 1], got %s", plain(truncate(n.Value, maxValueQuoted)))
	}
	return v, nil
}

// duration reads a Go duration string ("90s", "10m", "48h"); a bare 0 is
// accepted as zero.
func (d *decoder) duration(path string, n *yaml.Node) (time.Duration, *Error) {
	if isScalar(n, "!!int") {
		var v int64
		if n.Decode(&v) == nil && v == 0 {
			return 0, nil
		}
		return 0, d.errAt(n, path, "expects a duration such as \"10m\", got %s (a number needs a unit: %ss)",
			describe(n), plain(truncate(n.Value, maxValueQuoted)))
	}
	if !isScalar(n, "!!str") {
		return 0, d.errAt(n, path, "expects a duration such as \"10m\", got %s", describe(n))
	}
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		hint := "units: ms, s, m, h"
		if strings.HasSuffix(n.Value, "d") {
			hint = "there is no day unit: write 48h for two days"
		}
		return 0, d.errAt(n, path, "%q is not a duration (%s)", truncate(n.Value, maxValueQuoted), hint)
	}
	return v, nil
}

// --- field helpers --------------------------------------------------------

func (d *decoder) intField(key string, dst *int, lo, hi int64) field {
	return field{key, func(p string, n *yaml.Node) *Error {
		v, perr := d.integer(p, n, lo, hi)
		*dst = int(v)
		return perr
	}}
}

func (d *decoder) int32Field(key string, dst *int32) field {
	return field{key, func(p string, n *yaml.Node) *Error {
		v, perr := d.integer(p, n, math.MinInt32, math.MaxInt32)
		*dst = int32(v)
		return perr
	}}
}

func (d *decoder) numberField(key string, dst *float64) field {
	return field{key, func(p string, n *yaml.Node) (perr *Error) {
		*dst, perr = d.number(p, n)
		return perr
	}}
}

func (d *decoder) probField(key string, dst *float64) field {
	return field{key, func(p string, n *yaml.Node) (perr *Error) {
		*dst, perr = d.probability(p, n)
		return perr
	}}
}

func (d *decoder) durField(key string, dst *time.Duration) field {
	return field{key, func(p string, n *yaml.Node) (perr *Error) {
		*dst, perr = d.duration(p, n)
		return perr
	}}
}

func (d *decoder) strField(key string, dst *string) field {
	return field{key, func(p string, n *yaml.Node) (perr *Error) {
		*dst, perr = d.str(p, n)
		return perr
	}}
}

// --- the schema -----------------------------------------------------------

// topFields are the top-level keys. Keep them, workloadFields, faultFields,
// the package doc and SCHEMA.md in step (TestSchemaIsDocumented checks it).
func (d *decoder) topFields(sc *Scenario) []field {
	o := &sc.Options
	return append(append([]field{
		{"name", func(p string, n *yaml.Node) *Error {
			s, perr := d.str(p, n)
			if perr != nil {
				return perr
			}
			if len(s) > maxNameLen || !nameRe.MatchString(s) {
				return d.errAt(n, p, "a name is 1 to %d letters, digits, '.', '_' or '-', starting with a letter or digit; got %q",
					maxNameLen, truncate(s, maxValueQuoted))
			}
			sc.Name = s
			return nil
		}},
		d.strField("description", &sc.Description),
		{"seed", func(p string, n *yaml.Node) (perr *Error) {
			o.Seed, perr = d.unsigned(p, n)
			return perr
		}},
	}, d.paramFields("", o)...), []field{
		{"faults", func(p string, n *yaml.Node) *Error { return d.faults(p, n, &o.Faults) }},
		{"workload", func(p string, n *yaml.Node) *Error {
			return d.mapping(p, n, d.workloadFields(o), d.sections("workload"))
		}},
		{"connect", func(p string, n *yaml.Node) *Error {
			sc.connect = n
			o.Connect = connectDefaults()
			return d.mapping(p, n, d.connectFields(o.Connect), nil)
		}},
		{"required_marks", func(p string, n *yaml.Node) (perr *Error) {
			sc.RequiredMarks, perr = d.marks(p, n)
			return perr
		}},
	}...)
}

// sections maps each key of the workload and faults sections to its section,
// leaving out the keys of the section being read: the hints for a key given
// at the wrong level ("streams_apps" at the top belongs under workload:).
func (d *decoder) sections(reading string) map[string]string {
	out := map[string]string{}
	if reading != "workload" {
		for _, k := range keysOf(d.workloadFields(&sim.Options{})) {
			out[k] = "workload"
		}
	}
	if reading != "faults" {
		for _, k := range keysOf(d.faultFields(&sim.Options{})) {
			if k != "preset" {
				out[k] = "faults"
			}
		}
	}
	return out
}

// workloadFields are the workload section's keys: its parameters in the
// sim.Params table, and the topic image.
func (d *decoder) workloadFields(o *sim.Options) []field {
	return append(d.paramFields("workload", o), field{"topics", func(p string, n *yaml.Node) (perr *Error) {
		o.Workload.Topics, perr = d.topics(p, n)
		return perr
	}})
}

// faultFields are the fault parameters of the sim.Params table plus
// "preset", which faults() applies before the overrides wherever it appears
// in the mapping.
func (d *decoder) faultFields(o *sim.Options) []field {
	return append([]field{{"preset", func(string, *yaml.Node) *Error { return nil }}}, d.paramFields("faults", o)...)
}

// paramFields are the keys of one section ("" for the top level) that the
// sim.Params table defines, each read by its type and stored with Set.
func (d *decoder) paramFields(section string, o *sim.Options) []field {
	var out []field
	for _, prm := range sim.Params {
		sec, key := prm.Section()
		if sec != section {
			continue
		}
		out = append(out, field{key, func(p string, n *yaml.Node) *Error {
			var text string
			switch prm.Type {
			case sim.TypeInt:
				v, perr := d.integer(p, n, math.MinInt32, math.MaxInt32)
				if perr != nil {
					return perr
				}
				text = strconv.FormatInt(v, 10)
			case sim.TypeNumber, sim.TypeProb:
				read := d.number
				if prm.Type == sim.TypeProb {
					read = d.probability
				}
				v, perr := read(p, n)
				if perr != nil {
					return perr
				}
				text = strconv.FormatFloat(v, 'g', -1, 64)
			case sim.TypeDuration:
				v, perr := d.duration(p, n)
				if perr != nil {
					return perr
				}
				text = v.String()
			case sim.TypeBool:
				v, perr := d.boolean(p, n)
				if perr != nil {
					return perr
				}
				text = strconv.FormatBool(v)
			default:
				v, perr := d.str(p, n)
				if perr != nil {
					return perr
				}
				text = v
			}
			if err := prm.Set(o, text); err != nil {
				return d.errAt(n, p, "must be %s, got %q", prm.Range(), truncate(text, maxValueQuoted))
			}
			return nil
		}})
	}
	return out
}

// faults reads either a preset name or a mapping of a preset plus overrides.
// Without a preset the overrides apply to the default faults.
func (d *decoder) faults(path string, n *yaml.Node, dst *sim.Faults) *Error {
	if n.Kind == yaml.ScalarNode {
		f, perr := d.preset(path, n)
		if perr == nil {
			*dst = f
		}
		return perr
	}
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := deref(n.Content[i]); k.Kind == yaml.ScalarNode && k.Value == "preset" {
				f, perr := d.preset(join(path, "preset"), deref(n.Content[i+1]))
				if perr != nil {
					return perr
				}
				*dst = f
				break // a second "preset" is reported as a duplicate by mapping()
			}
		}
		o := &sim.Options{Faults: *dst}
		perr := d.mapping(path, n, d.faultFields(o), d.sections("faults"))
		*dst = o.Faults
		return perr
	}
	return d.errAt(n, path, "expects a preset (none, light, heavy) or a mapping of preset and overrides, got %s", describe(n))
}

func (d *decoder) preset(path string, n *yaml.Node) (sim.Faults, *Error) {
	s, perr := d.str(path, n)
	if perr != nil {
		return sim.Faults{}, perr
	}
	switch p := sim.FaultPreset(s); p {
	case sim.FaultsNone, sim.FaultsLight, sim.FaultsHeavy:
		f, err := sim.PresetFaults(p)
		if err != nil {
			return sim.Faults{}, d.errAt(n, path, "%v", err)
		}
		return f, nil
	}
	return sim.Faults{}, d.errAt(n, path, "unknown fault preset %q (none, light, heavy)", truncate(s, maxValueQuoted))
}

func (d *decoder) topics(path string, n *yaml.Node) (map[string]int32, *Error) {
	if n.Kind != yaml.MappingNode {
		return nil, d.errAt(n, path, "expects a mapping of topic name to partitions, got %s", describe(n))
	}
	if len(n.Content) == 0 {
		return nil, d.errAt(n, path, "lists no topic (leave the key out for the default topics)")
	}
	if len(n.Content)/2 > maxTopics {
		return nil, d.errAt(n, path, "too many topics (%d, at most %d)", len(n.Content)/2, maxTopics)
	}
	topics := make(map[string]int32, len(n.Content)/2)
	if perr := d.entries(path, n, "topic", func(k, v *yaml.Node, name, full string) *Error {
		if topicname.Problem(name) != "" {
			return d.errAt(k, full, "not a legal Kafka topic name (1 to %d of [A-Za-z0-9._-], not . or ..)", topicname.MaxLength)
		}
		parts, perr := d.integer(full, v, 1, maxTopicParts)
		if perr != nil {
			return perr
		}
		topics[name] = int32(parts)
		return nil
	}); perr != nil {
		return nil, perr
	}
	return topics, nil
}

func (d *decoder) marks(path string, n *yaml.Node) ([]string, *Error) {
	if n.Kind != yaml.SequenceNode {
		return nil, d.errAt(n, path, "expects a list of mark names, got %s", describe(n))
	}
	if len(n.Content) > maxMarks {
		return nil, d.errAt(n, path, "too many marks (%d, at most %d)", len(n.Content), maxMarks)
	}
	marks := make([]string, 0, len(n.Content))
	seen := map[string]int{}
	for _, item := range n.Content {
		item = deref(item)
		s, perr := d.str(path, item)
		if perr != nil {
			return nil, perr
		}
		if s == "" {
			return nil, d.errAt(item, path, "a mark name cannot be empty")
		}
		if first, dup := seen[s]; dup {
			return nil, d.errAt(item, path, "mark %q listed twice (first at line %d)", truncate(s, maxValueQuoted), first)
		}
		seen[s] = item.Line
		marks = append(marks, s)
	}
	return marks, nil
}
