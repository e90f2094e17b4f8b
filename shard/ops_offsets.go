package shard

import (
	"math"

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

// DefaultRetentionTimeMs is OffsetCommitRequest.DEFAULT_RETENTION_TIME: the
// broker's offsets.retention.minutes applies.
const DefaultRetentionTimeMs int64 = -1

// OffsetCommitRequest is Kafka's OffsetCommitRequest.
//
// MemberID and MemberEpoch (GenerationIdOrMemberEpoch) identify the
// committer: a member of a consumer or streams group with its member epoch,
// or nobody ("" and a negative epoch) for a simple consumer or an admin
// commit. GroupInstanceID is "" for Kafka's null. RetentionTimeMs is
// OffsetCommit v2–v4's retention: DefaultRetentionTimeMs (-1) means the
// broker default; any other value writes the legacy expire timestamp
// now+RetentionTimeMs, which wins over offsets.retention.minutes (0 expires
// at the next sweep), as OffsetMetadataManager.expireTimestampMs does.
//
// APIVersion is the OffsetCommit request's version, which Kafka's checks
// read (the RequestContext's): below 9, a commit to a group that does not
// exist with an epoch >= 0 is ILLEGAL_GENERATION instead of
// GROUP_ID_NOT_FOUND, and a member of a consumer or streams group is
// UNSUPPORTED_VERSION. 0, the zero value, means "the latest": Go callers and
// the simulator, which speak no wire version, get v9+ behaviour as before.
// Kafka 4 serves OffsetCommit v2 and later (KIP-896 removed v0-1), so 1 and
// negative versions are refused with UNSUPPORTED_VERSION.
type OffsetCommitRequest struct {
	GroupID         string
	MemberID        string
	GroupInstanceID string
	MemberEpoch     int32
	RetentionTimeMs int64
	APIVersion      int16
	Topics          []OffsetCommitTopic
}

// OffsetCommitLatestVersion is OffsetCommitRequest.APIVersion's zero value:
// no wire version, the newest rules.
const OffsetCommitLatestVersion int16 = 0

// offsetCommitModernMinVersion is the first OffsetCommit version a KIP-848
// or KIP-1071 member may commit with, and the first that answers
// GROUP_ID_NOT_FOUND for a group that does not exist.
const offsetCommitModernMinVersion int16 = 9

// validateOffsetCommitVersion refuses versions Kafka 4 does not serve.
func validateOffsetCommitVersion(v int16) error {
	if v < 0 || v == 1 {
		return kerr.UnsupportedVersion.WithMessage("OffsetCommit version %d is not supported (2 and later, or 0 for the latest)", v)
	}
	return nil
}

// PartitionResult is one partition's outcome in a per-partition response
// (OffsetCommit, TxnOffsetCommit, OffsetDelete). Err nil is Kafka's NONE;
// otherwise a kerr error carrying Kafka's error name.
type PartitionResult struct {
	Partition int32
	Err       error
}

// TopicResults is one topic's partitions in a per-partition response, in
// request order.
type TopicResults struct {
	Topic      string
	Partitions []PartitionResult
}

// OffsetCommitResponse answers an OffsetCommit or a TxnOffsetCommit: every
// requested partition with its error, and how many offsets were written.
type OffsetCommitResponse struct {
	Committed int
	Topics    []TopicResults
}

// Err returns the first partition error of r, or nil when every partition
// was committed: a convenience for callers that commit one partition.
func (r OffsetCommitResponse) Err() error { return firstPartitionErr(r.Topics) }

func firstPartitionErr(topics []TopicResults) error {
	for _, t := range topics {
		for _, p := range t.Partitions {
			if p.Err != nil {
				return p.Err
			}
		}
	}
	return nil
}

// commitKind tells a regular commit from a transactional one: they differ in
// the errors Kafka answers (OffsetMetadataManager.validateOffsetCommit and
// validateTransactionalOffsetCommit).
type commitKind uint8

const (
	regularCommit commitKind = iota
	transactionalCommit
)

// commitRequest is the part of OffsetCommit and TxnOffsetCommit the
// validation reads.
type commitRequest struct {
	kind       commitKind
	groupID    string
	memberID   string
	instanceID string
	// emptyInstanceID: instanceID "" was sent as "", not as null.
	emptyInstanceID bool
	memberEpoch     int32
	apiVersion      int16 // OffsetCommit's; 0 (latest) for TxnOffsetCommit
	// topicIDs: a TxnOffsetCommit that named its topics by id (v6+).
	topicIDs bool
	topics   []OffsetCommitTopic
}

// beforeVersion9 reports whether a regular commit came with an OffsetCommit
// version below 9, where Kafka answers with the pre-KIP-848 errors.
func (r commitRequest) beforeVersion9() bool {
	return r.kind == regularCommit && r.apiVersion != OffsetCommitLatestVersion && r.apiVersion < offsetCommitModernMinVersion
}

// CommitOffsets is Kafka's OffsetCommit: KafkaApis' topic check, then
// OffsetMetadataManager.commitOffset.
//
// A partition the metadata image does not hold is answered
// UNKNOWN_TOPIC_OR_PARTITION and skipped (KafkaApis.handleOffsetCommitRequest,
// which never calls the coordinator when no partition is left). The group and
// the committer are then validated as a whole (GROUP_ID_NOT_FOUND,
// UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH fail the request); each partition
// whose metadata exceeds offset.metadata.max.bytes is answered
// OFFSET_METADATA_TOO_LARGE, and the others are committed. A commit at an
// older member epoch is accepted only if every committed partition (or task)
// was assigned to the member at that epoch or before (KIP-1251).
//
// The committed values are stored as given, a negative offset or a leader
// epoch below -1 included: Kafka's OffsetMetadataManager checks neither
// (OffsetAndMetadata.fromRequest copies them), and an admin may reset a
// group to a sentinel such as -1.
func (s *Shard) CommitOffsets(nowMs int64, req OffsetCommitRequest) (Result[OffsetCommitResponse], error) {
	if err := validateOffsetCommitVersion(req.APIVersion); err != nil {
		return Result[OffsetCommitResponse]{}, err
	}
	return s.commit(nowMs, commitRequest{
		kind: regularCommit, groupID: req.GroupID, memberID: req.MemberID, instanceID: req.GroupInstanceID,
		memberEpoch: req.MemberEpoch, apiVersion: req.APIVersion, topics: req.Topics,
	}, expireTimestampMs(req.RetentionTimeMs, nowMs), NoProducerID)
}

// expireTimestampMs is OffsetMetadataManager.expireTimestampMs: only
// DefaultRetentionTimeMs means "no expire timestamp". A sum past int64
// saturates; a sum below zero (a negative retention) is clamped to 0, a
// moment already past, which is when Kafka's negative timestamp expires too.
func expireTimestampMs(retentionTimeMs, nowMs int64) int64 {
	if retentionTimeMs == DefaultRetentionTimeMs {
		return offsets.NoExpireTimestamp
	}
	expire := nowMs + retentionTimeMs
	switch {
	case retentionTimeMs > 0 && expire < nowMs:
		return math.MaxInt64
	case retentionTimeMs < 0 && expire > nowMs, expire < 0:
		return 0
	}
	return expire
}

// commit runs both commit kinds.
func (s *Shard) commit(nowMs int64, req commitRequest, expire, producerID int64) (Result[OffsetCommitResponse], error) {
	var res Result[OffsetCommitResponse]
	if err := req.validateGroupID(); err != nil {
		return res, err
	}
	if err := validateMemberID(req.memberID); err != nil {
		return res, err
	}
	known, answered := s.partitionsInMetadata(req.topics)
	res.Response.Topics = answered
	if len(known) == 0 {
		return res, nil
	}
	validate, err := s.validateOffsetCommit(req)
	if err != nil {
		return Result[OffsetCommitResponse]{}, req.commitErr(err)
	}
	out := newCommitBuffers(known, answered)
	for _, t := range known {
		results := out.resultsFor(t.Topic, len(t.Partitions))
		for _, p := range t.Partitions {
			if n, tooLarge := s.metadataTooLarge(p.Metadata); tooLarge {
				*results = append(*results, PartitionResult{Partition: p.Partition, Err: kerr.OffsetMetadataTooLarge.WithMessage(
					"%s-%d: metadata is %d characters, more than %d", t.Topic, p.Partition, n, s.cfg.OffsetMetadataMaxBytes)})
				continue
			}
			if err := validate(t.Topic, p.Partition); err != nil {
				// A refused partition fails the whole request, as the
				// validator's exception does in commitOffset.
				return Result[OffsetCommitResponse]{}, req.commitErr(err)
			}
			*results = append(*results, PartitionResult{Partition: p.Partition})
			out.values = append(out.values, OffsetCommit{
				Group: req.groupID, Topic: t.Topic, Partition: p.Partition, ProducerID: producerID,
				Value: offsets.OffsetAndMetadata{
					Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata,
					CommitTimestampMs: nowMs, ExpireTimestampMs: expire,
				},
			})
		}
	}
	// values never grows past its capacity, so the pointers stay valid.
	for i := range out.values {
		out.records = append(out.records, &out.values[i])
	}
	res.Records, res.Response.Topics = out.records, out.topics
	res.Response.Committed = len(out.values)
	return res, nil
}

// commitBuffers are the slices a commit fills: the record values, the
// records pointing at them and the per-partition answers. They are sized
// from the request, so filling them never grows a slice (an allocation per
// growth was most of a commit's allocations).
type commitBuffers struct {
	values  []OffsetCommit
	records []Record
	topics  []TopicResults
	// partitions is the unused part of the backing array the answers of
	// the topics added by resultsFor are cut from.
	partitions []PartitionResult
}

// onePartitionCommit holds the record slice and the answers of a
// one-partition commit (a simple consumer's, a commitSync of one record, the
// benchmarked case) in one allocation, so that such a commit costs two
// allocations instead of four. The record value is not in it: the
// coordinator's log keeps every record for as long as the cluster lives (a
// shard that moves replays it), and a value sharing an allocation with the
// answers would keep them alive too. A Go allocation cannot hold arrays of
// several types and request-dependent lengths, so only the length 1 gets
// this.
type onePartitionCommit struct {
	record    [1]Record
	topic     [1]TopicResults
	partition [1]PartitionResult
}

// newCommitBuffers sizes the buffers for known's partitions; answered (the
// UNKNOWN_TOPIC_OR_PARTITION answers so far) starts the answers.
func newCommitBuffers(known []OffsetCommitTopic, answered []TopicResults) commitBuffers {
	n := countCommitPartitions(known)
	if n == 1 && answered == nil {
		one := new(onePartitionCommit)
		return commitBuffers{
			values:  make([]OffsetCommit, 0, 1),
			records: one.record[:0], topics: one.topic[:0], partitions: one.partition[:],
		}
	}
	topics := answered
	if topics == nil {
		topics = make([]TopicResults, 0, len(known))
	}
	return commitBuffers{
		values: make([]OffsetCommit, 0, n), records: make([]Record, 0, n),
		topics: topics, partitions: make([]PartitionResult, n),
	}
}

// resultsFor is resultsFor on b's answers: a topic added here gets room for
// n answers from b.partitions. The capacity is capped at n, so a topic named
// twice in one request grows its own list instead of writing over the next
// topic's.
func (b *commitBuffers) resultsFor(topic string, n int) *[]PartitionResult {
	for i := range b.topics {
		if b.topics[i].Topic == topic {
			return &b.topics[i].Partitions
		}
	}
	b.topics = append(b.topics, TopicResults{Topic: topic, Partitions: b.partitions[:0:n]})
	b.partitions = b.partitions[n:]
	return &b.topics[len(b.topics)-1].Partitions
}

// validateGroupID checks the group id as GroupCoordinatorService does per
// API: commitOffsets refuses only null, so "" is a group;
// commitTransactionalOffsets refuses "" too (isGroupIdNotEmpty).
func (r commitRequest) validateGroupID() error {
	if r.kind == transactionalCommit {
		return ValidateGroupID(r.groupID)
	}
	return ValidateGroupIDOrEmpty(r.groupID)
}

// metadataTooLarge is OffsetMetadataManager.isMetadataInvalid:
// offset.metadata.max.bytes bounds Java's String.length(), the number of
// UTF-16 code units, not the UTF-8 bytes. It returns that length when over
// the bound. A string no longer in bytes than the bound is never over it
// (every code point takes at least as many UTF-8 bytes as UTF-16 units), so
// only longer ones are counted.
func (s *Shard) metadataTooLarge(metadata string) (int, bool) {
	limit := s.cfg.OffsetMetadataMaxBytes
	if len(metadata) <= limit {
		return 0, false
	}
	n := javaStringLength(metadata)
	return n, n > limit
}

// javaStringLength is String.length() of the Java string s decodes to: one
// unit per code point up to U+FFFF, two (a surrogate pair) above. An
// invalid UTF-8 byte decodes as one U+FFFD, as ranging over a Go string
// does (see coordinator.JavaStringHashCode for where the JDK's decoder can
// differ on such bytes).
func javaStringLength(s string) int {
	n := 0
	for _, r := range s {
		n++
		if r > 0xFFFF {
			n++
		}
	}
	return n
}

// commitErr maps a validation error to what the request kind answers: a
// transactional commit turns STALE_MEMBER_EPOCH into ILLEGAL_GENERATION
// (validateTransactionalOffsetCommit and commitTransactionalOffset).
func (r commitRequest) commitErr(err error) error {
	if r.kind == transactionalCommit && kerr.As(err) == kerr.StaleMemberEpoch {
		return errIllegalGeneration()
	}
	return err
}

// resultsFor returns the result list of topic in topics, adding the topic
// when absent, so a topic keeps one entry however its partitions split.
func resultsFor(topics *[]TopicResults, topic string) *[]PartitionResult {
	for i := range *topics {
		if (*topics)[i].Topic == topic {
			return &(*topics)[i].Partitions
		}
	}
	*topics = append(*topics, TopicResults{Topic: topic})
	return &(*topics)[len(*topics)-1].Partitions
}

// errIllegalGeneration is Errors.ILLEGAL_GENERATION.exception(), with
// Kafka's default message.
func errIllegalGeneration() error {
	return kerr.IllegalGeneration.WithMessage("Specified group generation id is not valid.")
}

func countCommitPartitions(topics []OffsetCommitTopic) int {
	n := 0
	for _, t := range topics {
		n += len(t.Partitions)
	}
	return n
}

// partitionsInMetadata is KafkaApis' check before a commit reaches the group
// coordinator: a topic the metadata image does not hold, or a partition
// beyond its count, is answered UNKNOWN_TOPIC_OR_PARTITION. It returns the
// partitions that pass, and the answers so far.
func (s *Shard) partitionsInMetadata(topics []OffsetCommitTopic) ([]OffsetCommitTopic, []TopicResults) {
	if s.allPartitionsInMetadata(topics) {
		// The common case returns the request's own slice, not a copy: the
		// caller only reads it.
		return topics, nil
	}
	var known []OffsetCommitTopic
	var answered []TopicResults
	for _, t := range topics {
		n := s.TopicPartitions(t.Topic)
		keep := OffsetCommitTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			if p.Partition < 0 || p.Partition >= n {
				results := resultsFor(&answered, t.Topic)
				*results = append(*results, PartitionResult{Partition: p.Partition, Err: unknownPartition(t.Topic, p.Partition, n)})
				continue
			}
			keep.Partitions = append(keep.Partitions, p)
		}
		if len(keep.Partitions) > 0 {
			known = append(known, keep)
		}
	}
	return known, answered
}

