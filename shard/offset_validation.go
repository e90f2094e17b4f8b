package shard

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Offset-request validation per group type: Kafka's
// Group.validateOffsetCommit, validateOffsetFetch and the KIP-1251
// per-partition CommitPartitionValidator, with the assignment epochs the
// last of these reads.

// partitionValidator is Kafka's CommitPartitionValidator: it checks one
// committed partition (a task's input partition for streams groups) and
// returns STALE_MEMBER_EPOCH when the committer may not commit it.
type partitionValidator func(topic string, partition int32) error

func noPartitionCheck(string, int32) error { return nil }

// validateOffsetCommit is OffsetMetadataManager.validateOffsetCommit and
// validateTransactionalOffsetCommit: the group-level checks, and the
// per-partition check that follows them.
func (s *Shard) validateOffsetCommit(req commitRequest) (partitionValidator, error) {
	g := s.lookup(req.groupID)
	if g == nil {
		// Kafka creates a simple classic group for a commit with a negative
		// epoch, whatever member or instance id it names (the records'
		// replay does it here).
		if req.memberEpoch < 0 {
			return noPartitionCheck, nil
		}
		// ILLEGAL_GENERATION for TxnOffsetCommit and for OffsetCommit
		// before v9 ("to preserve the backward compatibility").
		if req.kind == transactionalCommit || req.beforeVersion9() {
			return nil, errIllegalGeneration()
		}
		return nil, kerr.GroupIDNotFound.WithMessage("Group %s not found.", req.groupID)
	}
	return groupKinds[g.typ].validateOffsetCommit(g, req)
}

// notConsumerGroup is a share group's answer to the offset requests of
// consumer groups (ShareGroup.validateOffsetCommit and its siblings).
func notConsumerGroup(groupID string) error {
	return kerr.GroupIDNotFound.WithMessage("Group %s is not a consumer group.", groupID)
}

// validateClassicOffsetCommit is ClassicGroup.validateOffsetCommit. A
// negative generation commits to an Empty group (a simple group, or an
// admin's commit) whatever member and instance ids come with it; otherwise
// the member must be known (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) at the
// group's generation (ILLEGAL_GENERATION), and a regular commit while the
// group completes its rebalance is REBALANCE_IN_PROGRESS.
func validateClassicOffsetCommit(g *group, req commitRequest) (partitionValidator, error) {
	st := g.classic
	if st == nil {
		st = &ClassicGroupState{State: StateEmpty, Generation: g.epoch}
	}
	if st.State == StateDead {
		return nil, coordinatorNotAvailable()
	}
	if req.memberEpoch < 0 && st.State == StateEmpty {
		return noPartitionCheck, nil
	}
	transactional := req.kind == transactionalCommit
	if req.memberEpoch >= 0 || req.memberID != "" || req.instanceID != "" {
		if err := st.validateMember(req.memberID, req.instanceID); err != nil {
			return nil, err
		}
		if req.memberEpoch != st.Generation {
			return nil, errIllegalGeneration()
		}
	} else if !transactional && st.State != StateEmpty {
		return nil, unknownMember()
	}
	if !transactional && st.State == StateCompletingRebalance {
		return nil, rebalanceInProgress()
	}
	return noPartitionCheck, nil
}

