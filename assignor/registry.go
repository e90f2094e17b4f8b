package assignor

import (
	"slices"
	"strings"

	"github.com/coordsim/coordsim/assignor/javaorder"
	"github.com/coordsim/coordsim/kerr"
)

// DefaultNames is Kafka's default group.consumer.assignors: uniform first,
// so uniform is the default.
var DefaultNames = []string{UniformName, RangeName}

// Builtin returns the built-in assignors, in DefaultNames order.
func Builtin() []Assignor { return []Assignor{Uniform{}, Range{}} }

// Registry is the set of assignors a broker offers (Kafka's
// group.consumer.assignors), in configuration order; the first is the
// default. It is immutable once built.
type Registry struct {
	assignors []Assignor
}

// NewRegistry returns a registry of assignors, in order. Names must be
// non-empty and unique, and there must be at least one.
func NewRegistry(assignors ...Assignor) (*Registry, error) {
	if len(assignors) == 0 {
		return nil, kerr.InvalidRequest.WithMessage("group.consumer.assignors must name at least one assignor")
	}
	for i, a := range assignors {
		if a == nil || a.Name() == "" {
			return nil, kerr.InvalidRequest.WithMessage("assignor %d has no name", i)
		}
		for _, b := range assignors[:i] {
			if b.Name() == a.Name() {
				return nil, kerr.InvalidRequest.WithMessage("assignor %s is listed twice", a.Name())
			}
		}
	}
	return &Registry{assignors: slices.Clone(assignors)}, nil
}

// FromNames builds a registry from assignor names, as the broker setting
// group.consumer.assignors lists them, looking each up among the built-in
// assignors and then among extra (custom assignors, Kafka's class names).
func FromNames(names []string, extra ...Assignor) (*Registry, error) {
	known := append(Builtin(), extra...)
	out := make([]Assignor, 0, len(names))
	for _, n := range names {
		k := slices.IndexFunc(known, func(a Assignor) bool { return a != nil && a.Name() == n })
		if k < 0 {
			return nil, kerr.InvalidRequest.WithMessage("group.consumer.assignors: unknown assignor %q", n)
		}
		out = append(out, known[k])
	}
	return NewRegistry(out...)
}

// Default returns the registry of DefaultNames.
func Default() *Registry {
	r, _ := FromNames(DefaultNames) // cannot fail: built-in names
	return r
}

// Lookup returns the assignor called name.
func (r *Registry) Lookup(name string) (Assignor, bool) {
	for _, a := range r.assignors {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Default returns the first assignor, the one a group uses when no member
// names one.
func (r *Registry) Default() Assignor { return r.assignors[0] }

// Names returns the assignors' names in configuration order.
func (r *Registry) Names() []string {
	out := make([]string, len(r.assignors))
	for i, a := range r.assignors {
		out[i] = a.Name()
	}
	return out
}

// CheckSupported returns UNSUPPORTED_ASSIGNOR with Kafka's message
// (GroupCoordinatorService.throwIfConsumerGroupHeartbeatRequestIsInvalid)
// when name is not offered, nil when it is.
func (r *Registry) CheckSupported(name string) error {
	if _, ok := r.Lookup(name); ok {
		return nil
	}
	return kerr.UnsupportedAssignor.WithMessage("ServerAssignor %s is not supported. Supported assignors: %s.", name, strings.Join(r.Names(), ", "))
}

// Preferred is ConsumerGroup.preferredServerAssignor: the assignor named
// by the most members (names is one entry per member, "" for a member that
// names none), or the default when none names one. A name the registry
// does not offer is not counted (members are checked when they name it; a
// broker restarted with fewer assignors keeps working).
//
// Kafka keeps the counts in a TimelineHashMap and takes the first maximum
// in its iteration order, so a tie goes to the name that comes first
// there; the map is taken as filled in the registry's order.
func (r *Registry) Preferred(names []string) Assignor {
	var buf [8]int
	counts := r.count(names, buf[:0])
	counted := r.countedNames(counts)
	switch len(counted) {
	case 0:
		return r.Default()
	case 1:
		return r.assignors[r.index(counted[0])]
	}
	return r.firstMax(timelineOrdered(counted), counts)
}

// PreferredAfter is ConsumerGroup.computePreferredServerAssignor(old,
// new): the preferred assignor once one member's name changes from old to
// new ("" for none; equal for a member that keeps its name) in a group
// whose members name names. Kafka copies the counts into a
// java.util.HashMap, takes one off old's count (a count reaching 0
// removes the name) and adds one to new's (a name not in the map goes to
// the head of its bucket), and takes the first maximum in that map's
// order. So the preferred assignor can differ from Preferred(names) on a
// tie although no count changed, and Kafka then bumps the group epoch
// (hasPreferredServerAssignorChanged).
func (r *Registry) PreferredAfter(names []string, old, new string) Assignor {
	var buf, afterBuf [8]int
	counts := r.count(names, buf[:0])
	after := append(afterBuf[:0], counts...) // on the stack up to 8 assignors
	oldAt, newAt := r.index(old), r.index(new)
	if oldAt >= 0 && after[oldAt] > 0 {
		after[oldAt]--
	}
	if newAt >= 0 {
		after[newAt]++
	}
	switch left := r.countedNames(after); len(left) {
	case 0:
		return r.Default()
	case 1:
		return r.assignors[r.index(left[0])] // no order to reproduce
	}
	m := javaorder.NewHashMapCopy(timelineOrdered(r.countedNames(counts)))
	if oldAt >= 0 && counts[oldAt] == 1 {
		m.Remove(old) // decValue of 1 is null: the entry goes
	}
	if newAt >= 0 {
		m.Compute(new) // a name not in the map goes to its bucket's head
	}
	return r.firstMax(m.Keys(), after)
}

// count counts the names the registry offers, by registry position, into
// buf.
func (r *Registry) count(names []string, buf []int) []int {
	var counts []int
	if cap(buf) >= len(r.assignors) {
		counts = buf[:len(r.assignors)]
		clear(counts)
	} else {
		counts = make([]int, len(r.assignors))
	}
	for _, x := range names {
		if i := r.index(x); i >= 0 {
			counts[i]++
		}
	}
	return counts
}

// index is name's registry position, -1 when the registry does not offer
// it ("" included).
func (r *Registry) index(name string) int {
	for i, a := range r.assignors {
		if a.Name() == name {
			return i
		}
	}
	return -1
}

// countedNames returns the names with a count, in registry order: the
// order the group's TimelineHashMap is taken to be filled in.
func (r *Registry) countedNames(counts []int) []string {
	var names []string
	for i, c := range counts {
		if c > 0 {
			names = append(names, r.assignors[i].Name())
		}
	}
	return names
}

// timelineOrdered is names in the order of a TimelineHashMap they were
// added to in that order.
func timelineOrdered(names []string) []string {
	out := make([]string, len(names))
	for i, k := range javaorder.TimelineOrder(names) {
		out[i] = names[k]
	}
	return out
}

// firstMax is the assignor of the first name in order with the highest
// count (Stream.max keeps the first of equals); counts are by registry
// position.
func (r *Registry) firstMax(order []string, counts []int) Assignor {
	best, bestCount := -1, 0
	for _, k := range order {
		if i := r.index(k); best < 0 || counts[i] > bestCount {
			best, bestCount = i, counts[i]
		}
	}
	return r.assignors[best]
}
