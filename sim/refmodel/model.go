// Package refmodel is the checker's own reading of a __consumer_offsets
// partition (issue 27, "independent models"): it folds the committed
// records into plain maps keyed by record key, the latest value winning and
// a tombstone deleting, and derives from them the facts a client relies on
// (Facts). It imports package shard for the record types only, the log's
// schema, never its replay or state code: a bug in shard's replay that every
// replay repeats cannot hide in it.
//
// It is deliberately small. The rules it states, each Kafka's:
//   - a group exists while its group metadata record is live (the classic
//     GroupMetadata, or a modern group's ConsumerGroupMetadata,
//     StreamsGroupMetadata, ShareGroupMetadata); a committed offset of a
//     group that does not exist creates the empty simple (classic) group
//     (docs/kip1331.md §4.4), which only a GroupMetadata tombstone deletes;
//   - a modern group's member exists while its member metadata record is
//     live; its epoch and held partitions are its current-assignment
//     record's (none: epoch 0, nothing held), its target its target
//     record's; a modern group's target assignment epoch is its target
//     assignment metadata record's, 1 before it has one (Kafka 4.4's
//     TargetAssignmentMetadata.INITIAL);
//   - an offset commit with a producer id is pending until that producer's
//     next end marker, whatever group it names: a commit marker makes it the committed
//     offset unless the committed offset's record is newer (Kafka's
//     replayEndTransactionMarker compares record offsets), an abort drops
//     it; an offset tombstone deletes the committed offset and every
//     pending one of the partition;
//   - a load forgets what a classic group only ever had in memory (coordsim's
//     ClassicGroupState records): the group is what its last GroupMetadata
//     says, or the simple group an offset commit made, or gone
//     (ForgetAsLoaded).
package refmodel

