package refmodel

import (
	"cmp"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// Facts are what a client can learn of one partition's groups and offsets,
// in one representation both the model and the live shard are put in:
// everything sorted, partitions and tasks as strings.
type Facts struct {
	Groups  []Group  // by id, then type
	Offsets []Offset // committed offsets, by key
	// Pending are the partitions with a pending transactional offset, and
	// OpenTxn the groups with one, sorted.
	Pending []offsets.Key
	OpenTxn []string
}

// Group is one group's facts. A classic group's are its id, type and
// generation only: its members live in the classic state machine's records
// (GroupMetadata, ClassicGroupState), which the model does not read.
type Group struct {
	ID              string
	Type            shard.GroupType
	Epoch           int32 // the group epoch (a classic group's generation)
	AssignmentEpoch int32 // the target assignment epoch
	Members         []Member
}

// Member is one modern member's facts.
type Member struct {
	ID    string
	Epoch int32
	// Assigned are the partitions (streams: tasks) the member holds,
	// Revoking those it must revoke, Target its target assignment.
	Assigned, Revoking, Target []string
}

// Offset is one committed offset.
type Offset struct {
	Key   offsets.Key
	Value offsets.OffsetAndMetadata
}

// InitialAssignmentEpoch is a modern group's target assignment epoch before
// any target assignment metadata record (Kafka 4.4's
// TargetAssignmentMetadata.INITIAL).
const InitialAssignmentEpoch = 1

// Facts derives the facts from the folded records.
func (m *Model) Facts() Facts {
	var f Facts
	for id, gen := range m.classic {
		f.Groups = append(f.Groups, Group{ID: id, Type: shard.Classic, Epoch: gen})
	}
	byGroup := map[groupKey][]Member{}
	for k := range m.members {
		c := m.current[k]
		byGroup[k.groupKey] = append(byGroup[k.groupKey], Member{ID: k.member, Epoch: c.epoch, Assigned: c.assigned, Revoking: c.revoke, Target: m.target[k]})
	}
	for k, epoch := range m.epoch {
		members := byGroup[k]
		slices.SortFunc(members, func(a, b Member) int { return cmp.Compare(a.ID, b.ID) })
		ae, ok := m.assignmentEpoch[k]
		if !ok {
			ae = InitialAssignmentEpoch
		}
		f.Groups = append(f.Groups, Group{ID: k.id, Type: k.typ, Epoch: epoch, AssignmentEpoch: ae, Members: members})
	}
	SortGroups(f.Groups)
	for k, o := range m.committed {
		f.Offsets = append(f.Offsets, Offset{Key: k, Value: o.v})
	}
	slices.SortFunc(f.Offsets, func(a, b Offset) int { return CompareKeys(a.Key, b.Key) })
	pending, open := map[offsets.Key]bool{}, map[string]bool{}
	for pk := range m.pending {
		pending[pk.Key], open[pk.Group] = true, true
	}
	f.Pending = slices.SortedFunc(maps.Keys(pending), CompareKeys)
	f.OpenTxn = slices.Sorted(maps.Keys(open))
	return f
}

// SortGroups sorts groups by id, then type.
func SortGroups(gs []Group) {
	slices.SortFunc(gs, func(a, b Group) int { return cmp.Or(cmp.Compare(a.ID, b.ID), cmp.Compare(a.Type, b.Type)) })
}

// CompareKeys orders offset keys by group, topic and partition.
func CompareKeys(a, b offsets.Key) int {
	return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition))
}

// Partitions is the representation of a partition list: "topic-p" for each
// partition, each prefixed by prefix, sorted; nil when empty.
func Partitions(prefix string, tps []shard.TopicPartitions) []string {
	var out []string
	for _, tp := range tps {
		for _, p := range tp.Partitions {
			out = append(out, prefix+tp.Topic+"-"+strconv.Itoa(int(p)))
		}
	}
	slices.Sort(out)
	return out
}

// Tasks is the representation of a streams member's active, standby and
// warm-up tasks: "active:subtopology-p", "standby:…", "warmup:…", sorted;
// nil when empty.
func Tasks(active, standby, warmup []shard.TaskIDs) []string {
	var out []string
	for _, role := range []struct {
		name  string
		tasks []shard.TaskIDs
	}{{"active:", active}, {"standby:", standby}, {"warmup:", warmup}} {
		for _, t := range role.tasks {
			out = append(out, Partitions(role.name, []shard.TopicPartitions{{Topic: t.SubtopologyID, Partitions: t.Partitions}})...)
		}
	}
	slices.Sort(out)
	return out
}

// Diff describes the first difference between what the model says (want)
// and what the shard answers (got), "" when they agree.
func Diff(want, got Facts) string {
	for i := range max(len(want.Groups), len(got.Groups)) {
		switch {
		case i >= len(got.Groups):
			return fmt.Sprintf("group %s (%s) is missing", want.Groups[i].ID, want.Groups[i].Type)
		case i >= len(want.Groups):
			return fmt.Sprintf("group %s (%s) should not exist", got.Groups[i].ID, got.Groups[i].Type)
		}
		if d := diffGroup(want.Groups[i], got.Groups[i]); d != "" {
			return d
		}
	}
	for i := range max(len(want.Offsets), len(got.Offsets)) {
		switch {
		case i >= len(got.Offsets):
			return fmt.Sprintf("offset %v is missing", want.Offsets[i].Key)
		case i >= len(want.Offsets):
			return fmt.Sprintf("offset %v should not exist", got.Offsets[i].Key)
		case want.Offsets[i] != got.Offsets[i]:
			if want.Offsets[i].Key != got.Offsets[i].Key {
				return fmt.Sprintf("offset %v where the log has %v", got.Offsets[i].Key, want.Offsets[i].Key)
			}
			return fmt.Sprintf("offset %v is %+v; the log says %+v", got.Offsets[i].Key, got.Offsets[i].Value, want.Offsets[i].Value)
		}
	}
	if !slices.Equal(want.Pending, got.Pending) {
		return fmt.Sprintf("partitions with a pending transactional offset are %v, the log says %v", got.Pending, want.Pending)
	}
	if !slices.Equal(want.OpenTxn, got.OpenTxn) {
		return fmt.Sprintf("groups with an open transaction are %v, the log says %v", got.OpenTxn, want.OpenTxn)
	}
	return ""
}

func diffGroup(want, got Group) string {
	if want.ID != got.ID || want.Type != got.Type {
		return fmt.Sprintf("group %s (%s) where the log has %s (%s)", got.ID, got.Type, want.ID, want.Type)
	}
	if want.Epoch != got.Epoch || want.AssignmentEpoch != got.AssignmentEpoch {
		return fmt.Sprintf("%s group %s has epoch %d, assignment epoch %d; the log says %d, %d",
			got.Type, got.ID, got.Epoch, got.AssignmentEpoch, want.Epoch, want.AssignmentEpoch)
	}
	ids := func(ms []Member) []string {
		out := make([]string, len(ms))
		for i, m := range ms {
			out[i] = m.ID
		}
		return out
	}
	if !slices.Equal(ids(want.Members), ids(got.Members)) {
		return fmt.Sprintf("%s group %s has members %v; the log says %v", got.Type, got.ID, ids(got.Members), ids(want.Members))
	}
	for i, w := range want.Members {
		if g := got.Members[i]; !reflect.DeepEqual(w, g) {
			return fmt.Sprintf("%s group %s member %s is %+v; the log says %+v", got.Type, got.ID, g.ID, g, w)
		}
	}
	return ""
}
