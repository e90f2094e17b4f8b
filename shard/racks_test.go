package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Kafka's UtilsTest.testComputeTopicHash*: a topic's hash covers its name,
// partition count and every partition's racks, and does not depend on the
// order the racks come in.
func TestComputeTopicHash_DifferentRackOrder(t *testing.T) {
	hash := func(racks [][]string) uint64 {
		_, hashes, err := imageRacks(map[string]int32{"foo": 2}, map[string][][]string{"foo": racks})
		require.NoError(t, err)
		return hashes["foo"]
	}
	assert.Equal(t, hash([][]string{{"rack0", "rack1"}, {"rack1", "rack2"}}),
		hash([][]string{{"rack1", "rack0"}, {"rack2", "rack1"}}))
}

func TestComputeTopicHash_DifferentField(t *testing.T) {
	base := rackedTopicHash("foo", 2, [][]string{{"rack0", "rack1"}, {"rack1", "rack2"}})
	for name, other := range map[string]uint64{
		"topic name":      rackedTopicHash("bar", 2, [][]string{{"rack0", "rack1"}, {"rack1", "rack2"}}),
		"partitions":      rackedTopicHash("foo", 1, [][]string{{"rack0", "rack1"}}),
		"racks":           rackedTopicHash("foo", 2, [][]string{{"rack0", "rack1"}, {"rack1", "rack3"}}),
		"no racks":        topicHash("foo", 2),
		"partition order": rackedTopicHash("foo", 2, [][]string{{"rack1", "rack2"}, {"rack0", "rack1"}}),
		// Length prefixes: "ab" is not "a" then "b".
		"rack boundaries": rackedTopicHash("foo", 2, [][]string{{"rack0rack1"}, {"rack1", "rack2"}}),
	} {
		assert.NotEqual(t, base, other, name)
	}
}

// A shard whose image has no racks hashes exactly as before racks existed,
// so traces and stored metadata hashes do not move.
func TestTopicMetadataHashWithoutRacksIsUnchanged(t *testing.T) {
	s, err := New(0, testConfig())
	require.NoError(t, err)
	require.NoError(t, s.SetTopicImage(TopicImage{
		Partitions: map[string]int32{"foo": 2, "bar": 1},
		Racks:      map[string][][]string{"bar": {{}}}, // all empty: no racks
	}))
	assert.Equal(t, topicHash("foo", 2), s.topicMetadataHash("foo"))
	assert.Equal(t, topicHash("bar", 1), s.topicMetadataHash("bar"))
	assert.Nil(t, s.TopicImage().Racks)
}

// A bad image is refused with INVALID_REQUEST, and the image, its racks and
// every group stay as they were.
func TestSetTopicImageRejectsBadRacksAndChangesNothing(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	require.NoError(t, h.s.SetTopicImage(TopicImage{
		Partitions: map[string]int32{"foo": 2},
		Racks:      map[string][][]string{"foo": {{"b", "a"}, {"c"}}},
	}))
	h.consumerJoin("g", "m1", "foo")
	before := h.s.TopicImage()
	g, _ := h.s.DescribeGroup("g")
	long := string(make([]byte, RackIDMaxBytes+1))
	for name, racks := range map[string]map[string][][]string{
		"unknown topic": {"bar": {{"a"}}},
		"wrong length":  {"foo": {{"a"}}},
		"empty rack":    {"foo": {{"a"}, {""}}},
		"long rack":     {"foo": {{"a"}, {long}}},
		"invalid utf-8": {"foo": {{"a"}, {"\xff"}}},
	} {
		err := h.s.SetTopicImage(TopicImage{Partitions: map[string]int32{"foo": 2}, Racks: racks})
		require.ErrorContains(t, err, "INVALID_REQUEST", name)
		assert.Equal(t, before, h.s.TopicImage(), name)
		after, _ := h.s.DescribeGroup("g")
		assert.Equal(t, g.MetadataHash, after.MetadataHash, name)
	}
	assert.Equal(t, [][]string{{"a", "b"}, {"c"}}, before.Racks["foo"], "racks are kept sorted")
}