// allPartitionsInMetadata reports whether partitionsInMetadata would keep
// topics as they are: every topic names at least one partition (a topic
// without any is dropped) and every partition is in the metadata image.
func (s *Shard) allPartitionsInMetadata(topics []OffsetCommitTopic) bool {
	for _, t := range topics {
		if len(t.Partitions) == 0 {
			return false
		}
		n := s.TopicPartitions(t.Topic)
		for _, p := range t.Partitions {
			if p.Partition < 0 || p.Partition >= n {
				return false
			}
		}
	}
	return true
}

func unknownPartition(topic string, partition, count int32) error {
	if count == 0 {
		return kerr.UnknownTopicOrPartition.WithMessage("This server does not host this topic-partition: topic %q is not in the metadata.", topic)
	}
	return kerr.UnknownTopicOrPartition.WithMessage("This server does not host this topic-partition: %s-%d (the topic has %d partitions).", topic, partition, count)
}

// TxnOffsetCommitRequest is Kafka's TxnOffsetCommitRequest. MemberID "",
// MemberEpoch -1 (GenerationId) and GroupInstanceID "" are what a producer
// sends from sendOffsetsToTransaction(offsets, groupId), without the
// consumer's group metadata. GroupInstanceID "" is Kafka's null unless
// EmptyGroupInstanceID says the request carried "" itself, which
// ConsumerGroup.validateOffsetCommit does not exempt. TransactionalID and
// ProducerEpoch are carried for the wire; the transaction coordinator, not
// modelled, checks them.
type TxnOffsetCommitRequest struct {
	TransactionalID      string
	GroupID              string
	ProducerID           int64
	ProducerEpoch        int16
	MemberID             string
	GroupInstanceID      string
	EmptyGroupInstanceID bool
	MemberEpoch          int32
	// TopicIDs reports that the request named its topics by id
	// (TxnOffsetCommit v6+; the caller resolved them to the names in
	// Topics). Kafka 4.4's consumer-group check of a commit at an older
	// member epoch finds each partition by topic id, and KafkaApis fills no
	// ids into a request by name (v0-5), as it does for OffsetCommit: such a
	// request is refused, ILLEGAL_GENERATION, whatever its partitions.
	TopicIDs bool
	Topics   []OffsetCommitTopic
}

