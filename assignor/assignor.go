package assignor

import (
	"slices"
	"strings"

	"github.com/coordsim/coordsim/kerr"
)

// Assignor computes a consumer group's target assignment: Kafka's
// ConsumerGroupPartitionAssignor. Implementations must be deterministic and
// keep no state between calls; a bad Spec gets an error and no Target.
type Assignor interface {
	// Name is the name members select the assignor by (the ServerAssignor
	// field of ConsumerGroupHeartbeat) and the broker lists it under in
	// group.consumer.assignors.
	Name() string
	// Assign returns the target assignment for spec. It never modifies spec.
	Assign(spec *Spec) (Target, error)
}

// SubscriptionType is Kafka's SubscriptionType: whether every member
// subscribes to the same topics.
type SubscriptionType int8

const (
	// SubscriptionAuto derives the type from the members' subscriptions.
	SubscriptionAuto SubscriptionType = iota
	// Homogeneous: every member subscribes to the same topics.
	Homogeneous
	// Heterogeneous: at least two members subscribe to different topics.
	// Declaring it for equal subscriptions is allowed (Kafka's coordinator
	// counts topic names that do not exist; the builders then differ).
	Heterogeneous
)

// Spec is the input of an assignment: Kafka's GroupSpec and
// SubscribedTopicDescriber in one value.
type Spec struct {
	// Members of the group, in any order; ids must be unique.
	Members []Member
	// Topics is the metadata of every topic a member subscribes to (others
	// may be present and are ignored); names must be unique.
	Topics []Topic
	// SubscriptionType, SubscriptionAuto to derive it. Homogeneous with
	// different subscriptions is refused.
	SubscriptionType SubscriptionType
}

// Member is one member as an assignor sees it: Kafka's MemberSubscription
// and its current target assignment.
type Member struct {
	ID string
	// InstanceID is the static member's group.instance.id, "" for a dynamic
	// member. Range orders static members first, by instance id.
	InstanceID string
	// Rack is the member's client.rack, "" when unknown.
	Rack string
	// Topics are the topics the member subscribes to (resolved regular
	// expressions included); duplicates are ignored.
	Topics []string
	// Assignment is the member's current target assignment, the base for
	// stickiness. Partitions of topics not in Topics or beyond a topic's
	// partition count are dropped; a partition may appear under one member
	// only.
	Assignment []TopicPartitions
}

// Topic is a topic's metadata.
type Topic struct {
	Name string
	// ID is the topic's Kafka topic id (Uuid: most significant long
	// first, big-endian), all zero when unknown. The uniform assignor
	// visits topics in the orders Kafka's HashSets and HashMaps of topic
	// ids give, and breaks ties between topics by id, when every topic it
	// assigns has one; otherwise by name. Non-zero ids must be unique.
	ID         [16]byte
	Partitions int32
	// Racks, when set, has one entry per partition: the racks of its
	// replicas (Kafka's SubscribedTopicDescriber.racksForPartition).
	Racks [][]string
}

// TopicPartitions is a topic and some of its partitions.
type TopicPartitions struct {
	Topic      string
	Partitions []int32
}

// Target is an assignment result: one entry per member of the Spec, sorted
// by member id, topics sorted by name, partitions ascending.
type Target []MemberAssignment

// MemberAssignment is one member's target assignment.
type MemberAssignment struct {
	MemberID   string
	Partitions []TopicPartitions
}

// Of returns the assignment of member id (nil when it has none or is not in
// the target).
func (t Target) Of(id string) []TopicPartitions {
	i, ok := slices.BinarySearchFunc(t, id, func(m MemberAssignment, id string) int { return strings.Compare(m.MemberID, id) })
	if !ok {
		return nil
	}
	return t[i].Partitions
}

// assignorError is Kafka's PartitionAssignorException as the coordinator
// reports it: an UNKNOWN_SERVER_ERROR with the assignor's message.
func assignorError(format string, args ...any) error {
	return kerr.UnknownServerError.WithMessage(format, args...)
}

