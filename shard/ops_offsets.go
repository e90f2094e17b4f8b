package shard

import (
	"math"
	"slices"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
)

// OffsetCommitPartition is one partition of an offset commit.
type OffsetCommitPartition struct {
	Partition   int32
	Offset      int64
	LeaderEpoch int32 // offsets.NoLeaderEpoch when absent
	Metadata    string
}

// OffsetCommitTopic is one topic of an offset commit.
type OffsetCommitTopic struct {
	Topic      string
	Partitions []OffsetCommitPartition
}

// OffsetCommitRequest commits offsets for a group.
//
// MemberID and MemberEpoch identify the committer: a member of a consumer or
// streams group (its member epoch), or nobody ("" and a negative epoch) for a
// simple consumer or an admin commit to an empty group. RetentionTimeMs is
// OffsetCommit v1–v4's retention: -1 (Kafka's) or 0 (Go's zero value) means
// the broker default; a positive value writes the legacy expire timestamp
// now+RetentionTimeMs, which wins over offsets.retention.minutes. (Kafka
// would expire a retention of 0 at once; coordsim treats it as unset so a
// request built without the field keeps the default.)
type OffsetCommitRequest struct {
	GroupID         string
	MemberID        string
	MemberEpoch     int32
	RetentionTimeMs int64
	Topics          []OffsetCommitTopic
}

// OffsetCommitResponse reports how many offsets were committed.
type OffsetCommitResponse struct {
	Committed int
}

// CommitOffsets validates and turns an offset commit into records.
//
// Unlike Kafka, which answers per partition and commits the valid ones, a
// request with any invalid partition fails whole and changes nothing; the
// error names the partition and carries Kafka's per-partition error name.
func (s *Shard) CommitOffsets(nowMs int64, req OffsetCommitRequest) (Result[OffsetCommitResponse], error) {
	var res Result[OffsetCommitResponse]
	n, err := s.validateCommit(req.GroupID, req.MemberID, req.MemberEpoch, req.Topics)
	if err != nil {
		return res, err
	}
	if req.RetentionTimeMs < -1 {
		return res, kerr.InvalidRequest.WithMessage("retention time %d ms is negative", req.RetentionTimeMs)
	}
	expire := offsets.NoExpireTimestamp
	if req.RetentionTimeMs > 0 {
		expire = nowMs + req.RetentionTimeMs
		if expire < nowMs {
			// Saturate: a wrapped sum would be negative, which reads as "no
			// expire timestamp" and falls back to the broker's retention.
			expire = math.MaxInt64
		}
	}
	res.Records = s.offsetRecords(req.GroupID, nowMs, expire, NoProducerID, req.Topics, n)
	res.Response.Committed = n
	return res, nil
}

// offsetRecords builds the records of a commit with two allocations however
// many partitions it has: one for the values, one for the interface slice.
func (s *Shard) offsetRecords(group string, nowMs, expire, producerID int64, topics []OffsetCommitTopic, n int) []Record {
	values := make([]OffsetCommit, 0, n)
	records := make([]Record, n)
	for _, t := range topics {
		for _, p := range t.Partitions {
			values = append(values, OffsetCommit{
				Group: group, Topic: t.Topic, Partition: p.Partition, ProducerID: producerID,
				Value: offsets.OffsetAndMetadata{
					Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata,
					CommitTimestampMs: nowMs, ExpireTimestampMs: expire,
				},
			})
			records[len(values)-1] = &values[len(values)-1]
		}
	}
	return records
}