// CommitTransactionalOffsets is Kafka's TxnOffsetCommit (KafkaApis' topic
// check, then OffsetMetadataManager.commitTransactionalOffset): it writes
// pending offsets of a transaction, which become committed at
// EndTransaction(commit) and vanish on abort. It differs from CommitOffsets
// where Kafka does: an unknown group with a member epoch >= 0 and a stale
// epoch answer ILLEGAL_GENERATION, and member "" at epoch -1 without an
// instance id commits to any group, as a producer without the consumer's
// group metadata does.
func (s *Shard) CommitTransactionalOffsets(nowMs int64, req TxnOffsetCommitRequest) (Result[OffsetCommitResponse], error) {
	if req.ProducerID < 0 {
		return Result[OffsetCommitResponse]{}, kerr.InvalidRequest.WithMessage("producer id %d is negative", req.ProducerID)
	}
	return s.commit(nowMs, commitRequest{
		kind: transactionalCommit, groupID: req.GroupID, memberID: req.MemberID, instanceID: req.GroupInstanceID,
		emptyInstanceID: req.EmptyGroupInstanceID && req.GroupInstanceID == "",
		memberEpoch:     req.MemberEpoch, topicIDs: req.TopicIDs, topics: req.Topics,
	}, offsets.NoExpireTimestamp, req.ProducerID)
}