// model is a validated Spec: topics and members sorted, subscriptions and
// current assignments as indices. The builders work on it.
type model struct {
	topics      []Topic // sorted by name, only the subscribed ones
	members     []mem   // sorted by id
	homogeneous bool
	// byID: every topic has an id, and ties between topics go by id
	// (kafkaOrder).
	byID bool
	// currentOwners is the owner table of the members' current
	// assignments (newOwners' shape); read only.
	currentOwners [][]int32
}

type mem struct {
	id, instanceID, rack string
	subs                 []int   // topic indices, ascending
	current              []owned // by topic index, ascending; only subscribed topics
}

// topicPartition is one partition of the topic with index topic.
type topicPartition struct {
	topic     int
	partition int32
}

// owned is a member's current partitions of one topic, ascending.
type owned struct {
	topic int
	parts []int32
}

// smallTopicCount is the most topics newModel looks up by a linear scan.
const smallTopicCount = 8

// newModel validates spec. missing formats the error for a subscription to
// a topic that is not in the metadata (each assignor has Kafka's message).
//
// It runs on every target computation, so it allocates per table, not per
// member or topic: the spec's slices are sorted copies only when they are
// not sorted already (the coordinator passes them sorted), a few topic names
// are found by a scan, and the subscriptions, owner table and current
// assignments each live in one backing array.
func newModel(spec *Spec, missing func(topic string) error) (*model, error) {
	if spec == nil {
		return nil, assignorError("nil assignment spec")
	}
	byName := func(a, b Topic) int { return strings.Compare(a.Name, b.Name) }
	meta := spec.Topics // read only
	if !slices.IsSortedFunc(meta, byName) {
		meta = slices.Clone(meta)
		slices.SortFunc(meta, byName)
	}
	for i, t := range meta {
		if t.Name == "" {
			return nil, assignorError("topic with an empty name in the metadata")
		}
		if i > 0 && meta[i-1].Name == t.Name {
			return nil, assignorError("topic %s appears twice in the metadata", t.Name)
		}
		if t.Partitions < 0 {
			return nil, assignorError("topic %s has %d partitions", t.Name, t.Partitions)
		}
		if t.Racks != nil && len(t.Racks) != int(t.Partitions) {
			return nil, assignorError("topic %s has %d partitions but racks for %d", t.Name, t.Partitions, len(t.Racks))
		}
	}
	if err := uniqueTopicIDs(meta); err != nil {
		return nil, err
	}
	// A few topics (a heartbeat's group) are found by a scan, which costs
	// no allocation; many by a map. A binary search over the names was
	// three times slower at 100 topics (BENCHMARKS.md).
	var index map[string]int // looked up only
	if len(meta) > smallTopicCount {
		index = make(map[string]int, len(meta))
		for i, t := range meta {
			index[t.Name] = i
		}
	}
	find := func(name string) (int, bool) {
		if index != nil {
			i, ok := index[name]
			return i, ok
		}
		for i := range meta {
			if meta[i].Name == name {
				return i, true
			}
		}
		return 0, false
	}
	byID := func(a, b Member) int { return strings.Compare(a.ID, b.ID) }
	members := spec.Members // read only
	if !slices.IsSortedFunc(members, byID) {
		members = slices.Clone(members)
		slices.SortFunc(members, byID)
	}
	// Keep only subscribed topics, renumbered in name order.
	used := make([]bool, len(meta))
	nsubs := 0
	for _, m := range members {
		nsubs += len(m.Topics)
	}
	subsBuf := make([]int, 0, nsubs)
	subsByMember := make([][]int, len(members))
	for i, m := range members {
		if m.ID == "" {
			return nil, assignorError("member with an empty id")
		}
		if i > 0 && members[i-1].ID == m.ID {
			return nil, assignorError("member %s appears twice", m.ID)
		}
		from := len(subsBuf)
		for _, name := range m.Topics {
			j, ok := find(name)
			if !ok {
				return nil, missing(name)
			}
			subsBuf = append(subsBuf, j)
			used[j] = true
		}
		subs := subsBuf[from:len(subsBuf):len(subsBuf)]
		slices.Sort(subs)
		subsByMember[i] = slices.Compact(subs)
	}
	renum := make([]int, len(meta))
	md := &model{}
	nused := 0
	for _, u := range used {
		if u {
			nused++
		}
	}
	md.topics = make([]Topic, 0, nused)
	for j, t := range meta {
		renum[j] = -1
		if used[j] {
			renum[j] = len(md.topics)
			md.topics = append(md.topics, t)
		}
	}
	owner := md.newOwners()
	md.members = make([]mem, len(members))
	for i, m := range members {
		x := mem{id: m.ID, instanceID: m.InstanceID, rack: m.Rack, subs: subsByMember[i]}
		for k, j := range x.subs {
			x.subs[k] = renum[j]
		}
		for _, tp := range m.Assignment {
			j, ok := find(tp.Topic)
			if !ok || renum[j] < 0 {
				continue // a topic nobody subscribes to, or gone from the metadata
			}
			t := renum[j]
			for _, p := range tp.Partitions {
				if p < 0 || p >= md.topics[t].Partitions {
					continue
				}
				if o := owner[t][p]; o >= 0 {
					if int(o) == i {
						continue
					}
					return nil, assignorError("partition %s-%d is in the assignments of both %s and %s", tp.Topic, p, members[o].ID, m.ID)
				}
				owner[t][p] = int32(i)
			}
		}
		md.members[i] = x
	}
	md.currentOwners = owner
	md.setCurrent()
	md.homogeneous = true
	for i := 1; i < len(md.members); i++ {
		if !slices.Equal(md.members[i].subs, md.members[0].subs) {
			md.homogeneous = false
			break
		}
	}
	switch spec.SubscriptionType {
	case Homogeneous:
		if !md.homogeneous {
			return nil, assignorError("subscription type is homogeneous but members subscribe to different topics")
		}
	case Heterogeneous:
		md.homogeneous = false
	case SubscriptionAuto:
	default:
		return nil, assignorError("unknown subscription type %d", spec.SubscriptionType)
	}
	return md, nil
}