// The caller's rack slices are copied: writing them later changes nothing.
func TestSetTopicImageCopiesItsInput(t *testing.T) {
	s, err := New(0, testConfig())
	require.NoError(t, err)
	racks := map[string][][]string{"foo": {{"a"}}}
	require.NoError(t, s.SetTopicImage(TopicImage{Partitions: map[string]int32{"foo": 1}, Racks: racks}))
	racks["foo"][0][0] = "z"
	assert.Equal(t, [][]string{{"a"}}, s.TopicImage().Racks["foo"])
}

// Every group type records the rack its member sends (Kafka's
// maybeUpdateRackId on the consumer, share and streams heartbeats), a
// replay restores it, and an oversized rack is INVALID_REQUEST.
func TestHeartbeatRecordsTheMemberRack(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	cres, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "c", MemberID: "m1",
		RackID: "rack-a", RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"foo"}})
	mustApply(h, cres, err)
	sres, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m1",
		RackID: "rack-b", SubscribedTopicNames: []string{"foo"}})
	mustApply(h, sres, err)
	tres, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "t", MemberID: "m1",
		RackID: "rack-c", ProcessID: "p", RebalanceTimeoutMs: 1000, Version: 1,
		Topology: &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}}})
	mustApply(h, tres, err)
	for _, s := range []*Shard{h.s, h.rebuild()} {
		for group, rack := range map[string]string{"c": "rack-a", "s": "rack-b", "t": "rack-c"} {
			g, ok := s.DescribeGroup(group)
			require.True(t, ok)
			require.Len(t, g.Members, 1)
			assert.Equal(t, rack, g.Members[0].RackID, group)
		}
	}
	_, err = h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "c", MemberID: "m2",
		RackID: string(make([]byte, RackIDMaxBytes+1)), RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"foo"}})
	require.ErrorContains(t, err, "INVALID_REQUEST")
	g, _ := h.s.DescribeGroup("c")
	assert.Len(t, g.Members, 1)
}

// A rack change bumps a streams group's epoch (Kafka's
// hasStreamsMemberMetadataChanged counts every field of the member) and
// not a consumer or share group's (hasMemberSubscriptionChanged counts only
// the subscription).
func TestRackChangeBumpsOnlyTheStreamsGroupEpoch(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
	epoch := func(group string) int32 {
		g, ok := h.s.DescribeGroup(group)
		require.True(t, ok)
		return g.Epoch
	}
	cres, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "c", MemberID: "m1",
		RackID: "a", RebalanceTimeoutMs: 1000, SubscribedTopicNames: []string{"foo"}})
	c := mustApply(h, cres, err)
	sres, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m1",
		RackID: "a", SubscribedTopicNames: []string{"foo"}})
	sh := mustApply(h, sres, err)
	topo := &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"foo"}}}}
	tres, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "t", MemberID: "m1",
		RackID: "a", ProcessID: "p", RebalanceTimeoutMs: 1000, Version: 1, Topology: topo})
	st := mustApply(h, tres, err)
	before := map[string]int32{"c": epoch("c"), "s": epoch("s"), "t": epoch("t")}

	cres, err = h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "c", MemberID: "m1",
		MemberEpoch: c.MemberEpoch, RackID: "b"})
	mustApply(h, cres, err)
	sres, err = h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "s", MemberID: "m1",
		MemberEpoch: sh.MemberEpoch, RackID: "b"})
	mustApply(h, sres, err)
	active, standby, warmup := ownedTasksBy(h.s, "t", "m1")
	tres, err = h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: "t", MemberID: "m1",
		MemberEpoch: st.MemberEpoch, RackID: "b", Version: 1,
		ActiveTasks: active, StandbyTasks: standby, WarmupTasks: warmup})
	mustApply(h, tres, err)

	assert.Equal(t, before["c"], epoch("c"), "consumer: record only")
	assert.Equal(t, before["s"], epoch("s"), "share: record only")
	assert.Equal(t, before["t"]+1, epoch("t"), "streams: the epoch is bumped")
	for _, group := range []string{"c", "s", "t"} {
		g, _ := h.s.DescribeGroup(group)
		assert.Equal(t, "b", g.Members[0].RackID, group)
	}
}