// validateModernOffsetCommit is ConsumerGroup.validateOffsetCommit and
// StreamsGroup.validateOffsetCommit (KIP-848, KIP-1071, KIP-1251).
// protocol names the members' protocol in the version error ("modern",
// "streams"); epochValidator is the type's createAssignmentEpochValidator.
func validateModernOffsetCommit(g *group, req commitRequest, protocol string, epochValidator func(g *group, m *member, epoch int32) (partitionValidator, error)) (partitionValidator, error) {
	// An admin or a consumer outside group management may commit to an
	// empty group.
	if req.memberEpoch < 0 && len(g.members) == 0 {
		return noPartitionCheck, nil
	}
	// TxnOffsetCommit does not require the member fields: a producer's
	// sendOffsetsToTransaction(offsets, groupId) sends none of them. The
	// instance id must be null; an empty one is looked up as member "".
	if req.kind == transactionalCommit && req.memberEpoch == -1 && req.memberID == "" && req.instanceID == "" && !req.emptyInstanceID {
		return noPartitionCheck, nil
	}
	m := g.members[req.memberID]
	if m == nil {
		return nil, kerr.UnknownMemberID.WithMessage("Member %s is not a member of group %s.", req.memberID, g.id)
	}
	// A member of a consumer group that speaks the classic protocol
	// (online migration) commits with its generation, which must be its
	// member epoch (ConsumerGroup.validateMemberEpoch for classic members).
	if m.classic != nil {
		if req.memberEpoch != m.memberEpoch {
			return nil, classicEpochMismatch(req.memberEpoch, m.memberEpoch)
		}
		return noPartitionCheck, nil
	}
	// A KIP-848 or KIP-1071 member must commit with OffsetCommit v9 or
	// later; the check comes after the member lookup and before the epoch.
	if req.beforeVersion9() {
		return nil, kerr.UnsupportedVersion.WithMessage("OffsetCommit version 9 or above must be used by members using the %s group protocol", protocol)
	}
	switch {
	case req.memberEpoch == m.memberEpoch:
		return noPartitionCheck, nil
	case req.memberEpoch > m.memberEpoch:
		return nil, kerr.StaleMemberEpoch.WithMessage("Received member epoch %d is newer than current member epoch %d.",
			req.memberEpoch, m.memberEpoch)
	}
	// An older epoch: each partition must have been assigned to the member
	// at that epoch or before (createAssignmentEpochValidator).
	return epochValidator(g, m, req.memberEpoch)
}

// unknownTopicIDValidator is ConsumerGroup's createAssignmentEpochValidator
// given a partition of topic id Uuid.ZERO_UUID, which no member holds.
func unknownTopicIDValidator(topic string, partition int32) error {
	return kerr.StaleMemberEpoch.WithMessage("Partition %s-%d is not assigned or pending revocation for member.", topic, partition)
}

// consumerAssignmentEpochValidator is ConsumerGroup's
// createAssignmentEpochValidator.
func consumerAssignmentEpochValidator(m *member, epoch int32) partitionValidator {
	return func(topic string, partition int32) error {
		assignedAt, ok := m.assignmentEpoch(topic, partition)
		if !ok {
			return kerr.StaleMemberEpoch.WithMessage("Partition %s-%d is not assigned or pending revocation for member.", topic, partition)
		}
		if epoch < assignedAt {
			return kerr.StaleMemberEpoch.WithMessage("Received member epoch %d is older than assignment epoch %d for partition %s-%d.",
				epoch, assignedAt, topic, partition)
		}
		return nil
	}
}

// streamsAssignmentEpochValidator is StreamsGroup's
// createAssignmentEpochValidator: the committed partition is mapped to the
// subtopology that reads its topic (a source or repartition source topic),
// and the task with that partition number must have been assigned at the
// commit's epoch or before.
func streamsAssignmentEpochValidator(g *group, m *member, epoch int32) (partitionValidator, error) {
	if g.topology == nil {
		return nil, kerr.StaleMemberEpoch.WithMessage("Topology is not available for offset commit validation.")
	}
	t := g.topology
	return func(topic string, partition int32) error {
		i := slices.IndexFunc(t.Subtopologies, func(st Subtopology) bool { return st.ReadsTopic(topic) })
		if i < 0 {
			return kerr.StaleMemberEpoch.WithMessage("Topic %s is not in the topology.", topic)
		}
		id := t.Subtopologies[i].ID
		assignedAt, ok := m.assignmentEpoch(id, partition)
		if !ok {
			return kerr.StaleMemberEpoch.WithMessage("Task %s-%d is not assigned or pending revocation for member.", id, partition)
		}
		if epoch < assignedAt {
			return kerr.StaleMemberEpoch.WithMessage("Received member epoch %d is older than assignment epoch %d for task %s-%d.",
				epoch, assignedAt, id, partition)
		}
		return nil
	}, nil
}

