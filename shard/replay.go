package shard

import (
	"errors"
	"fmt"
	"iter"
	"reflect"

	"github.com/coordsim/coordsim/offsets"
)

// ErrReplay is returned (wrapped) when a record cannot be applied: Kafka throws
// IllegalStateException in the same places. A record that fails leaves the
// shard unchanged.
var ErrReplay = errors.New("shard: record cannot be replayed")

func replayErr(r Record, format string, args ...any) error {
	return fmt.Errorf("%w: %s for group %q: %s", ErrReplay, r.Type(), r.GroupID(), fmt.Sprintf(format, args...))
}

// Replay applies one record at log offset. It is the only code that mutates
// a shard. Offsets must increase; a record that fails validation returns an
// error wrapping ErrReplay and changes nothing.
func (s *Shard) Replay(offset int64, r Record) error {
	if r == nil || isNilPointer(r) {
		return fmt.Errorf("%w: nil record", ErrReplay)
	}
	if offset <= s.lastOffset {
		return fmt.Errorf("%w: offset %d is not after %d", ErrReplay, offset, s.lastOffset)
	}
	if err := s.apply(r); err != nil {
		return err
	}
	s.lastOffset = offset
	return nil
}

// isNilPointer reports a typed nil (say a nil *OffsetCommit) inside the
// interface: the record switch would dereference it.
func isNilPointer(r Record) bool {
	v := reflect.ValueOf(r)
	return v.Kind() == reflect.Pointer && v.IsNil()
}

// ReplayAll replays records at consecutive offsets starting at first.
func (s *Shard) ReplayAll(first int64, records []Record) error {
	s.loading = true
	defer func() { s.loading = false }()
	for i, r := range records {
		if err := s.Replay(first+int64(i), r); err != nil {
			return err
		}
	}
	s.cacheSubscribedHashes()
	return nil
}

// cacheSubscribedHashes fills, once after a load, the steady heartbeat's
// caches that refresh leaves alone while loading: the metadata hash and
// whether the members name several assignors.
func (s *Shard) cacheSubscribedHashes() {
	var stale []string
	s.groups.Ascend(func(g *group) bool {
		if !g.subscribedHashOK || g.subscribedHashImage != s.imageVersion || !g.severalAssignorsOK {
			stale = append(stale, g.id)
		}
		return true
	})
	for _, id := range stale {
		g := s.mutableGroup(id)
		g.cacheSubscribedHash(s)
		g.severalAssignors, g.anyRegex = countMembers(g)
		g.severalAssignorsOK = true
	}
}

// groupForRecord returns the mutable group a member or group record applies
// to, creating it (as Kafka's getOrMaybeCreatePersisted*Group does) when
// create is set and it is absent. A group of another type is an error.
func (s *Shard) groupForRecord(r Record, typ GroupType, create bool) (*group, error) {
	id := r.GroupID()
	if id == "" {
		return nil, replayErr(r, "empty group id")
	}
	g := s.lookup(id)
	if g == nil {
		if !create {
			return nil, replayErr(r, "group does not exist")
		}
		return s.createGroup(id, typ), nil
	}
	if g.typ != typ {
		return nil, replayErr(r, "group is a %s group", g.typ)
	}
	return s.mutableGroup(id), nil
}