// EndTransaction writes the marker that commits or aborts producerID's
// pending offsets. groupID is the group whose coordinator the transaction
// coordinator reached (the marker's routing), but the marker, like Kafka's
// control record in __consumer_offsets, completes the producer's offsets of
// every group of the shard.
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
// nothing is committed. Err is the partition's error (UNSTABLE_OFFSET_COMMIT
// under RequireStable), nil for Kafka's NONE.
type FetchedOffset struct {
	Topic       string
	Partition   int32
	Offset      int64
	LeaderEpoch int32
	Metadata    string
	Err         error
}

// OffsetFetchRequest is one group of Kafka's OffsetFetchRequest (v8+).
// MemberID "" stands for Kafka's null: with a negative MemberEpoch the fetch
// comes from an admin or a client that does not say who it is, and is not
// checked. Topics nil fetches every offset of the group.
type OffsetFetchRequest struct {
	GroupID       string
	MemberID      string
	MemberEpoch   int32
	Topics        []TopicPartitions
	RequireStable bool
}

// FetchOffsets is an OffsetFetch without a member (an admin's): the listed
// partitions, or every offset of the group when topics is nil.
func (s *Shard) FetchOffsets(groupID string, topics []TopicPartitions, requireStable bool) ([]FetchedOffset, error) {
	return s.OffsetFetch(OffsetFetchRequest{GroupID: groupID, MemberEpoch: -1, Topics: topics, RequireStable: requireStable})
}