// uniqueTopicIDs refuses two topics with one non-zero id: a few topics by
// comparing each pair, which allocates nothing, many through a map.
func uniqueTopicIDs(topics []Topic) error {
	if len(topics) <= smallTopicCount {
		for i, t := range topics {
			for _, u := range topics[i+1:] {
				if t.ID == u.ID && t.ID != ([16]byte{}) {
					return assignorError("topics %s and %s have the same topic id", t.Name, u.Name)
				}
			}
		}
		return nil
	}
	var seen map[[16]byte]string // looked up only
	for _, t := range topics {
		if t.ID == ([16]byte{}) {
			continue
		}
		if seen == nil {
			seen = make(map[[16]byte]string, len(topics))
		}
		if other, ok := seen[t.ID]; ok {
			return assignorError("topics %s and %s have the same topic id", other, t.Name)
		}
		seen[t.ID] = t.Name
	}
	return nil
}

// setCurrent fills every member's current assignment from the owner table
// of the current assignments: per member, the topics in index order and
// each topic's partitions ascending, as sorting the member's own list would
// give. All members share one array of partitions and one of topics.
func (m *model) setCurrent() {
	n := len(m.members)
	parts, partBuf := layOut(m.currentOwners, n, func(i int, topics []owned) { m.members[i].current = topics })
	for t, row := range m.currentOwners {
		for p, o := range row {
			if o < 0 {
				continue
			}
			x := &m.members[o]
			k := parts[o]
			parts[o]++
			partBuf[k] = int32(p)
			if c := len(x.current); c > 0 && x.current[c-1].topic == t {
				// The member's partitions are contiguous in partBuf.
				x.current[c-1].parts = partBuf[k-len(x.current[c-1].parts) : k+1 : k+1]
			} else {
				x.current = append(x.current, owned{topic: t, parts: partBuf[k : k+1 : k+1]})
			}
		}
	}
}