func (s *Shard) apply(r Record) error {
	switch r := r.(type) {
	case *OffsetCommit:
		return s.applyOffsetCommit(r)
	case *EndTransactionMarker:
		if r.Group == "" {
			return replayErr(r, "empty group id")
		}
		// Kafka's marker is the partition's, not the group's
		// (replayEndTransactionMarker): it completes the producer's
		// offsets of every group.
		s.offsets.EndProducerTransaction(r.ProducerID, s.mutateMarker(r.Commit), s.refresh)
		return nil
	case *GroupMetadata:
		return s.applyGroupMetadata(r)
	case *ConsumerGroupMetadata:
		return s.applyGroupEpoch(r, Consumer, r.Epoch, r.MetadataHash, r.Tombstone)
	case *StreamsGroupMetadata:
		return s.applyStreamsGroupMetadata(r)
	case *ShareGroupMetadata:
		return s.applyGroupEpoch(r, Share, r.Epoch, r.MetadataHash, r.Tombstone)
	case *ConsumerGroupTargetAssignmentMetadata:
		return s.applyAssignmentEpoch(r, Consumer, r.AssignmentEpoch, r.AssignmentTimestampMs, r.Tombstone)
	case *StreamsGroupTargetAssignmentMetadata:
		return s.applyAssignmentEpoch(r, Streams, r.AssignmentEpoch, r.AssignmentTimestampMs, r.Tombstone)
	case *ShareGroupTargetAssignmentMetadata:
		return s.applyAssignmentEpoch(r, Share, r.AssignmentEpoch, r.AssignmentTimestampMs, r.Tombstone)
	case *ConsumerGroupMemberMetadata:
		return s.applyMemberMetadata(r, Consumer, r.MemberID, r.Tombstone, func(m *member) {
			m.clientID, m.subscribedTopics, m.rebalanceTimeoutMs = r.ClientID, r.SubscribedTopics, r.RebalanceTimeoutMs
			m.clientHost, m.rackID, m.classic = r.ClientHost, r.RackID, r.Classic
			c := consumerMember{instanceID: r.InstanceID, serverAssignor: r.ServerAssignor, topicRegex: r.SubscribedTopicRegex}
			if r.SubscribedTopicRegex != "" {
				c.regexTopics = s.lookup(r.Group).regexes[r.SubscribedTopicRegex].topics
			}
			m.setConsumer(c)
		})
	case *ShareGroupMemberMetadata:
		return s.applyMemberMetadata(r, Share, r.MemberID, r.Tombstone, func(m *member) {
			m.clientID, m.clientHost, m.rackID, m.subscribedTopics = r.ClientID, r.ClientHost, r.RackID, r.SubscribedTopics
		})
	case *StreamsGroupMemberMetadata:
		return s.applyMemberMetadata(r, Streams, r.MemberID, r.Tombstone, func(m *member) {
			m.clientID, m.processID, m.rebalanceTimeoutMs = r.ClientID, r.ProcessID, r.RebalanceTimeoutMs
			m.clientHost, m.rackID = r.ClientHost, r.RackID
			p := m.streamsPart()
			p.topologyEpoch, p.userEndpoint, p.instanceID = r.TopologyEpoch, r.UserEndpoint, r.InstanceID
			m.setStreams(p)
		})
	case *ConsumerGroupTargetAssignmentMember:
		return s.applyMemberPart(r, Consumer, r.MemberID, func(m *member) { m.target = tombstoned(r.Tombstone, r.Partitions) })
	case *ShareGroupTargetAssignmentMember:
		return s.applyMemberPart(r, Share, r.MemberID, func(m *member) { m.target = tombstoned(r.Tombstone, r.Partitions) })
	case *StreamsGroupTargetAssignmentMember:
		return s.applyMemberPart(r, Streams, r.MemberID, func(m *member) {
			var standby, warmup []TopicPartitions
			m.target, standby, warmup = tasksToPartitions3(tombstoned(r.Tombstone, r.ActiveTasks),
				tombstoned(r.Tombstone, r.StandbyTasks), tombstoned(r.Tombstone, r.WarmupTasks))
			m.setTargetRoles(standby, warmup)
		})
	case *ConsumerGroupCurrentMemberAssignment:
		return s.applyConsumerCurrentAssignment(r)
	case *ShareGroupCurrentMemberAssignment:
		return s.applyMemberPart(r, Share, r.MemberID, func(m *member) {
			s.lookup(r.Group).timelinePut(m) // a tombstone puts too, at epoch -1
			m.assigned = tombstoned(r.Tombstone, r.Partitions)
			m.shareTarget()
			m.memberEpoch, m.previousMemberEpoch = currentEpochs(r.Tombstone, r.MemberEpoch, r.PreviousMemberEpoch)
		})
	case *StreamsGroupCurrentMemberAssignment:
		return s.applyStreamsCurrentAssignment(r)
	case *StreamsGroupTopology:
		return s.applyStreamsTopology(r)
	case *ConsumerGroupRegularExpression:
		return s.applyRegularExpression(r)
	case *ClassicGroupState:
		return s.applyClassicGroupState(r)
	case *ShareGroupStatePartitionMetadata:
		return s.applyShareStatePartitionMetadata(r)
	}
	return fmt.Errorf("%w: unknown record type %T", ErrReplay, r)
}

func tombstoned[T any](tombstone bool, v []T) []T {
	if tombstone {
		return nil
	}
	return v
}

func currentEpochs(tombstone bool, epoch, previous int32) (int32, int32) {
	if tombstone {
		return 0, 0
	}
	return epoch, previous
}

