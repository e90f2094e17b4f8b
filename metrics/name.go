package metrics

import (
	"cmp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Limits on names, so that a metric name, group or tag key is always a valid
// Prometheus name once snake-cased, and nothing is unbounded.
const (
	// MaxNameLen bounds names, groups, tag keys and sensor names, in bytes.
	MaxNameLen = 255
	// MaxTagValueLen bounds a tag value in bytes: Kafka's STRING limit, so any
	// group id fits.
	MaxTagValueLen = 32767
)

// Tag is one key/value pair of a MetricName.
type Tag struct {
	Key   string
	Value string
}

// Tags are the tags of a MetricName, kept sorted by key with unique keys so that
// names compare, print and export in one order. NewTags builds them; a Registry
// sorts a copy of any Tags it is given.
type Tags []Tag

// NewTags builds sorted Tags from alternating keys and values:
// NewTags("state", "stable", "protocol", "consumer"). An odd count, a malformed
// key or value, or a repeated key is an ErrInvalidName error.
func NewTags(keyValues ...string) (Tags, error) {
	if len(keyValues)%2 != 0 {
		return nil, newError(ErrInvalidName, "tags", "odd number of key/value strings ("+strconv.Itoa(len(keyValues))+")")
	}
	if len(keyValues) == 0 {
		return nil, nil
	}
	t := make(Tags, 0, len(keyValues)/2)
	for i := 0; i < len(keyValues); i += 2 {
		t = append(t, Tag{Key: keyValues[i], Value: keyValues[i+1]})
	}
	return t.normalize()
}

// Get returns the value of key and whether the key is present.
func (t Tags) Get(key string) (string, bool) {
	for _, tag := range t {
		if tag.Key == key {
			return tag.Value, true
		}
	}
	return "", false
}

// String prints the tags as {k="v",k2="v2"} in key order, values escaped like
// Prometheus label values; "" when there are none.
func (t Tags) String() string {
	if len(t) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteByte('{')
	for i, tag := range t {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(tag.Key)
		b.WriteString(`="`)
		_, _ = labelEscaper.WriteString(&b, tag.Value)
		b.WriteByte('"')
	}
	b.WriteByte('}')
	return b.String()
}

// normalize returns a sorted copy of t, or an error if a tag is malformed or a
// key repeats. It never modifies t.
func (t Tags) normalize() (Tags, error) {
	if len(t) == 0 {
		return nil, nil
	}
	out := slices.Clone(t)
	slices.SortStableFunc(out, func(a, b Tag) int { return strings.Compare(a.Key, b.Key) })
	for i, tag := range out {
		if err := checkIdent("tag key", tag.Key); err != nil {
			return nil, err
		}
		if len(tag.Value) > MaxTagValueLen {
			return nil, newError(ErrInvalidName, "tag "+tag.Key, "value longer than "+strconv.Itoa(MaxTagValueLen)+" bytes")
		}
		if !utf8.ValidString(tag.Value) {
			return nil, newError(ErrInvalidName, "tag "+tag.Key, "value is not valid UTF-8")
		}
		if i > 0 && out[i-1].Key == tag.Key {
			return nil, newError(ErrInvalidName, "tag "+tag.Key, "key repeated")
		}
	}
	return out, nil
}

// MetricName identifies a metric, as Kafka's MetricName: a name, a group (for
// the group coordinator "group-coordinator-metrics"), a description, and tags.
// Identity is (Name, Group, Tags); Description is documentation only.
type MetricName struct {
	// Name is Kafka's metric name, e.g. "offset-commit-rate".
	Name string
	// Group is Kafka's metric group, e.g. "group-coordinator-metrics".
	Group string
	// Description is the help text.
	Description string
	// Tags qualify the series, e.g. {protocol="consumer"}.
	Tags Tags
}

// NewMetricName builds a validated MetricName with tags from alternating keys
// and values. A malformed name, group or tag is an ErrInvalidName error.
func NewMetricName(name, group, description string, keyValues ...string) (MetricName, error) {
	tags, err := NewTags(keyValues...)
	if err != nil {
		return MetricName{}, err
	}
	m := MetricName{Name: name, Group: group, Description: description, Tags: tags}
	if err := m.Validate(); err != nil {
		return MetricName{}, err
	}
	return m, nil
}

// MustMetricName is NewMetricName for names fixed at compile time; it panics on
// an invalid name.
func MustMetricName(name, group, description string, keyValues ...string) MetricName {
	m, err := NewMetricName(name, group, description, keyValues...)
	if err != nil {
		panic(err)
	}
	return m
}

// Validate reports a malformed name, group or tag as an ErrInvalidName error.
// Unsorted tags are valid (a Registry sorts a copy); repeated keys are not.
func (m MetricName) Validate() error {
	_, err := m.normalize()
	return err
}

// String prints the canonical form group:name{k="v",...}, tags in key order
// and values escaped. Two names are the same metric exactly when their String
// forms are equal (tags must be sorted, as NewTags and a Registry keep them).
func (m MetricName) String() string {
	return m.Group + ":" + m.Name + m.Tags.String()
}

// Compare orders names by name, then group, then tags (key, then value, pair by
// pair; a prefix first). It is the order of Snapshot. Description is ignored.
func (m MetricName) Compare(o MetricName) int {
	if c := strings.Compare(m.Name, o.Name); c != 0 {
		return c
	}
	if c := strings.Compare(m.Group, o.Group); c != 0 {
		return c
	}
	return slices.CompareFunc(m.Tags, o.Tags, func(a, b Tag) int {
		return cmp.Or(strings.Compare(a.Key, b.Key), strings.Compare(a.Value, b.Value))
	})
}

// normalize validates m and returns it with its tags sorted into a fresh slice,
// so the caller's slice is never aliased or modified.
func (m MetricName) normalize() (MetricName, error) {
	if err := checkIdent("metric name", m.Name); err != nil {
		return MetricName{}, err
	}
	if err := checkIdent("metric group", m.Group); err != nil {
		return MetricName{}, err
	}
	if !utf8.ValidString(m.Description) {
		return MetricName{}, newError(ErrInvalidName, m.Name, "description is not valid UTF-8")
	}
	tags, err := m.Tags.normalize()
	if err != nil {
		return MetricName{}, err
	}
	m.Tags = tags
	return m, nil
}

// checkIdent checks a name, group or tag key: ASCII letters, digits, '-' and
// '_', starting with a letter, 1 to MaxNameLen bytes.
func checkIdent(what, s string) error {
	if s == "" {
		return newError(ErrInvalidName, what, "empty")
	}
	if len(s) > MaxNameLen {
		return newError(ErrInvalidName, what, strconv.Quote(s[:32])+"... is longer than "+strconv.Itoa(MaxNameLen)+" bytes")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if i == 0 && !letter {
			return newError(ErrInvalidName, what, strconv.Quote(s)+" does not start with a letter")
		}
		if !letter && !(c >= '0' && c <= '9') && c != '-' && c != '_' {
			return newError(ErrInvalidName, what, strconv.Quote(s)+" has a character other than letters, digits, '-' and '_'")
		}
	}
	return nil
}

// checkSensorName checks a sensor name: Kafka allows any string ("OffsetCommits",
// "topic.foo.bytes"); coordsim requires 1 to MaxNameLen bytes of valid UTF-8
// without control characters.
func checkSensorName(s string) error {
	if s == "" {
		return newError(ErrInvalidName, "sensor name", "empty")
	}
	if len(s) > MaxNameLen {
		return newError(ErrInvalidName, "sensor name", "longer than "+strconv.Itoa(MaxNameLen)+" bytes")
	}
	if !utf8.ValidString(s) {
		return newError(ErrInvalidName, "sensor name", "not valid UTF-8")
	}
	for _, r := range s {
		if r < 0x20 || r == 0x7f {
			return newError(ErrInvalidName, "sensor name", strconv.Quote(s)+" has a control character")
		}
	}
	return nil
}

// labelEscaper is Prometheus' label-value escaping: backslash, double
// quote and newline.
var labelEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`)
