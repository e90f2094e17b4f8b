package assignor

import (
	"cmp"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/assignor/javaorder"
)

// Kafka's uniform builders break ties by the iteration order of Java hash
// tables, so the same group and metadata give one target in Kafka and
// another in a port that visits members and topics sorted:
//
//   - members in the order of TargetAssignmentBuilder's HashMap of member
//     specs (put in the group's member order; approximated here by member
//     id, which decides only between ids sharing a bucket);
//   - topics, in the homogeneous builder, in the order of the HashSet of
//     the first member's subscribed topic ids (the partitions nobody owns
//     are queued in it) and of each member's current assignment, a
//     HashMap by topic id (a member keeps its partitions up to its quota
//     in it). Both are a bucket order by Uuid.hashCode, with the same
//     table size for up to 12 topics; the one order is used for both;
//   - topics, in the heterogeneous builder, by a comparator whose last
//     tie-break is Uuid.compareTo.
//
// kafkaOrder renumbers m's members and topics so that the builders' index
// order is Kafka's; sortTarget puts the result back in the Target's
// documented order.

// kafkaOrder renumbers m's members in Kafka's order and, when every topic
// has an id, its topics too, and reports whether it changed either.
func (m *model) kafkaOrder() bool {
	moved := m.orderMembers()
	m.byID = len(m.topics) > 0
	for _, t := range m.topics {
		if t.ID == ([16]byte{}) {
			m.byID = false
			break
		}
	}
	if m.byID && m.orderTopics() {
		moved = true
	}
	return moved
}

// orderMembers renumbers the members in the order of a HashMap of their
// ids put in id order.
func (m *model) orderMembers() bool {
	if len(m.members) < 2 {
		return false
	}
	ids := make([]string, len(m.members))
	for i, x := range m.members {
		ids[i] = x.id
	}
	order := javaorder.DistinctStringMapOrder(ids, 0, javaorder.Put)
	if isIdentity(order) {
		return false
	}
	members := make([]mem, len(m.members))
	newIndex := make([]int32, len(m.members))
	for i, j := range order {
		members[i] = m.members[j]
		newIndex[j] = int32(i)
	}
	m.members = members
	for _, row := range m.currentOwners {
		for p, o := range row {
			if o >= 0 {
				row[p] = newIndex[o]
			}
		}
	}
	return true
}

// orderTopics renumbers the topics in the order of a HashSet of their ids
// sized for them and filled in the order of a HashSet of their names (the
// member's subscription, Kafka's HashSet<String>).
func (m *model) orderTopics() bool {
	if len(m.topics) < 2 {
		return false
	}
	names := make([]string, len(m.topics))
	for i, t := range m.topics {
		names[i] = t.Name
	}
	byName := javaorder.DistinctStringMapOrder(names, javaorder.SetCopyCapacity(len(names)), javaorder.Put)
	hashes := make([]int32, len(byName))
	for k, i := range byName {
		hashes[k] = javaorder.UUIDHash(m.topics[i].ID)
	}
	order := javaorder.HashMapOrder(hashes, nil, javaorder.SetCopyCapacity(len(hashes)), javaorder.Put)
	for k, i := range order {
		order[k] = byName[i]
	}
	if isIdentity(order) {
		return false
	}
	topics := make([]Topic, len(m.topics))
	owners := make([][]int32, len(m.topics))
	newIndex := make([]int, len(m.topics))
	for i, j := range order {
		topics[i] = m.topics[j]
		owners[i] = m.currentOwners[j]
		newIndex[j] = i
	}
	m.topics, m.currentOwners = topics, owners
	for i := range m.members {
		x := &m.members[i]
		for k, t := range x.subs {
			x.subs[k] = newIndex[t]
		}
		slices.Sort(x.subs)
		for k := range x.current {
			x.current[k].topic = newIndex[x.current[k].topic]
		}
		slices.SortFunc(x.current, func(a, b owned) int { return cmp.Compare(a.topic, b.topic) })
	}
	return true
}

// compareTopics is the heterogeneous builder's last tie-break between
// topics t1 and t2: Uuid.compareTo when they have ids, else their names
// (the index order without ids).
func (m *model) compareTopics(t1, t2 int) int {
	if m.byID {
		return javaorder.UUIDCompare(m.topics[t1].ID, m.topics[t2].ID)
	}
	return cmp.Compare(t1, t2)
}

// sortTarget puts a target computed on a renumbered model in the Target's
// order: members by id, each member's topics by name.
func sortTarget(t Target) Target {
	slices.SortFunc(t, func(a, b MemberAssignment) int { return strings.Compare(a.MemberID, b.MemberID) })
	for _, ma := range t {
		slices.SortFunc(ma.Partitions, func(a, b TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
	}
	return t
}

func isIdentity(order []int) bool {
	for i, j := range order {
		if i != j {
			return false
		}
	}
	return true
}