func (s *Shard) applyOffsetCommit(r *OffsetCommit) error {
	// "" is a valid group id for offsets (OffsetCommit's, and the simple
	// group's tombstone below).
	if r.Topic == "" || r.Partition < 0 {
		return replayErr(r, "invalid key %q/%d", r.Topic, r.Partition)
	}
	k := offsets.Key{Group: r.Group, Topic: r.Topic, Partition: r.Partition}
	if s.cfg.Mutants.CorruptLiveReplay && !r.Tombstone {
		v := r.Value
		v.Offset++
		r = &OffsetCommit{Group: r.Group, Topic: r.Topic, Partition: r.Partition, Value: v, ProducerID: r.ProducerID}
	}
	switch {
	case r.Tombstone:
		s.offsets.Delete(k)
	case r.ProducerID != NoProducerID:
		s.offsets.CommitPending(r.ProducerID, k, r.Value)
	default:
		s.offsets.Commit(k, r.Value)
	}
	// Replaying an offset commit for an unknown group creates an empty simple
	// classic group (docs/kip1331.md §4.4); a tombstone never creates one.
	if !r.Tombstone {
		if g := s.lookup(r.Group); g == nil {
			s.createGroup(r.Group, Classic).persisted = true
		} else if !g.persisted && g.typ == Classic {
			s.mutableGroup(r.Group).persisted = true // only a classic group's load reads it
		}
	}
	s.refresh(r.Group)
	return nil
}

func (s *Shard) applyGroupMetadata(r *GroupMetadata) error {
	// No check of the group id: a commit can create the simple group "",
	// whose tombstone comes here.
	g, err := s.existingGroup(r, Classic)
	if err != nil {
		return err
	}
	s.remembered(r.Group)
	if r.Tombstone {
		s.removeGroup(r.Group)
		return nil
	}
	if g == nil {
		g = s.createGroup(r.Group, Classic)
	} else {
		g = s.mutableGroup(r.Group)
	}
	g.lastMetadata, g.persisted = r, true
	g.setFromMetadata(r)
	s.refresh(r.Group)
	return nil
}

// applyGroupEpoch replays a consumer or share group metadata record. Its
// tombstone deletes the group; Kafka requires the members to be gone first.
func (s *Shard) applyGroupEpoch(r Record, typ GroupType, epoch int32, hash int64, tombstone bool) error {
	if tombstone {
		return s.deleteTyped(r, typ)
	}
	g, err := s.groupForRecord(r, typ, true)
	if err != nil {
		return err
	}
	g.epoch, g.metadataHash = epoch, hash
	// A load gives Kafka a new group object, whose metadata has expired
	// until a heartbeat computes it (hashImage 0 is before any image).
	g.hashImage = s.imageVersion
	if s.loading {
		g.hashImage = 0
	}
	s.refresh(g.id)
	return nil
}

// existingGroup is the group a typ record names, without creating it: nil
// without error when it is absent (replaying a tombstone twice must be a
// no-op), an error when it is a group of another type.
func (s *Shard) existingGroup(r Record, typ GroupType) (*group, error) {
	g := s.lookup(r.GroupID())
	if g != nil && g.typ != typ {
		return nil, replayErr(r, "group is a %s group", g.typ)
	}
	return g, nil
}

func (s *Shard) deleteTyped(r Record, typ GroupType) error {
	g, err := s.existingGroup(r, typ)
	if g == nil {
		return err
	}
	if len(g.members) > 0 {
		return replayErr(r, "group still has %d members", len(g.members))
	}
	s.removeGroup(g.id)
	return nil
}

func (s *Shard) applyStreamsGroupMetadata(r *StreamsGroupMetadata) error {
	if r.Tombstone {
		return s.deleteTyped(r, Streams)
	}
	if r.StoredDescriptionTopologyEpoch < EpochUncertain || r.FailedDescriptionTopologyEpoch < EpochNone {
		return replayErr(r, "description epochs stored=%d failed=%d out of range",
			r.StoredDescriptionTopologyEpoch, r.FailedDescriptionTopologyEpoch)
	}
	g, err := s.groupForRecord(r, Streams, true)
	if err != nil {
		return err
	}
	g.epoch, g.metadataHash, g.validatedTopologyEpoch = r.Epoch, r.MetadataHash, r.ValidatedTopologyEpoch
	g.storedEpoch, g.failedEpoch = r.StoredDescriptionTopologyEpoch, r.FailedDescriptionTopologyEpoch
	g.lastNumStandbyReplicas = r.LastNumStandbyReplicas
	s.refresh(g.id)
	return nil
}

func (s *Shard) applyAssignmentEpoch(r Record, typ GroupType, epoch int32, timestampMs int64, tombstone bool) error {
	if tombstone {
		g, err := s.existingGroup(r, typ)
		if g == nil {
			return err
		}
		epoch, timestampMs = 0, 0
	}
	g, err := s.groupForRecord(r, typ, true)
	if err != nil {
		return err
	}
	g.assignmentEpoch, g.assignmentTimestampMs = epoch, timestampMs
	s.refresh(g.id)
	return nil
}

