package difftest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecordRepros rewrites the hand-written reproductions under testdata/repro/
// from the oracle. It runs only with DIFFTEST_RECORD=1 (it writes files),
// or DIFFTEST_RECORD=NAME for the one named NAME; TestRepros checks them
// against coordsim on every run. Those recorded before the runner kept
// Kafka's assignment interval (their files say so) would change meaning
// if rewritten: rewrite new ones by name.
func TestRecordRepros(t *testing.T) {
	only := os.Getenv("DIFFTEST_RECORD")
	if only == "" {
		t.Skip("set DIFFTEST_RECORD=1 (or the name of one) to rewrite testdata/ from the oracle")
	}
	o := startOracle(context.Background(), t)
	topics := SetTopics{Topics: []Topic{{Name: "foo", Partitions: 2}}}
	epoch := func(e int32) ConsumerHeartbeat {
		return ConsumerHeartbeat{ClientID: "c", GroupID: "g", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: e, RebalanceTimeoutMs: -1}
	}
	for _, r := range []struct {
		name, about string
		ops         []Op
	}{
		{"negative-offset-commit", "A commit of a negative offset and a leader epoch below -1 is stored as given\nand fetched back (coordsim refused it with INVALID_REQUEST).", []Op{
			topics,
			OffsetCommit{GroupID: "simple", MemberEpoch: -1, Topics: []CommitTopic{{Topic: "foo", Partitions: []CommitPartition{
				{Partition: 0, Offset: -5, LeaderEpoch: -7}, {Partition: 1, Offset: -1, LeaderEpoch: -1, Metadata: "reset"}}}}},
			OffsetFetch{GroupID: "simple", MemberEpoch: -1},
			Reload{},
			OffsetFetch{GroupID: "simple", MemberEpoch: -1},
		}},
		{"leave-unknown-group", "A leave (-1, -2) of a group that does not exist names no group type;\na heartbeat at a positive epoch does.", []Op{
			epoch(-1),
			ConsumerHeartbeat{ClientID: "c", GroupID: "g", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: -2, InstanceID: ptr("i"), RebalanceTimeoutMs: -1},
			ShareHeartbeat{ClientID: "c", GroupID: "s", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: -1},
			epoch(3),
		}},
		{"invalid-member-epoch-message", "An invalid member epoch is refused with GroupCoordinatorService's words.", []Op{
			epoch(-3),
			ShareHeartbeat{ClientID: "c", GroupID: "s", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: -2},
		}},
		{"parked-join-request-numbers", "Three parked JoinGroups in two groups; g2's initial delay ends first, so\nthe middle request (2) is answered alone, then 1 and 3 together.", threeParkedJoins()},
		{"uniform-java-orders", "The uniform assignor as Kafka deals: two members of one group join t1 with\nuniform, and the first in the HashMap of member ids takes t1-0 (not the\nfirst by id); in g2 a member owning t0, t1 and t2 meets one that also names\na missing topic (heterogeneous), and the tie between t1 and t2 goes by\nUuid.compareTo: t1 moves.", uniformJavaOrders()},
		{"assignor-tie-as-kafka", "Two members naming uniform and range: the joining member's assignor wins\nthe tie (computePreferredServerAssignor's HashMap copy), in g with range\n(the static member takes t1-0 first) and in g2 with uniform; then a steady\nheartbeat of g's range member bumps the group (hasPreferredServerAssignorChanged\ncompares the TimelineHashMap's first maximum with the copy's).", assignorTieAsKafka()},
		{"regex-with-names-is-heterogeneous", "A member with a regex and names beside one with the same names: Kafka's\nsubscriptionType is heterogeneous (one regex, subscribed by one of two\nmembers), so the balance moves t1 whole.", regexWithNames()},
		{"share-heterogeneous-keeps-unvisited-topics", "The share simple assignor's heterogeneous builder (one member names a\nmissing topic) visits only subscribed topics: t0, which nobody subscribes\nto any more, stays in the member's target (no target record), and the\nmember is assigned only the topics it subscribes to\n(ShareGroupAssignmentBuilder.filterAssignedPartitions).", shareKeepsUnvisitedTopics()},
		{"txn-marker-completes-every-group", "A producer's transaction commits offsets to two groups and its marker\nnames one: Kafka's marker belongs to the __consumer_offsets partition and\ncompletes the producer's offsets of both (coordsim completed the named\ngroup's only); an abort marker likewise drops both.", txnMarkerEveryGroup()},
		{"txn-commit-order", "Two producers' pending offsets for one partition, committed in the\nopposite order to the one they were written in: the one written later\nstays (replayEndTransactionMarker compares record offsets; coordsim kept\nthe last to commit), before and after a reload.", txnCommitOrder()},
		{"streams-static-membership", "A static streams member leaves temporarily (-2) and comes back under a\nnew member id, which takes over its tasks; its old id is fenced\n(FENCED_INSTANCE_ID), a third join with the instance id is\nUNRELEASED_INSTANCE_ID, an unknown instance id UNKNOWN_MEMBER_ID; a\nclient id change of the static member writes its record without a\nbump, and a leave for good (-1) fences it.", streamsStaticMembership()},
		{"streams-task-offsets", "A streams member's task offsets and end offsets, kept per member and shown\nby StreamsGroupDescribe sorted by subtopology and partition: a list not\nsent keeps the one before, an empty list empties it, a task reported twice\nis INVALID_REQUEST, and the member's leave drops them; the heartbeat that\ncreated the group keeps none.", streamsTaskOffsets()},
		{"describe-image-topics", "ConsumerGroupDescribe describes partitions through the metadata image: a\ndeleted topic's are left out, and partitions pending revocation count as\nassigned.", describeImageTopics()},
		{"classic-reload-forgets-rebalance", "A load rebuilds a classic group from its last GroupMetadata record: a\nrebalance in progress is forgotten (B, who joined it, is gone, its parked\nJoinGroup answered NOT_COORDINATOR by the unload), and the loaded member\nsupports the group's protocol only, so its JoinGroup offering only another\nis INCONSISTENT_GROUP_PROTOCOL (coordsim kept the rebalance and every\nprotocol its member offered).", classicReloadForgetsRebalance()},
		{"group-config-intervals-and-timeouts", "A group's dynamic config as Kafka reads it: consumer.session.timeout.ms,\nconsumer.heartbeat.interval.ms and consumer.assignment.interval.ms change\nthe answers, the target's timing and the session's expiry, a reload keeps\nthem, removing them restores the broker's; a value out of range is\nINVALID_CONFIG with GroupConfig.validate's words; a streams group's\nstreams.task.offset.interval.ms is what its heartbeats answer.", groupConfigIntervals()},
	} {
		if only != "1" && only != r.name {
			continue
		}
		path, err := RecordRepro(o, filepath.Join("testdata", "repro"), r.name, r.about, r.ops)
		require.NoError(t, err)
		t.Log("wrote", path)
	}
}

