package shard

import (
	"fmt"
	"reflect"

	"github.com/coordsim/coordsim/offsets"
)

// MemberDescription is a member as Describe shows it.
type MemberDescription struct {
	MemberID string
	ClientID string
	// ClientHost is a consumer, share or streams member's address
	// ("/127.0.0.1"), "" when unknown.
	ClientHost       string
	ProcessID        string
	SubscribedTopics []string
	ServerAssignor   string
	// SubscribedTopicRegex is the member's regex ("" for none).
	SubscribedTopicRegex string
	RebalanceTimeoutMs   int32
	TopologyEpoch        int32
	MemberEpoch          int32
	PreviousMemberEpoch  int32
	// InstanceID is a consumer or streams member's group.instance.id;
	// State and PartitionsPendingRevocation are a consumer member's
	// reconciliation fields.
	InstanceID string
	// RackID is the member's client.rack ("" for none).
	RackID string
	// TaskOffsets and TaskEndOffsets are a streams member's last reported
	// task offsets, sorted; the coordinator fills them from its soft state
	// (MemberTaskOffsets), the shard leaves them nil.
	TaskOffsets, TaskEndOffsets []TaskOffset
	// UserEndpoint is a streams member's user endpoint, nil for none.
	UserEndpoint                *Endpoint
	State                       MemberState
	PartitionsPendingRevocation []TopicPartitions
	Assignment                  []TopicPartitions
	TargetAssignment            []TopicPartitions
	ActiveTasks                 []TaskIDs
	TargetActiveTasks           []TaskIDs
	// Streams members' standby and warm-up tasks (held and target), and
	// the tasks of each role pending revocation (ActiveTasksPendingRevocation
	// is PartitionsPendingRevocation as tasks).
	StandbyTasks, WarmupTasks             []TaskIDs
	TargetStandbyTasks, TargetWarmupTasks []TaskIDs
	ActiveTasksPendingRevocation          []TaskIDs
	StandbyTasksPendingRevocation         []TaskIDs
	WarmupTasksPendingRevocation          []TaskIDs
	// AssignmentEpochs is aligned with Assignment (ActiveTasks for streams
	// members): the member epoch at which each was assigned (KIP-1251).
	AssignmentEpochs [][]int32
	// PendingRevocationEpochs is aligned with PartitionsPendingRevocation.
	PendingRevocationEpochs [][]int32
	// Classic is the metadata of a consumer group member that uses the
	// classic protocol (online migration), nil for a consumer-protocol
	// member: ConsumerGroupDescribe types the first CLASSIC, the second
	// CONSUMER (KIP-1099). Read it, never modify it.
	Classic *ClassicMemberMetadata
}

// GroupDescription is a group as Describe shows it. Every replayed field is
// here, so two shards with equal descriptions and offsets are equal.
type GroupDescription struct {
	GroupID         string
	Type            GroupType
	State           GroupState
	Epoch           int32
	AssignmentEpoch int32
	// AssignmentTimestampMs is when the target at AssignmentEpoch was
	// computed, 0 for none (assignment_interval.go).
	AssignmentTimestampMs          int64
	ProtocolType                   string
	CurrentStateTimestampMs        int64
	Topology                       *Topology
	MetadataHash                   int64
	ValidatedTopologyEpoch         int32
	StoredDescriptionTopologyEpoch int32
	FailedDescriptionTopologyEpoch int32
	// LastNumStandbyReplicas is a streams group's num.standby.replicas at
	// its last group-epoch bump (Kafka's lastAssignmentConfigs).
	LastNumStandbyReplicas int32
	Members                []MemberDescription
	// Classic is a classic group's membership state, nil for a group
	// without members (read it, never modify it).
	Classic *ClassicGroupState
	// RegularExpressions are a consumer group's resolved regular
	// expressions, by regex.
	RegularExpressions []RegularExpressionDescription
	// ShareInitializing, ShareInitialized and ShareDeleting are a share
	// group's ShareGroupStatePartitionMetadata: the partitions whose
	// share state is being initialised or is initialised (only those are
	// assigned) and the topics whose state is being deleted.
	ShareInitializing, ShareInitialized []TopicPartitions
	ShareDeleting                       []string
}

// RegularExpressionDescription is one resolved regular expression.
type RegularExpressionDescription struct {
	Regex       string
	Topics      []string
	Version     uint64
	TimestampMs int64
}