func (s *Shard) applyMemberMetadata(r Record, typ GroupType, memberID string, tombstone bool, set func(*member)) error {
	if memberID == "" {
		return replayErr(r, "empty member id")
	}
	if tombstone {
		g, err := s.existingGroup(r, typ)
		if g == nil {
			return err
		}
		if old := g.members[memberID]; old != nil {
			if err := groupKinds[g.typ].checkMemberRemoval(r, g, old); err != nil {
				return err
			}
		}
		g = s.mutableGroup(g.id)
		if old := g.members[memberID]; old != nil {
			groupKinds[g.typ].forgetMember(g, old)
			if old.putSeq != 0 {
				g.memberPuts-- // TimelineHashMap.remove: the table keeps its size
			}
		}
		delete(g.members, memberID)
		g.subscribedHashOK, g.severalAssignorsOK = false, false
		s.refresh(g.id)
		return nil
	}
	g, err := s.groupForRecord(r, typ, true)
	if err != nil {
		return err
	}
	m := g.member(memberID)
	g.timelinePut(m)
	m.hasMetadata = true
	set(m)
	g.subscribedHashOK, g.severalAssignorsOK = false, false
	s.refresh(g.id)
	return nil
}

// applyMemberPart replays a member's target or current assignment. Kafka
// creates the member if absent on a non-tombstone; a tombstone for an absent
// member or group is a no-op.
func (s *Shard) applyMemberPart(r Record, typ GroupType, memberID string, set func(*member)) error {
	if memberID == "" {
		return replayErr(r, "empty member id")
	}
	g := s.lookup(r.GroupID())
	tombstone := isTombstone(r)
	if tombstone && (g == nil || g.members[memberID] == nil) {
		if g != nil && g.typ != typ {
			return replayErr(r, "group is a %s group", g.typ)
		}
		return nil
	}
	g, err := s.groupForRecord(r, typ, true)
	if err != nil {
		return err
	}
	set(g.member(memberID))
	s.refresh(g.id)
	return nil
}

func (s *Shard) applyStreamsTopology(r *StreamsGroupTopology) error {
	if r.Tombstone {
		g, err := s.existingGroup(r, Streams)
		if g == nil {
			return err
		}
		g = s.mutableGroup(r.Group)
		s.indexTopology(g.id, g.topology, false)
		g.topology = nil
		g.subscribedHashOK = false
		s.refresh(g.id)
		return nil
	}
	if err := validateTopology(&r.Topology); err != nil {
		return replayErr(r, "%v", err)
	}
	g, err := s.groupForRecord(r, Streams, true)
	if err != nil {
		return err
	}
	t := r.Topology
	s.indexTopology(g.id, g.topology, false)
	g.topology = &t
	s.indexTopology(g.id, g.topology, true)
	g.subscribedHashOK = false
	s.refresh(g.id)
	return nil
}

func isTombstone(r Record) bool {
	switch r := r.(type) {
	case *ConsumerGroupTargetAssignmentMember:
		return r.Tombstone
	case *ShareGroupTargetAssignmentMember:
		return r.Tombstone
	case *StreamsGroupTargetAssignmentMember:
		return r.Tombstone
	case *ConsumerGroupCurrentMemberAssignment:
		return r.Tombstone
	case *ShareGroupCurrentMemberAssignment:
		return r.Tombstone
	case *StreamsGroupCurrentMemberAssignment:
		return r.Tombstone
	}
	return false
}

// applyConsumerCurrentAssignment replays a consumer member's reconciliation
// state and moves its partitions' epochs (Kafka's ConsumerGroup.updateMember
// with maybeUpdatePartitionEpoch). A record that would give a partition a
// second owner, or that does not match the epochs on record, is refused
// before anything changes: Kafka throws IllegalStateException there, and the
// coordinator treats a refused record as a bug (it panics).
func (s *Shard) applyConsumerCurrentAssignment(r *ConsumerGroupCurrentMemberAssignment) error {
	if r.MemberID == "" {
		return replayErr(r, "empty member id")
	}
	g, err := s.existingGroup(r, Consumer)
	if err != nil {
		return err
	}
	var old *member
	if g != nil {
		old = g.members[r.MemberID]
	}
	if r.Tombstone && old == nil {
		return nil
	}
	next := &memberAssignment{}
	if !r.Tombstone {
		next = &memberAssignment{state: memberStateFromValue(r.State), epoch: r.MemberEpoch, previousEpoch: r.PreviousMemberEpoch,
			assigned: taskSets{r.Partitions}, pending: taskSets{r.PartitionsPendingRevocation}}
	}
	if g != nil {
		if err := checkPartitionEpochs(r, g, old, next); err != nil {
			return err
		}
	} else if err := checkPartitionEpochs(r, &group{}, nil, next); err != nil {
		return err
	}
	return s.updateMemberAssignment(r, Consumer, r.MemberID, next, (*group).removePartitionEpochs, (*group).addPartitionEpochs)
}