// validateCommit checks the group, the committer and every partition; it
// returns the number of partitions.
func (s *Shard) validateCommit(groupID, memberID string, memberEpoch int32, topics []OffsetCommitTopic) (int, error) {
	if err := ValidateGroupID(groupID); err != nil {
		return 0, err
	}
	if err := validateMemberID(memberID); err != nil {
		return 0, err
	}
	n := 0
	for _, t := range topics {
		if err := validateTopicName(t.Topic); err != nil {
			return 0, kerr.UnknownTopicOrPartition.WithMessage("%v", err)
		}
		for _, p := range t.Partitions {
			switch {
			case p.Partition < 0:
				return 0, kerr.UnknownTopicOrPartition.WithMessage("%s-%d: negative partition", t.Topic, p.Partition)
			case p.Offset < 0:
				return 0, kerr.InvalidRequest.WithMessage("%s-%d: negative offset %d", t.Topic, p.Partition, p.Offset)
			case p.LeaderEpoch < offsets.NoLeaderEpoch:
				return 0, kerr.InvalidRequest.WithMessage("%s-%d: leader epoch %d", t.Topic, p.Partition, p.LeaderEpoch)
			case len(p.Metadata) > s.cfg.OffsetMetadataMaxBytes:
				return 0, kerr.OffsetMetadataTooLarge.WithMessage("%s-%d: metadata is %d bytes, more than %d",
					t.Topic, p.Partition, len(p.Metadata), s.cfg.OffsetMetadataMaxBytes)
			}
			n++
		}
	}
	if n == 0 {
		return 0, kerr.InvalidRequest.WithMessage("offset commit for group %s names no partition", groupID)
	}
	g := s.lookup(groupID)
	if g == nil {
		// Kafka creates a simple classic group for a commit without a member.
		if memberID == "" && memberEpoch < 0 {
			return n, nil
		}
		return 0, kerr.GroupIDNotFound.WithMessage("Group %s not found.", groupID)
	}
	return n, s.validateCommitter(g, memberID, memberEpoch, topics)
}

// validateCommitter is Kafka's Group.validateOffsetCommit per type.
func (s *Shard) validateCommitter(g *group, memberID string, memberEpoch int32, topics []OffsetCommitTopic) error {
	switch g.typ {
	case Share:
		return kerr.GroupIDNotFound.WithMessage("Group %s is not a consumer group.", g.id)
	case Classic:
		// Simple groups have no members: only a memberless commit is valid.
		if memberID != "" {
			return kerr.UnknownMemberID.WithMessage("member %s is not in simple group %s", memberID, g.id)
		}
		if memberEpoch >= 0 {
			return kerr.IllegalGeneration.WithMessage("generation %d for simple group %s", memberEpoch, g.id)
		}
		return nil
	}
	// Consumer and streams groups (KIP-848 / KIP-1071).
	if memberEpoch < 0 && len(g.members) == 0 {
		return nil // admin commit to an empty group
	}
	m, ok := g.members[memberID]
	if !ok {
		return kerr.UnknownMemberID.WithMessage("member %q is not in group %s", memberID, g.id)
	}
	switch {
	case memberEpoch == m.memberEpoch:
		return nil
	case memberEpoch > m.memberEpoch:
		return kerr.StaleMemberEpoch.WithMessage("epoch %d is newer than member epoch %d", memberEpoch, m.memberEpoch)
	}
	// An older epoch is accepted only for partitions the member still owns
	// (KIP-1251, approximated: every committed partition must be assigned).
	if g.typ == Consumer && memberEpoch >= m.previousMemberEpoch && ownsAll(m.assigned, topics) {
		return nil
	}
	return kerr.StaleMemberEpoch.WithMessage("epoch %d is older than member epoch %d", memberEpoch, m.memberEpoch)
}

func ownsAll(assigned []TopicPartitions, topics []OffsetCommitTopic) bool {
	for _, t := range topics {
		i := slices.IndexFunc(assigned, func(tp TopicPartitions) bool { return tp.Topic == t.Topic })
		if i < 0 {
			return false
		}
		for _, p := range t.Partitions {
			if _, ok := slices.BinarySearch(assigned[i].Partitions, p.Partition); !ok {
				return false
			}
		}
	}
	return true
}

// TxnOffsetCommitRequest is a transactional offset commit (TxnOffsetCommit).
type TxnOffsetCommitRequest struct {
	GroupID     string
	ProducerID  int64
	MemberID    string
	MemberEpoch int32
	Topics      []OffsetCommitTopic
}

// CommitTransactionalOffsets writes pending offsets of a transaction; they
// become committed at EndTransaction(commit) and vanish on abort.
func (s *Shard) CommitTransactionalOffsets(nowMs int64, req TxnOffsetCommitRequest) (Result[OffsetCommitResponse], error) {
	var res Result[OffsetCommitResponse]
	if req.ProducerID < 0 {
		return res, kerr.InvalidRequest.WithMessage("producer id %d is negative", req.ProducerID)
	}
	n, err := s.validateCommit(req.GroupID, req.MemberID, req.MemberEpoch, req.Topics)
	if err != nil {
		return res, err
	}
	res.Records = s.offsetRecords(req.GroupID, nowMs, offsets.NoExpireTimestamp, req.ProducerID, req.Topics, n)
	res.Response.Committed = n
	return res, nil
}