func describe(g *group) GroupDescription {
	d := GroupDescription{
		GroupID: g.id, Type: g.typ, State: g.state, Epoch: g.epoch, AssignmentEpoch: g.assignmentEpoch, AssignmentTimestampMs: g.assignmentTimestampMs,
		ProtocolType: g.protocolType, CurrentStateTimestampMs: g.currentStateTimestampMs,
		Topology: g.topology, MetadataHash: g.metadataHash, ValidatedTopologyEpoch: g.validatedTopologyEpoch,
		StoredDescriptionTopologyEpoch: g.storedEpoch, FailedDescriptionTopologyEpoch: g.failedEpoch,
		LastNumStandbyReplicas: g.lastNumStandbyReplicas, Classic: g.classic,
	}
	for _, id := range g.sortedMemberIDs() {
		m := g.members[id]
		md := MemberDescription{
			MemberID: m.id, ClientID: m.clientID, ClientHost: m.clientHost, Classic: m.classic, ProcessID: m.processID, SubscribedTopics: m.subscribedTopics,
			RebalanceTimeoutMs: m.rebalanceTimeoutMs, TopologyEpoch: m.topologyEpoch(), ServerAssignor: m.consumerPart().serverAssignor,
			SubscribedTopicRegex: m.consumerPart().topicRegex,
			MemberEpoch:          m.memberEpoch, PreviousMemberEpoch: m.previousMemberEpoch,
			Assignment: m.assigned, TargetAssignment: m.target, AssignmentEpochs: m.assignedEpochs(),
			InstanceID: m.instanceID(), RackID: m.rackID, UserEndpoint: m.userEndpoint(), State: m.state, PartitionsPendingRevocation: m.pending, PendingRevocationEpochs: m.pendingEpochs(),
		}
		groupKinds[g.typ].describeMember(&md, m)
		d.Members = append(d.Members, md)
	}
	d.RegularExpressions = describeRegexes(g.regexes)
	if st := g.shareState; st != nil {
		d.ShareInitializing, d.ShareInitialized, d.ShareDeleting = st.initializing, st.initialized, st.deleting
	}
	return d
}

// DescribeGroup returns one group, or false if it does not exist. The
// returned slices share memory with the shard: read them, never modify them.
func (s *Shard) DescribeGroup(id string) (GroupDescription, bool) {
	g := s.lookup(id)
	if g == nil {
		return GroupDescription{}, false
	}
	return describe(g), true
}

// GroupType returns a group's type, or false if it does not exist.
func (s *Shard) GroupType(id string) (GroupType, bool) {
	g := s.lookup(id)
	if g == nil {
		return 0, false
	}
	return g.typ, true
}

// GroupEpoch returns a group's epoch (a classic group's generation), or
// false if it does not exist.
func (s *Shard) GroupEpoch(id string) (int32, bool) {
	g := s.lookup(id)
	if g == nil {
		return 0, false
	}
	return g.epoch, true
}

// GroupState returns a group's state, or false if it does not exist.
func (s *Shard) GroupState(id string) (GroupState, bool) {
	g := s.lookup(id)
	if g == nil {
		return 0, false
	}
	return g.state, true
}

// HasMember reports whether the group has the member.
func (s *Shard) HasMember(groupID, memberID string) bool {
	g := s.lookup(groupID)
	return g != nil && g.members[memberID] != nil
}

// MemberState returns a consumer or streams member's reconciliation state,
// or false if the member does not exist.
func (s *Shard) MemberState(groupID, memberID string) (MemberState, bool) {
	g := s.lookup(groupID)
	if g == nil || g.members[memberID] == nil {
		return 0, false
	}
	return g.members[memberID].state, true
}

// MemberEpoch returns a consumer, streams or share member's epoch, or
// false if the member does not exist.
func (s *Shard) MemberEpoch(groupID, memberID string) (int32, bool) {
	g := s.lookup(groupID)
	if g == nil || g.members[memberID] == nil {
		return 0, false
	}
	return g.members[memberID].memberEpoch, true
}

// GroupListing is one row of ListGroups.
type GroupListing struct {
	GroupID string
	Type    GroupType
	State   GroupState
	// ProtocolType is a classic group's ("" for a simple group).
	ProtocolType string
}

// ListGroups calls fn for every group in id order until fn returns false.
func (s *Shard) ListGroups(fn func(GroupListing) bool) {
	s.groups.Ascend(func(g *group) bool {
		return fn(GroupListing{GroupID: g.id, Type: g.typ, State: g.state, ProtocolType: g.protocolType})
	})
}