func ptr(s string) *string { return &s }

func join(group, id string, topics ...string) ConsumerHeartbeat {
	return ConsumerHeartbeat{ClientID: "c", GroupID: group, MemberID: id, RebalanceTimeoutMs: 30000, Subscribed: topics, OwnedSet: true}
}

func uniformJavaOrders() []Op {
	a, b := join("g", "member-0-1-xxxxxxxxxxxxx", "t1"), join("g", "member-0-2-xxxxxxxxxxxxx", "t1")
	a.ServerAssignor, b.ServerAssignor = ptr("uniform"), ptr("uniform")
	return []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 2}, {Name: "t1", Partitions: 4}, {Name: "t2", Partitions: 4}}},
		a, b,
		join("g2", "member-0-1-xxxxxxxxxxxxx", "t0", "t1", "t2"),
		join("g2", "member-0-0-xxxxxxxxxxxxx", "t0", "t1", "t2", "t3"),
	}
}

func assignorTieAsKafka() []Op {
	u, r := join("g", "member-0-1-xxxxxxxxxxxxx", "t1"), join("g", "member-0-2-xxxxxxxxxxxxx", "t1")
	u.ServerAssignor, r.ServerAssignor, r.InstanceID = ptr("uniform"), ptr("range"), ptr("i0")
	r2, u2 := join("g2", "member-0-1-xxxxxxxxxxxxx", "t1"), join("g2", "member-0-2-xxxxxxxxxxxxx", "t1")
	r2.ServerAssignor, u2.ServerAssignor, u2.InstanceID = ptr("range"), ptr("uniform"), ptr("i0")
	steady := ConsumerHeartbeat{ClientID: "c", GroupID: "g", MemberID: "member-0-2-xxxxxxxxxxxxx", MemberEpoch: 3, InstanceID: ptr("i0"), RebalanceTimeoutMs: -1}
	return []Op{SetTopics{Topics: []Topic{{Name: "t1", Partitions: 2}}}, u, r, r2, u2, steady}
}