// updateMemberAssignment is the applying half both current-assignment
// replays share (Kafka's updateMember): the member's partitions or tasks
// leave the group's owner index (unindex), the member takes next, each
// active partition or task keeping the epoch it was first assigned at
// (KIP-1251), and they enter the index again (index). The caller has
// checked next against the index.
func (s *Shard) updateMemberAssignment(r Record, typ GroupType, memberID string, next *memberAssignment, unindex, index func(*group, *member)) error {
	g, err := s.groupForRecord(r, typ, true)
	if err != nil {
		return err
	}
	m := g.member(memberID)
	g.timelinePut(m)
	unindex(g, m)
	m.epochs = m.stampAssignmentEpochs(next.assigned[roleActive], next.pending[roleActive], next.epoch)
	m.setCurrentAssignment(*next)
	m.shareTarget()
	index(g, m)
	s.refresh(g.id)
	return nil
}

// checkPartitionEpochs is the validation half of Kafka's
// removePartitionEpochs and addPartitionEpochs: the old state's partitions
// must be on record at the old epoch, and the new state's partitions must be
// free once they are gone.
func checkPartitionEpochs(r Record, g *group, old *member, next *memberAssignment) error {
	var mine map[topicPartition]bool
	if old != nil {
		mine = map[topicPartition]bool{}
		for k := range heldPartitions(old.assigned, old.pending) {
			if e, ok := g.partitionEpochs[k]; !ok || e != old.memberEpoch {
				return replayErr(r, "cannot remove the epoch %d from %s-%d because the partition is owned at epoch %d (present %v)",
					old.memberEpoch, k.topic, k.partition, e, ok)
			}
			mine[k] = true
		}
	}
	if next == nil {
		return nil
	}
	return checkActiveClaims(r, next, "partition %s-%d", func(k topicPartition) error {
		if e, ok := g.partitionEpochs[k]; ok && !mine[k] {
			return replayErr(r, "cannot set the epoch of %s-%d to %d because the partition is still owned at epoch %d",
				k.topic, k.partition, next.epoch, e)
		}
		return nil
	})
}

// checkActiveClaims is the check Kafka's addPartitionEpochs (a consumer
// member's partitions) and addTaskProcessId (a streams member's active
// tasks) share: every active partition or task of the state a record sets,
// assigned or pending revocation alike, is listed once, and held refuses one
// that another member still holds (it returns nil for one that is free or
// already the member's). name formats a key for the error, from its topic
// and partition: "partition %s-%d", "active task %s_%d".
func checkActiveClaims(r Record, next *memberAssignment, name string, held func(k topicPartition) error) error {
	seen := map[topicPartition]bool{}
	for k := range heldPartitions(next.assigned[roleActive], next.pending[roleActive]) {
		if seen[k] {
			return replayErr(r, name+" is listed twice", k.topic, k.partition)
		}
		seen[k] = true
		if err := held(k); err != nil {
			return err
		}
	}
	return nil
}

// removePartitionEpochs forgets the epochs of m's partitions; the caller
// has checked them (checkPartitionEpochs).
func (g *group) removePartitionEpochs(m *member) {
	for k := range heldPartitions(m.assigned, m.pending) {
		delete(g.partitionEpochs, k)
	}
}

// addPartitionEpochs records m's partitions at its epoch.
func (g *group) addPartitionEpochs(m *member) {
	for k := range heldPartitions(m.assigned, m.pending) {
		if g.partitionEpochs == nil {
			g.partitionEpochs = map[topicPartition]int32{}
		}
		g.partitionEpochs[k] = m.memberEpoch
	}
}

// heldPartitions yields each partition (or task) of a member's two lists,
// assigned and pending revocation: the partitions Kafka's owner indexes
// (ConsumerGroup.currentPartitionEpoch, StreamsGroup's task process ids)
// give to the member.
func heldPartitions(assigned, pending []TopicPartitions) iter.Seq[topicPartition] {
	return func(yield func(topicPartition) bool) {
		for _, a := range [2][]TopicPartitions{assigned, pending} {
			for _, tp := range a {
				for _, p := range tp.Partitions {
					if !yield(topicPartition{tp.Topic, p}) {
						return
					}
				}
			}
		}
	}
}