// newOwners returns an owner table (member index per partition, -1 when
// unassigned) for every topic of m, in one backing array.
func (m *model) newOwners() [][]int32 {
	total := 0
	for _, t := range m.topics {
		total += int(t.Partitions)
	}
	cells := make([]int32, total)
	for i := range cells {
		cells[i] = -1
	}
	owners := make([][]int32, len(m.topics))
	for j, t := range m.topics {
		n := int(t.Partitions)
		owners[j], cells = cells[:n:n], cells[n:]
	}
	return owners
}

// target turns an owner table into a Target: topics in name order,
// partitions ascending, every member present. The members' topic lists and
// partition lists each share one array, sized by a first pass; each
// member's slices are capped, so appending to one copies it.
func (m *model) target(owners [][]int32) Target {
	n := len(m.members)
	out := make(Target, n)
	for i, x := range m.members {
		out[i].MemberID = x.id
	}
	parts, partBuf := layOut(owners, n, func(i int, topics []TopicPartitions) { out[i].Partitions = topics })
	for j, t := range m.topics {
		for p, o := range owners[j] {
			if o < 0 {
				continue
			}
			k := parts[o]
			parts[o]++
			partBuf[k] = int32(p)
			a := out[o].Partitions
			if c := len(a); c > 0 && a[c-1].Topic == t.Name {
				a[c-1].Partitions = partBuf[k-len(a[c-1].Partitions) : k+1 : k+1]
			} else {
				out[o].Partitions = append(a, TopicPartitions{Topic: t.Name, Partitions: partBuf[k : k+1 : k+1]})
			}
		}
	}
	return out
}

func subscribed(subs []int, t int) bool {
	_, ok := slices.BinarySearch(subs, t)
	return ok
}

// layOut sizes the shared arrays of setCurrent and target for an owner
// table of n members: it hands member i (through set, and only when it
// owns a partition) an empty slice of one array of topic entries T, capped
// at the number of topics it owns, and returns the array of partitions
// with parts[i] member i's first slot in it (the next free one as the
// caller fills it). No member owning a partition gives a nil partBuf.
func layOut[T any](owners [][]int32, n int, set func(i int, topics []T)) (parts []int, partBuf []int32) {
	parts, groups, totalParts, totalGroups := countOwned(owners, n)
	if totalParts == 0 {
		return parts, nil
	}
	partBuf = make([]int32, totalParts)
	groupBuf := make([]T, totalGroups)
	pNext, gNext := 0, 0
	for i := range n {
		np, ng := parts[i], groups[i]
		parts[i] = pNext
		if ng > 0 {
			set(i, groupBuf[gNext:gNext:gNext+ng])
		}
		pNext += np
		gNext += ng
	}
	return parts, partBuf
}

// countOwned is the first pass of layOut over an owner
// table of n members: per member, the partitions it owns and the topics
// they span (topics are rows, so a member's topics are counted once each),
// and the totals that size the shared arrays.
func countOwned(owners [][]int32, n int) (parts, groups []int, totalParts, totalGroups int) {
	counts := make([]int, 3*n)
	parts, groups, last := counts[:n], counts[n:2*n], counts[2*n:]
	for i := range last {
		last[i] = -1
	}
	for t, row := range owners {
		for _, o := range row {
			if o < 0 {
				continue
			}
			parts[o]++
			if last[o] != t {
				last[o] = t
				groups[o]++
			}
		}
	}
	for i := range n {
		totalParts += parts[i]
		totalGroups += groups[i]
	}
	return parts, groups, totalParts, totalGroups
}