func regexWithNames() []Op {
	withRegex := join("g", "member-1-2-xxxxxxxxxxxxx", "t1", "t2")
	withRegex.Regex = ptr("x.*")
	return []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 3}, {Name: "t1", Partitions: 4}, {Name: "t2", Partitions: 4}}},
		withRegex,
		join("g", "member-1-0-xxxxxxxxxxxxx", "t1", "t2"),
	}
}

func shareKeepsUnvisitedTopics() []Op {
	share := func(id string, topics ...string) ShareHeartbeat {
		return ShareHeartbeat{ClientID: "c", GroupID: "sg", MemberID: id, Subscribed: topics}
	}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 3}, {Name: "t1", Partitions: 3}}},
		share("share-member-1-xxxxxxxxxxxx", "t0", "t1"),
		Advance{Ms: 500}, // the share state initialises
		share("share-member-0-xxxxxxxxxxxx", "t3"),
		share("share-member-1-xxxxxxxxxxxx", "t1"),
	}
}

func describeImageTopics() []Op {
	owned := ConsumerHeartbeat{ClientID: "c", GroupID: "g", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: 2, RebalanceTimeoutMs: -1,
		Owned: []TopicPartitions{{Topic: "t0", Partitions: []int32{0, 1, 2}}}, OwnedSet: true}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 3}, {Name: "t1", Partitions: 2}}},
		join("g", "member-a-xxxxxxxxxxxxxxx", "t0"),
		join("g", "member-b-xxxxxxxxxxxxxxx", "t0"),
		owned,
		DescribeGroups{Groups: []string{"g"}},
		join("g2", "member-c-xxxxxxxxxxxxxxx", "t1"),
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 3}}},
		DescribeGroups{Groups: []string{"g2"}},
	}
}

// txnCommit is a TxnOffsetCommit of one offset of foo by a producer
// outside any group's membership.
func txnCommit(group string, producer int64, partition int32, offset int64) TxnOffsetCommit {
	return TxnOffsetCommit{GroupID: group, ProducerID: producer, MemberEpoch: -1,
		Topics: []CommitTopic{{Topic: "foo", Partitions: []CommitPartition{{Partition: partition, Offset: offset, LeaderEpoch: -1}}}}}
}

func txnMarkerEveryGroup() []Op {
	fetch := func(g string) Op { return OffsetFetch{GroupID: g, MemberEpoch: -1} }
	return []Op{
		SetTopics{Topics: []Topic{{Name: "foo", Partitions: 2}}},
		txnCommit("simple", 7, 0, 10),
		txnCommit("other", 7, 1, 11),
		EndTxn{GroupID: "simple", ProducerID: 7, Commit: true},
		fetch("simple"), fetch("other"),
		txnCommit("simple", 8, 0, 20),
		txnCommit("other", 8, 1, 21),
		EndTxn{GroupID: "other", ProducerID: 8, Commit: false},
		fetch("simple"), fetch("other"),
		Reload{},
		fetch("simple"), fetch("other"),
	}
}

func txnCommitOrder() []Op {
	fetch := OffsetFetch{GroupID: "simple", MemberEpoch: -1}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "foo", Partitions: 2}}},
		txnCommit("simple", 1, 0, 10),
		txnCommit("simple", 2, 0, 20),
		EndTxn{GroupID: "simple", ProducerID: 2, Commit: true},
		EndTxn{GroupID: "simple", ProducerID: 1, Commit: true},
		fetch,
		// Written after producer 2's value was committed: newer, so it wins.
		txnCommit("simple", 1, 1, 30),
		txnCommit("simple", 2, 1, 40),
		EndTxn{GroupID: "simple", ProducerID: 2, Commit: true},
		txnCommit("simple", 1, 1, 50),
		EndTxn{GroupID: "simple", ProducerID: 1, Commit: true},
		fetch,
		Reload{},
		fetch,
	}
}