// EndTransaction writes the marker that commits or aborts producerID's
// pending offsets for groupID.
func (s *Shard) EndTransaction(groupID string, producerID int64, commit bool) (Result[struct{}], error) {
	var res Result[struct{}]
	if err := ValidateGroupID(groupID); err != nil {
		return res, err
	}
	if producerID < 0 {
		return res, kerr.InvalidRequest.WithMessage("producer id %d is negative", producerID)
	}
	res.Records = []Record{&EndTransactionMarker{Group: groupID, ProducerID: producerID, Commit: commit}}
	return res, nil
}

// FetchedOffset is one partition of an offset fetch; Offset is -1 when
// nothing is committed.
type FetchedOffset struct {
	Topic       string
	Partition   int32
	Offset      int64
	LeaderEpoch int32
	Metadata    string
}

// FetchOffsets reads committed offsets: the listed partitions, or every
// offset of the group when topics is nil. With requireStable, a partition
// with a pending transactional offset fails with UNSTABLE_OFFSET_COMMIT.
func (s *Shard) FetchOffsets(groupID string, topics []TopicPartitions, requireStable bool) ([]FetchedOffset, error) {
	if err := ValidateGroupID(groupID); err != nil {
		return nil, err
	}
	if g := s.lookup(groupID); g != nil && g.typ == Share {
		return nil, kerr.GroupIDNotFound.WithMessage("Group %s is not a consumer group.", groupID)
	}
	var out []FetchedOffset
	check := func(k offsets.Key) error {
		if requireStable && s.offsets.HasPending(k) {
			return kerr.UnstableOffsetCommit.WithMessage("%s-%d has a pending transactional offset", k.Topic, k.Partition)
		}
		return nil
	}
	if topics == nil {
		var err error
		s.offsets.AscendGroup(groupID, func(k offsets.Key, v offsets.OffsetAndMetadata) bool {
			if err = check(k); err != nil {
				return false
			}
			out = append(out, FetchedOffset{k.Topic, k.Partition, v.Offset, v.LeaderEpoch, v.Metadata})
			return true
		})
		return out, err
	}
	for _, t := range topics {
		for _, p := range t.Partitions {
			k := offsets.Key{Group: groupID, Topic: t.Topic, Partition: p}
			if err := check(k); err != nil {
				return nil, err
			}
			f := FetchedOffset{Topic: t.Topic, Partition: p, Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch}
			if v, ok := s.offsets.Get(k); ok {
				f.Offset, f.LeaderEpoch, f.Metadata = v.Offset, v.LeaderEpoch, v.Metadata
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// DeleteOffsets is OffsetDelete: tombstones for the listed partitions that
// have a committed offset. A topic the group is subscribed to (while it has
// members) fails the request with GROUP_SUBSCRIBED_TO_TOPIC.
func (s *Shard) DeleteOffsets(groupID string, topics []TopicPartitions) (Result[int], error) {
	var res Result[int]
	if err := ValidateGroupID(groupID); err != nil {
		return res, err
	}
	g := s.lookup(groupID)
	if g == nil {
		return res, kerr.GroupIDNotFound.WithMessage("Group %s not found.", groupID)
	}
	if g.typ == Share {
		return res, kerr.GroupIDNotFound.WithMessage("Group %s is not a consumer group.", groupID)
	}
	for _, t := range topics {
		if err := validateTopicName(t.Topic); err != nil {
			return res, err
		}
		if g.isSubscribedToTopic(t.Topic) {
			return res, kerr.GroupSubscribedToTopic.WithMessage("group %s is subscribed to %s", groupID, t.Topic)
		}
	}
	seen := map[offsets.Key]bool{}
	for _, t := range topics {
		for _, p := range t.Partitions {
			k := offsets.Key{Group: groupID, Topic: t.Topic, Partition: p}
			if seen[k] {
				continue // a partition listed twice is deleted once
			}
			seen[k] = true
			if _, ok := s.offsets.Get(k); ok || s.offsets.HasPending(k) {
				res.Records = append(res.Records, &OffsetCommit{Group: groupID, Topic: t.Topic, Partition: p, ProducerID: NoProducerID, Tombstone: true})
			}
		}
	}
	res.Response = len(res.Records)
	return res, nil
}

// DeleteGroupResult is one group's outcome of DeleteGroups (nil Err = deleted).
type DeleteGroupResult struct {
	GroupID string
	Err     error
}

// DeleteGroups tombstones each listed group that exists and is empty, with
// all its offsets. Results come in request order; a duplicate id is answered
// once per occurrence but deleted once.
func (s *Shard) DeleteGroups(groupIDs []string) (Result[[]DeleteGroupResult], error) {
	var res Result[[]DeleteGroupResult]
	done := map[string]bool{}
	for _, id := range groupIDs {
		r := DeleteGroupResult{GroupID: id, Err: s.validateDeleteGroup(id)}
		res.Response = append(res.Response, r)
		if r.Err != nil || done[id] {
			continue
		}
		done[id] = true
		if s.cfg.Mutants.DeleteNonEmptyGroups {
			res.Records = s.removeAllMembers(res.Records, id)
		}
		res.Records = s.appendOffsetTombstones(res.Records, id)
		res.Records = s.appendGroupTombstones(res.Records, s.lookup(id))
	}
	return res, nil
}

func (s *Shard) validateDeleteGroup(id string) error {
	if err := ValidateGroupID(id); err != nil {
		return err
	}
	g := s.lookup(id)
	if g == nil {
		return kerr.GroupIDNotFound.WithMessage("Group %s not found.", id)
	}
	if len(g.members) > 0 && !s.cfg.Mutants.DeleteNonEmptyGroups {
		return kerr.NonEmptyGroup.WithMessage("Group %s is not empty.", id)
	}
	return nil
}

// appendOffsetTombstones tombstones every committed and pending offset of a
// group (DeleteGroups removes offsets immediately, docs/kip1331.md §3.1).
func (s *Shard) appendOffsetTombstones(records []Record, groupID string) []Record {
	s.offsets.AscendGroup(groupID, func(k offsets.Key, _ offsets.OffsetAndMetadata) bool {
		records = append(records, &OffsetCommit{Group: k.Group, Topic: k.Topic, Partition: k.Partition, ProducerID: NoProducerID, Tombstone: true})
		return true
	})
	for _, k := range s.pendingOnlyKeys(groupID) {
		records = append(records, &OffsetCommit{Group: k.Group, Topic: k.Topic, Partition: k.Partition, ProducerID: NoProducerID, Tombstone: true})
	}
	return records
}

// pendingOnlyKeys lists partitions that have a pending transactional offset
// but no committed one; Store has no pending iterator, so this walks what
// committed offsets cannot show. It is only used by DeleteGroups.
func (s *Shard) pendingOnlyKeys(groupID string) []offsets.Key {
	if !s.offsets.HasOpenTransaction(groupID) {
		return nil
	}
	keys := s.offsets.PendingKeys(groupID)
	out := keys[:0]
	for _, k := range keys {
		if _, committed := s.offsets.Get(k); !committed {
			out = append(out, k)
		}
	}
	return out
}

// appendGroupTombstones is Kafka's createGroupTombstoneRecords for an empty group.
func (s *Shard) appendGroupTombstones(records []Record, g *group) []Record {
	id := g.id
	switch g.typ {
	case Classic:
		return append(records, &GroupMetadata{Group: id, Tombstone: true})
	case Consumer:
		return append(records,
			&ConsumerGroupTargetAssignmentMetadata{Group: id, Tombstone: true},
			&ConsumerGroupMetadata{Group: id, Tombstone: true})
	case Streams:
		return append(records,
			&StreamsGroupTargetAssignmentMetadata{Group: id, Tombstone: true},
			&StreamsGroupMetadata{Group: id, Tombstone: true},
			&StreamsGroupTopology{Group: id, Tombstone: true})
	case Share:
		return append(records,
			&ShareGroupTargetAssignmentMetadata{Group: id, Tombstone: true},
			&ShareGroupMetadata{Group: id, Tombstone: true})
	}
	return records
}