import (
	"fmt"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// Model is one partition's committed records, folded. The zero value is
// not ready: use New.
type Model struct {
	next int64 // the offset of the next record to fold
	// classic is the classic groups' generation, by group; persisted the
	// generation of their GroupMetadata records alone, and simple the
	// groups an offset commit named while classic or absent.
	classic   map[string]int32
	persisted map[string]int32
	simple    map[string]bool
	// epoch and assignmentEpoch are a modern group's group metadata and
	// target assignment metadata records.
	epoch           map[groupKey]int32
	assignmentEpoch map[groupKey]int32
	// members, target and current are a modern member's metadata, target
	// assignment and current assignment records.
	members map[memberKey]bool
	target  map[memberKey][]string
	current map[memberKey]held
	// committed and pending are the offsets, with the log offset of the
	// record that wrote each.
	committed map[offsets.Key]offsetAt
	pending   map[pendingKey]offsetAt
}

type groupKey struct {
	typ shard.GroupType
	id  string
}

type memberKey struct {
	groupKey
	member string
}

type pendingKey struct {
	producer int64
	offsets.Key
}

type held struct {
	epoch            int32
	assigned, revoke []string
}

type offsetAt struct {
	v  offsets.OffsetAndMetadata
	at int64
}

// New returns the model of an empty log.
func New() *Model {
	return &Model{classic: map[string]int32{}, persisted: map[string]int32{}, simple: map[string]bool{}, epoch: map[groupKey]int32{}, assignmentEpoch: map[groupKey]int32{},
		members: map[memberKey]bool{}, target: map[memberKey][]string{}, current: map[memberKey]held{},
		committed: map[offsets.Key]offsetAt{}, pending: map[pendingKey]offsetAt{}}
}

// Next is the offset of the next record Fold expects.
func (m *Model) Next() int64 { return m.next }

// Fold applies the committed records at consecutive offsets from first,
// which must be Next: the model reads every record once, in order.
func (m *Model) Fold(first int64, records []shard.Record) error {
	if first != m.next {
		return fmt.Errorf("refmodel: records from offset %d, expected %d", first, m.next)
	}
	for _, r := range records {
		if err := m.fold(m.next, r); err != nil {
			return err
		}
		m.next++
	}
	return nil
}

func (m *Model) fold(at int64, r shard.Record) error {
	switch r := r.(type) {
	case *shard.OffsetCommit:
		m.foldOffset(at, r)
	case *shard.EndTransactionMarker:
		// Kafka's rule, by record offset, for the producer's offsets of
		// every group (the marker is the partition's).
		for pk, p := range m.pending {
			if pk.producer != r.ProducerID {
				continue
			}
			delete(m.pending, pk)
			if c, ok := m.committed[pk.Key]; r.Commit && (!ok || p.at > c.at) {
				m.committed[pk.Key] = p
			}
		}
	case *shard.GroupMetadata:
		set(m.classic, r.Group, r.Generation, r.Tombstone)
		set(m.persisted, r.Group, r.Generation, r.Tombstone)
		if r.Tombstone {
			delete(m.simple, r.Group)
		}
	case *shard.ClassicGroupState:
		m.classic[r.Group] = r.Generation
	case *shard.ConsumerGroupMetadata:
		set(m.epoch, groupKey{shard.Consumer, r.Group}, r.Epoch, r.Tombstone)
	case *shard.StreamsGroupMetadata:
		set(m.epoch, groupKey{shard.Streams, r.Group}, r.Epoch, r.Tombstone)
	case *shard.ShareGroupMetadata:
		set(m.epoch, groupKey{shard.Share, r.Group}, r.Epoch, r.Tombstone)
	case *shard.ConsumerGroupTargetAssignmentMetadata:
		set(m.assignmentEpoch, groupKey{shard.Consumer, r.Group}, r.AssignmentEpoch, r.Tombstone)
	case *shard.StreamsGroupTargetAssignmentMetadata:
		set(m.assignmentEpoch, groupKey{shard.Streams, r.Group}, r.AssignmentEpoch, r.Tombstone)
	case *shard.ShareGroupTargetAssignmentMetadata:
		set(m.assignmentEpoch, groupKey{shard.Share, r.Group}, r.AssignmentEpoch, r.Tombstone)
	case *shard.ConsumerGroupMemberMetadata:
		set(m.members, memberKey{groupKey{shard.Consumer, r.Group}, r.MemberID}, true, r.Tombstone)
	case *shard.StreamsGroupMemberMetadata:
		set(m.members, memberKey{groupKey{shard.Streams, r.Group}, r.MemberID}, true, r.Tombstone)
	case *shard.ShareGroupMemberMetadata:
		set(m.members, memberKey{groupKey{shard.Share, r.Group}, r.MemberID}, true, r.Tombstone)
	case *shard.ConsumerGroupTargetAssignmentMember:
		set(m.target, memberKey{groupKey{shard.Consumer, r.Group}, r.MemberID}, Partitions("", r.Partitions), r.Tombstone)
	case *shard.ShareGroupTargetAssignmentMember:
		set(m.target, memberKey{groupKey{shard.Share, r.Group}, r.MemberID}, Partitions("", r.Partitions), r.Tombstone)
	case *shard.StreamsGroupTargetAssignmentMember:
		set(m.target, memberKey{groupKey{shard.Streams, r.Group}, r.MemberID}, Tasks(r.ActiveTasks, r.StandbyTasks, r.WarmupTasks), r.Tombstone)
	case *shard.ConsumerGroupCurrentMemberAssignment:
		set(m.current, memberKey{groupKey{shard.Consumer, r.Group}, r.MemberID},
			held{r.MemberEpoch, Partitions("", r.Partitions), Partitions("", r.PartitionsPendingRevocation)}, r.Tombstone)
	case *shard.ShareGroupCurrentMemberAssignment:
		set(m.current, memberKey{groupKey{shard.Share, r.Group}, r.MemberID}, held{r.MemberEpoch, Partitions("", r.Partitions), nil}, r.Tombstone)
	case *shard.StreamsGroupCurrentMemberAssignment:
		set(m.current, memberKey{groupKey{shard.Streams, r.Group}, r.MemberID}, held{r.MemberEpoch,
			Tasks(r.ActiveTasks, r.StandbyTasks, r.WarmupTasks),
			Tasks(r.ActiveTasksPendingRevocation, r.StandbyTasksPendingRevocation, r.WarmupTasksPendingRevocation)}, r.Tombstone)
	case *shard.StreamsGroupTopology, *shard.ConsumerGroupRegularExpression, *shard.ShareGroupStatePartitionMetadata:
		// Not among the facts compared.
	default:
		return fmt.Errorf("refmodel: unknown record type %T at offset %d", r, at)
	}
	return nil
}

func (m *Model) foldOffset(at int64, r *shard.OffsetCommit) {
	k := offsets.Key{Group: r.Group, Topic: r.Topic, Partition: r.Partition}
	switch {
	case r.Tombstone:
		delete(m.committed, k)
		for pk := range m.pending {
			if pk.Key == k {
				delete(m.pending, pk)
			}
		}
		return
	case r.ProducerID != shard.NoProducerID:
		m.pending[pendingKey{r.ProducerID, k}] = offsetAt{r.Value, at}
	default:
		m.committed[k] = offsetAt{r.Value, at}
	}
	if !m.exists(r.Group) {
		m.classic[r.Group] = 0 // the simple group
	}
	if _, ok := m.classic[r.Group]; ok {
		m.simple[r.Group] = true
	}
}

// ForgetAsLoaded makes the named classic groups what a load of the log
// gives: the generation of their last GroupMetadata, the simple group
// (generation 0) an offset commit made, or no group.
func (m *Model) ForgetAsLoaded(ids []string) {
	for _, id := range ids {
		if _, ok := m.classic[id]; !ok {
			continue
		}
		if gen, ok := m.persisted[id]; ok {
			m.classic[id] = gen
		} else if m.simple[id] {
			m.classic[id] = 0
		} else {
			delete(m.classic, id)
		}
	}
}

// exists reports whether a group of any type is called id.
func (m *Model) exists(id string) bool {
	if _, ok := m.classic[id]; ok {
		return true
	}
	for _, t := range []shard.GroupType{shard.Consumer, shard.Streams, shard.Share} {
		if _, ok := m.epoch[groupKey{t, id}]; ok {
			return true
		}
	}
	return false
}

// set is the fold of one keyed record: a tombstone deletes the key, a value
// replaces it.
func set[K comparable, V any](m map[K]V, k K, v V, tombstone bool) {
	if tombstone {
		delete(m, k)
		return
	}
	m[k] = v
}