func streamsStaticMembership() []Op {
	topo := &StreamsTopology{Epoch: 0, Subtopologies: []StreamsSubtopology{{ID: "0", SourceTopics: []string{"t0"}}}}
	inst := ptr("instance-a")
	join := func(member, process string, instance *string) StreamsHeartbeat {
		return StreamsHeartbeat{ClientID: "client-" + process, GroupID: "st", MemberID: member, MemberEpoch: 0, InstanceID: instance,
			RebalanceTimeoutMs: 30_000, Topology: topo, TasksSet: true, ProcessID: ptr(process)}
	}
	beat := func(member, process string, instance *string, epoch int32, active ...int32) StreamsHeartbeat {
		h := StreamsHeartbeat{ClientID: "client-" + process, GroupID: "st", MemberID: member, MemberEpoch: epoch, InstanceID: instance,
			RebalanceTimeoutMs: -1, TasksSet: true}
		if len(active) > 0 {
			h.ActiveTasks = []Tasks{{Subtopology: "0", Partitions: active}}
		}
		return h
	}
	describe := StreamsDescribe{Groups: []string{"st"}}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 2}}},
		join("streams-member-a-xxxxxxxxxx", "process-a", inst),
		Advance{Ms: 5_000},
		beat("streams-member-a-xxxxxxxxxx", "process-a", inst, 1),
		join("streams-member-b-xxxxxxxxxx", "process-b", nil),
		beat("streams-member-a-xxxxxxxxxx", "process-a", inst, 2, 0, 1),
		beat("streams-member-a-xxxxxxxxxx", "process-a", inst, 2, 0),
		beat("streams-member-b-xxxxxxxxxx", "process-b", nil, 3),
		beat("streams-member-a-xxxxxxxxxx", "process-a", inst, -2),
		describe,
		join("streams-member-c-xxxxxxxxxx", "process-a", inst),
		describe,
		beat("streams-member-a-xxxxxxxxxx", "process-a", inst, 3, 0),
		join("streams-member-d-xxxxxxxxxx", "process-d", inst),
		beat("streams-member-d-xxxxxxxxxx", "process-d", ptr("instance-z"), 4),
		join("streams-member-c-xxxxxxxxxx", "process-a", inst),
		beat("streams-member-c-xxxxxxxxxx", "other", inst, 3, 0),
		beat("streams-member-c-xxxxxxxxxx", "process-a", inst, -2),
		Advance{Ms: 50_000},
		describe,
		join("streams-member-e-xxxxxxxxxx", "process-e", ptr("instance-e")),
		beat("streams-member-e-xxxxxxxxxx", "process-e", ptr("instance-e"), -1),
		describe,
	}
}

func streamsTaskOffsets() []Op {
	topo := &StreamsTopology{Epoch: 0, Subtopologies: []StreamsSubtopology{{ID: "0", SourceTopics: []string{"t0"}}, {ID: "1", SourceTopics: []string{"t1"}}}}
	offsets := func(os ...TaskOffset) []TaskOffset { return append([]TaskOffset{}, os...) }
	beat := func(member string, epoch int32, off, end []TaskOffset) StreamsHeartbeat {
		h := StreamsHeartbeat{ClientID: "client", GroupID: "st", MemberID: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1,
			TaskOffsets: off, TaskEndOffsets: end}
		if epoch == 0 {
			h.RebalanceTimeoutMs, h.Topology, h.TasksSet, h.ProcessID = 30_000, topo, true, ptr("process-"+member[15:16])
		}
		return h
	}
	a, b := "streams-member-a-xxxxxxxxxx", "streams-member-b-xxxxxxxxxx"
	describe := StreamsDescribe{Groups: []string{"st"}}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 2}, {Name: "t1", Partitions: 2}}},
		beat(a, 0, offsets(TaskOffset{"0", 1, 5}), nil),
		describe,
		beat(b, 0, offsets(TaskOffset{"1", 1, 7}, TaskOffset{"0", 1, 3}, TaskOffset{"0", 0, 9}), offsets(TaskOffset{"0", 0, 20})),
		describe,
		beat(b, 1, nil, offsets(TaskOffset{"1", 0, 30})),
		beat(a, 1, offsets(), offsets(TaskOffset{"0", 1, 8})),
		describe,
		beat(a, 1, offsets(TaskOffset{"0", 1, 9}, TaskOffset{"0", 1, 10}), nil),
		beat(b, 1, nil, offsets(TaskOffset{"1", 0, 30}, TaskOffset{"1", 0, 31})),
		describe,
		beat(b, -1, offsets(TaskOffset{"0", 0, 1}), nil),
		describe,
	}
}