// GroupCount returns the number of groups of a type in a state.
func (s *Shard) GroupCount(t GroupType, st GroupState) int {
	if t >= numGroupTypes || st >= numGroupStates {
		return 0
	}
	return s.counts[t][st]
}

// NumGroups is the number of groups on the shard.
func (s *Shard) NumGroups() int { return s.groups.Len() }

// OffsetCount is the number of committed offsets on the shard.
func (s *Shard) OffsetCount() int { return s.offsets.Len() }

// GroupOffsetCount is the number of committed offsets of one group.
func (s *Shard) GroupOffsetCount(groupID string) int { return s.offsets.GroupOffsetCount(groupID) }

// Offset returns one committed offset.
func (s *Shard) Offset(groupID, topic string, partition int32) (offsets.OffsetAndMetadata, bool) {
	return s.offsets.Get(offsets.Key{Group: groupID, Topic: topic, Partition: partition})
}

// AscendOffsets calls fn for every committed offset of a group in order.
func (s *Shard) AscendOffsets(groupID string, fn func(offsets.Key, offsets.OffsetAndMetadata) bool) {
	s.offsets.AscendGroup(groupID, fn)
}

// HasOpenTransaction reports whether the group has pending transactional offsets.
func (s *Shard) HasOpenTransaction(groupID string) bool { return s.offsets.HasOpenTransaction(groupID) }

// HasPendingOffset reports whether the partition has a pending
// transactional offset (a TxnOffsetCommit not yet committed or aborted).
func (s *Shard) HasPendingOffset(k offsets.Key) bool { return s.offsets.HasPending(k) }

// Snapshot is the whole replayed state of a shard in comparable form: equal
// snapshots mean equal shards (the replay-equality property).
type Snapshot struct {
	Groups        []GroupDescription
	Offsets       []OffsetEntry
	PendingCount  int
	Deletable     []string
	Eligible      []string
	Counts        [numGroupTypes][numGroupStates]int
	LastOffset    int64
	OffsetCount   int
	OpenTxnGroups []string
}

// OffsetEntry is one committed offset in a Snapshot.
type OffsetEntry struct {
	Key   offsets.Key
	Value offsets.OffsetAndMetadata
}

// Snapshot returns the shard's whole state. It costs O(state); it is for
// tests, replay checks and debugging, not hot paths.
func (s *Shard) Snapshot() Snapshot {
	snap := Snapshot{Counts: s.counts, LastOffset: s.lastOffset, OffsetCount: s.offsets.Len(), PendingCount: s.offsets.PendingLen()}
	s.groups.Ascend(func(g *group) bool {
		snap.Groups = append(snap.Groups, describe(g))
		if s.offsets.HasOpenTransaction(g.id) {
			snap.OpenTxnGroups = append(snap.OpenTxnGroups, g.id)
		}
		return true
	})
	s.offsets.Ascend(func(k offsets.Key, v offsets.OffsetAndMetadata) bool {
		snap.Offsets = append(snap.Offsets, OffsetEntry{k, v})
		return true
	})
	s.deletable.Ascend(func(id string) bool { snap.Deletable = append(snap.Deletable, id); return true })
	s.eligible.Ascend(func(id string) bool { snap.Eligible = append(snap.Eligible, id); return true })
	return snap
}

// Diff returns nil when two snapshots are equal, or an error naming the
// first difference (replay checks use it).
func (a Snapshot) Diff(b Snapshot) error {
	if reflect.DeepEqual(a, b) {
		return nil
	}
	switch {
	case len(a.Groups) != len(b.Groups):
		return fmt.Errorf("%d groups vs %d", len(a.Groups), len(b.Groups))
	case len(a.Offsets) != len(b.Offsets):
		return fmt.Errorf("%d offsets vs %d", len(a.Offsets), len(b.Offsets))
	}
	for i := range a.Groups {
		if !reflect.DeepEqual(a.Groups[i], b.Groups[i]) {
			return fmt.Errorf("group %s: %+v vs %+v", a.Groups[i].GroupID, a.Groups[i], b.Groups[i])
		}
	}
	for i := range a.Offsets {
		if a.Offsets[i] != b.Offsets[i] {
			return fmt.Errorf("offset %+v vs %+v", a.Offsets[i], b.Offsets[i])
		}
	}
	return fmt.Errorf("indexes or counters differ: %+v vs %+v", a, b)
}