// OffsetFetch is OffsetMetadataManager.fetchOffsets / fetchAllOffsets. A
// consumer or streams group checks the member (Group.validateOffsetFetch):
// an unknown member is UNKNOWN_MEMBER_ID and an epoch other than the
// member's is STALE_MEMBER_EPOCH, for the whole request. A group that does
// not exist, and a share group (whose validateOffsetFetch throws the
// GroupIdNotFoundException fetchOffsets catches), answer no error: -1 for
// every listed partition, nothing for "all". With RequireStable, a listed
// partition with a pending transactional offset is answered
// UNSTABLE_OFFSET_COMMIT with offset -1. The group id "" is a group like any
// other (GroupCoordinatorService.fetchOffsets refuses only null).
func (s *Shard) OffsetFetch(req OffsetFetchRequest) ([]FetchedOffset, error) {
	if err := ValidateGroupIDOrEmpty(req.GroupID); err != nil {
		return nil, err
	}
	if err := validateMemberID(req.MemberID); err != nil {
		return nil, err
	}
	notFound := true
	if g := s.lookup(req.GroupID); g != nil {
		err := validateOffsetFetch(g, req.MemberID, req.MemberEpoch)
		if err != nil && kerr.As(err) != kerr.GroupIDNotFound {
			return nil, err
		}
		notFound = err != nil
	}
	unstable := func(k offsets.Key) error {
		if req.RequireStable && s.offsets.HasPending(k) {
			return kerr.UnstableOffsetCommit.WithMessage("%s-%d has a pending transactional offset", k.Topic, k.Partition)
		}
		return nil
	}
	var out []FetchedOffset
	if req.Topics == nil {
		if notFound {
			return nil, nil
		}
		s.offsets.AscendGroup(req.GroupID, func(k offsets.Key, v offsets.OffsetAndMetadata) bool {
			f := FetchedOffset{k.Topic, k.Partition, v.Offset, v.LeaderEpoch, v.Metadata, unstable(k)}
			if f.Err != nil {
				f.Offset, f.LeaderEpoch, f.Metadata = -1, offsets.NoLeaderEpoch, ""
			}
			out = append(out, f)
			return true
		})
		return out, nil
	}
	for _, t := range req.Topics {
		for _, p := range t.Partitions {
			k := offsets.Key{Group: req.GroupID, Topic: t.Topic, Partition: p}
			f := FetchedOffset{Topic: t.Topic, Partition: p, Offset: -1, LeaderEpoch: offsets.NoLeaderEpoch, Err: unstable(k)}
			if v, ok := s.offsets.Get(k); ok && f.Err == nil && !notFound {
				f.Offset, f.LeaderEpoch, f.Metadata = v.Offset, v.LeaderEpoch, v.Metadata
			}
			out = append(out, f)
		}
	}
	return out, nil
}