func groupConfigIntervals() []Op {
	beat := func(member string, epoch int32, topics ...string) ConsumerHeartbeat {
		h := ConsumerHeartbeat{ClientID: "c", GroupID: "cg", MemberID: member, MemberEpoch: epoch, RebalanceTimeoutMs: -1}
		if epoch == 0 {
			h.RebalanceTimeoutMs, h.Subscribed, h.OwnedSet = 30_000, topics, true
		}
		return h
	}
	a, b := "member-a-xxxxxxxxxxxxxxx", "member-b-xxxxxxxxxxxxxxx"
	cfg := func(props map[string]string) SetGroupConfig { return SetGroupConfig{GroupID: "cg", Props: props} }
	return []Op{
		SetTopics{Topics: []Topic{{Name: "foo", Partitions: 2}, {Name: "t0", Partitions: 2}}},
		cfg(map[string]string{"consumer.session.timeout.ms": "50000", "consumer.heartbeat.interval.ms": "8000", "consumer.assignment.interval.ms": "3000"}),
		cfg(map[string]string{"consumer.assignment.interval.ms": "15001"}),
		Advance{Ms: 1_000}, // a target computed at 0 carries timestamp 0: "none"
		beat(a, 0, "foo"),
		beat(b, 0, "foo"),
		Advance{Ms: 2_000},
		beat(b, 2),
		Advance{Ms: 1_000},
		beat(b, 2),
		Reload{},
		Advance{Ms: 45_000},
		beat(b, 3),
		Advance{Ms: 6_000},
		cfg(nil),
		beat(b, 3),
		SetGroupConfig{GroupID: "st", Props: map[string]string{"streams.task.offset.interval.ms": "20000"}},
		StreamsHeartbeat{ClientID: "c", GroupID: "st", MemberID: "streams-member-a-xxxxxxxxxx", MemberEpoch: 0, RebalanceTimeoutMs: 30_000,
			Topology: &StreamsTopology{Subtopologies: []StreamsSubtopology{{ID: "0", SourceTopics: []string{"t0"}}}}, TasksSet: true, ProcessID: ptr("process-a")},
	}
}

// classicReloadForgetsRebalance: A syncs a generation offering two
// protocols, B's join starts a rebalance, and the partition reloads.
func classicReloadForgetsRebalance() []Op {
	sub := []byte{0, 3, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	join := func(req int, instance, memberID string, protocols ...string) ClassicJoin {
		j := ClassicJoin{Req: req, ClientID: "c-" + instance, GroupID: "g", MemberID: memberID, InstanceID: ptr(instance),
			SessionTimeoutMs: 10000, RebalanceTimeoutMs: 30000, ProtocolType: "consumer"}
		for _, p := range protocols {
			j.Protocols = append(j.Protocols, ClassicProtocol{Name: p, Metadata: sub})
		}
		return j
	}
	assignment := []byte{0, 3, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0, 0, 0, 1, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "foo", Partitions: 1}}},
		join(1, "i1", "", "range", "roundrobin"),
		Advance{Ms: 3500},
		ClassicSync{Req: 2, ClientID: "c-i1", GroupID: "g", Generation: 1, MemberID: "i1-@m0", InstanceID: ptr("i1"),
			ProtocolType: "consumer", ProtocolName: "range", Assignments: []ClassicAssignment{{MemberID: "i1-@m0", Assignment: assignment}}},
		join(3, "i2", "", "range", "roundrobin"),
		ClassicDescribe{Groups: []string{"g"}},
		Reload{},
		ClassicDescribe{Groups: []string{"g"}},
		join(4, "i1", "i1-@m0", "roundrobin"),
		join(5, "i1", "i1-@m0", "range"),
		ClassicDescribe{Groups: []string{"g"}},
	}
}