// validateOffsetFetch is Group.validateOffsetFetch: consumer and streams
// groups check the member when the request names one; classic simple groups
// have no members to check; share groups do not serve OffsetFetch.
func validateOffsetFetch(g *group, memberID string, memberEpoch int32) error {
	return groupKinds[g.typ].validateOffsetFetch(g, memberID, memberEpoch)
}

// validateModernOffsetFetch is ConsumerGroup.validateOffsetFetch and
// StreamsGroup.validateOffsetFetch.
func validateModernOffsetFetch(g *group, memberID string, memberEpoch int32) error {
	// Kafka accepts a null member id with a negative epoch (an admin, or a
	// client that does not say who it is); "" stands for null here.
	if memberID == "" && memberEpoch < 0 {
		return nil
	}
	m := g.members[memberID]
	if m == nil {
		return kerr.UnknownMemberID.WithMessage("Member %s is not a member of group %s.", memberID, g.id)
	}
	if memberEpoch != m.memberEpoch {
		if m.classic != nil {
			return classicEpochMismatch(memberEpoch, m.memberEpoch)
		}
		return kerr.StaleMemberEpoch.WithMessage("The received member epoch %d does not match the expected member epoch %d.",
			memberEpoch, m.memberEpoch)
	}
	return nil
}

// classicEpochMismatch is ConsumerGroup.validateMemberEpoch's answer to a
// classic member: ILLEGAL_GENERATION, where a consumer-protocol member
// gets STALE_MEMBER_EPOCH.
func classicEpochMismatch(received, expected int32) error {
	return kerr.IllegalGeneration.WithMessage("The received generation id %d does not match the expected member epoch %d.", received, expected)
}

// assignmentEpoch returns the epoch at which the member was assigned
// partition of topic (a task of subtopology topic for streams members),
// assigned or pending revocation, or false when it holds neither.
func (m *member) assignmentEpoch(topic string, partition int32) (int32, bool) {
	if e, ok := epochIn(m.assigned, m.epochs, 0, topic, partition); ok {
		return e, true
	}
	return epochIn(m.pending, m.epochs, countPartitions(m.assigned), topic, partition)
}

// epochIn looks the partition up in held, whose flat epochs start at off.
func epochIn(held []TopicPartitions, epochs []int32, off int, topic string, partition int32) (int32, bool) {
	for _, tp := range held {
		if tp.Topic != topic {
			off += len(tp.Partitions)
			continue
		}
		j, ok := slices.BinarySearch(tp.Partitions, partition)
		if !ok || off+j >= len(epochs) {
			return 0, false
		}
		return epochs[off+j], true
	}
	return 0, false
}

// stampAssignmentEpochs returns the assignment epochs of next, aligned with
// it: an assigned partition the member already had assigned, and a pending
// one it already held (assigned or pending revocation, as m holds them
// before the record), keeps the epoch it was assigned at; any other gets
// epoch, the member epoch of the record that assigns it
// (KIP-1251's AssignmentEpochs, which Kafka writes in the record and
// coordsim derives on replay, where the previous assignment is known).
//
// The epochs are flat (member.epochs): assigned's, then pending's; nil when
// both lists are empty.
func (m *member) stampAssignmentEpochs(assigned, pending []TopicPartitions, epoch int32) []int32 {
	if len(assigned)+len(pending) == 0 {
		return nil
	}
	out := make([]int32, 0, countPartitions(assigned)+countPartitions(pending))
	for k, list := range [2][]TopicPartitions{assigned, pending} {
		for _, tp := range list {
			for _, p := range tp.Partitions {
				var at int32
				var ok bool
				if k == 0 {
					// Only an assigned partition carries its epoch into the
					// next assignment: Kafka's computeNextAssignment reads
					// member.assignedPartitions(), so one that was pending
					// revocation and comes back is assigned anew.
					at, ok = epochIn(m.assigned, m.epochs, 0, tp.Topic, p)
				} else {
					at, ok = m.assignmentEpoch(tp.Topic, p)
				}
				if !ok {
					at = epoch
				}
				out = append(out, at)
			}
		}
	}
	return out
}