// OffsetDeleteResponse answers an OffsetDelete: every requested partition
// with its error, and how many tombstones were written.
type OffsetDeleteResponse struct {
	Deleted int
	Topics  []TopicResults
}

// DeleteOffsets is Kafka's OffsetDelete (KafkaApis' partition check, then
// OffsetMetadataManager.deleteOffsets): a partition not in the metadata
// image is answered UNKNOWN_TOPIC_OR_PARTITION; every partition of a topic
// the group is subscribed to (isSubscribedToTopic: a classic group's are
// its last generation's consumer-protocol subscriptions)
// GROUP_SUBSCRIBED_TO_TOPIC; the others get a tombstone when they have a
// committed or pending offset. A missing group fails the request with
// GROUP_ID_NOT_FOUND, a group that refuses (validateOffsetDelete: a share
// group, a classic group with members of another protocol type) with its
// error.
func (s *Shard) DeleteOffsets(groupID string, topics []TopicPartitions) (Result[OffsetDeleteResponse], error) {
	var res Result[OffsetDeleteResponse]
	if err := ValidateGroupID(groupID); err != nil {
		return res, err
	}
	var known []TopicPartitions
	for _, t := range topics {
		n := s.TopicPartitions(t.Topic)
		keep := TopicPartitions{Topic: t.Topic}
		for _, p := range t.Partitions {
			if p < 0 || p >= n {
				results := resultsFor(&res.Response.Topics, t.Topic)
				*results = append(*results, PartitionResult{Partition: p, Err: unknownPartition(t.Topic, p, n)})
				continue
			}
			keep.Partitions = append(keep.Partitions, p)
		}
		if len(keep.Partitions) > 0 {
			known = append(known, keep)
		}
	}
	// Unlike a commit, the group is checked even when no partition is left:
	// its error answers the request.
	g := s.lookup(groupID)
	if g == nil {
		return Result[OffsetDeleteResponse]{}, kerr.GroupIDNotFound.WithMessage("Group %s not found.", groupID)
	}
	if err := groupKinds[g.typ].validateOffsetDelete(g); err != nil {
		return Result[OffsetDeleteResponse]{}, err
	}
	seen := map[offsets.Key]bool{}
	for _, t := range known {
		results := resultsFor(&res.Response.Topics, t.Topic)
		subscribed := g.isSubscribedToTopic(t.Topic)
		for _, p := range t.Partitions {
			if subscribed {
				*results = append(*results, PartitionResult{Partition: p, Err: kerr.GroupSubscribedToTopic.WithMessage(
					"group %s is subscribed to %s", groupID, t.Topic)})
				continue
			}
			*results = append(*results, PartitionResult{Partition: p})
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
	res.Response.Deleted = len(res.Records)
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
	return s.deleteGroups(groupIDs, nil)
}

// DeleteGroupsAfterRowDeletes is DeleteGroups on a coordinator with a
// topology store (docs/kip1331.md §2.7). rowsDeleted maps each streams group
// whose description row the coordinator deleted after its pre-delete read to
// the stored epoch the group must still have for that delete to have covered
// its row: the uncertain marker -2 under v2 and v3, the observed epoch under
// v1. Any other streams group with a stored epoch holds a row nobody deleted:
// it had members at the pre-delete read (so the read skipped it) and emptied
// before this write, or a push stored a new row after the delete. Its
// tombstone would leak that row, so it answers GROUP_DELETION_FAILED and
// stays; the admin's retry deletes the row first. Kafka's service runs the
// same two steps with the same window between them; coordsim closes it.
func (s *Shard) DeleteGroupsAfterRowDeletes(groupIDs []string, rowsDeleted map[string]int32) (Result[[]DeleteGroupResult], error) {
	if rowsDeleted == nil {
		rowsDeleted = map[string]int32{}
	}
	return s.deleteGroups(groupIDs, rowsDeleted)
}

// deleteGroups tombstones each deletable group; a nil rowsDeleted skips the
// stored-description check (no topology store).
func (s *Shard) deleteGroups(groupIDs []string, rowsDeleted map[string]int32) (Result[[]DeleteGroupResult], error) {
	var res Result[[]DeleteGroupResult]
	done := map[string]bool{}
	for _, id := range groupIDs {
		r := DeleteGroupResult{GroupID: id, Err: s.validateDeleteGroup(id)}
		if r.Err == nil && rowsDeleted != nil && s.holdsUndeletedRow(id, rowsDeleted) {
			r.Err = kerr.GroupDeletionFailed.WithMessage(RowNotDeletedMessage)
		}
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
		res.Timers = appendGroupTimerCancels(res.Timers, s.lookup(id))
	}
	return res, nil
}

// RowNotDeletedMessage answers a DeleteGroups entry whose streams group
// holds a description row the delete never removed (see
// DeleteGroupsAfterRowDeletes).
const RowNotDeletedMessage = "The group's topology description changed during the delete; retry to delete it."

// holdsUndeletedRow reports whether a streams group has a stored
// description that the coordinator's plugin delete did not cover.
func (s *Shard) holdsUndeletedRow(id string, rowsDeleted map[string]int32) bool {
	g := s.streamsGroup(id)
	if g == nil || g.storedEpoch == EpochNone {
		return false
	}
	want, deleted := rowsDeleted[id]
	return !deleted || g.storedEpoch != want
}

func (s *Shard) validateDeleteGroup(id string) error {
	// GroupCoordinatorService.deleteGroups refuses only a null id: "" is a
	// group like any other.
	if err := ValidateGroupIDOrEmpty(id); err != nil {
		return err
	}
	g := s.lookup(id)
	if g == nil {
		return kerr.GroupIDNotFound.WithMessage("Group %s not found.", id)
	}
	if g.notEmpty() && !s.cfg.Mutants.DeleteNonEmptyGroups {
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

// appendGroupTimerCancels cancels the timers a deleted group leaves behind:
// a streams group's initial rebalance delay (Kafka's
// createGroupTombstoneRecordsAndCancelTimers, StreamsGroup.cancelTimers).
func appendGroupTimerCancels(ops []TimerOp, g *group) []TimerOp {
	if g == nil {
		return ops
	}
	return groupKinds[g.typ].appendTimerCancels(ops, g.id)
}

// appendGroupTombstones is Kafka's createGroupTombstoneRecords for an empty group.
func (s *Shard) appendGroupTombstones(records []Record, g *group) []Record {
	return groupKinds[g.typ].appendTombstones(records, g.id)
}
