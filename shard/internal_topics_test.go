package shard

import (
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Ports of Kafka's streams.topics tests (CopartitionedTopicsEnforcerTest,
// RepartitionTopicsTest, ChangelogTopicsTest, InternalTopicManagerTest)
// against configureTopics and its parts.

func image(m map[string]int32) func(string) int32 { return func(t string) int32 { return m[t] } }

func set(names ...string) map[string]bool {
	out := map[string]bool{}
	for _, n := range names {
		out[n] = true
	}
	return out
}

func TestCopartitionedTopicsEnforcer(t *testing.T) {
	count := image(map[string]int32{"source1": 2, "source2": 1, "source3": 2, "rep1": 10, "rep2": 5, "rep3": 2, "rep4": 15})
	t.Run("shouldThrowTopicConfigurationExceptionIfPartitionCountsForCoPartitionedTopicsDontMatch", func(t *testing.T) {
		_, e, err := enforceCopartitioning([]string{"source1", "source2"}, set(), set(), count)
		require.NoError(t, err)
		require.NotNil(t, e)
		assert.Equal(t, StatusIncorrectlyPartitionedTopics, e.status)
		assert.Equal(t, "Following topics do not have the same number of partitions: [{source1=2, source2=1}]", e.detail)
	})
	t.Run("shouldEnforceCopartitioningOnRepartitionTopics", func(t *testing.T) {
		got, e, err := enforceCopartitioning([]string{"source1", "source3", "rep1"}, set(), set("rep1"), count)
		require.NoError(t, err)
		require.Nil(t, e)
		assert.Equal(t, map[string]int32{"rep1": 2}, got)
	})
	t.Run("shouldSetNumPartitionsToMaximumPartitionsWhenAllTopicsAreRepartitionTopics", func(t *testing.T) {
		got, _, err := enforceCopartitioning([]string{"rep1", "rep4", "rep2"}, set(), set("rep1", "rep4", "rep2"), count)
		require.NoError(t, err)
		assert.Equal(t, map[string]int32{"rep1": 15, "rep4": 15, "rep2": 15}, got)
	})
	t.Run("shouldThrowAnExceptionIfTopicInfosWithEnforcedNumOfPartitionsHaveDifferentNumOfPartitions", func(t *testing.T) {
		_, e, err := enforceCopartitioning([]string{"rep1", "rep2"}, set("rep1", "rep2"), set(), count)
		require.NoError(t, err)
		require.NotNil(t, e)
		assert.Equal(t, "Following topics do not have the same number of partitions: [{rep1=10, rep2=5}]", e.detail)
	})
	t.Run("shouldThrowAnExceptionWhenNumberOfPartitionsOfNonRepartitionTopicAndRepartitionTopicWithEnforcedNumOfPartitionsDoNotMatch", func(t *testing.T) {
		_, e, err := enforceCopartitioning([]string{"rep1", "source1"}, set("rep1"), set(), count)
		require.NoError(t, err)
		require.NotNil(t, e)
		assert.Equal(t, "Number of partitions [10] of repartition topic [rep1] doesn't match number of partitions [2] of the source topic.", e.detail)
	})
	t.Run("shouldDeductNumberOfPartitionsFromRepartitionTopicWithEnforcedNumberOfPartitions", func(t *testing.T) {
		got, e, err := enforceCopartitioning([]string{"rep3", "rep2", "source1"}, set("rep3"), set("rep2"), image(map[string]int32{"rep3": 2, "rep2": 5, "source1": 2}))
		require.NoError(t, err)
		require.Nil(t, e)
		assert.Equal(t, map[string]int32{"rep3": 2, "rep2": 2}, got)
	})
	t.Run("undefined partition counts are an invalid topology", func(t *testing.T) {
		_, _, err := enforceCopartitioning([]string{"x", "y"}, set(), set("x", "y"), image(nil))
		assert.ErrorIs(t, err, kerr.StreamsInvalidTopology)
	})
}

func TestRepartitionTopics(t *testing.T) {
	t.Run("shouldSetRepartitionTopicPartitionCountFromUpstreamExternalSourceTopic", func(t *testing.T) {
		tp := &Topology{Subtopologies: []Subtopology{
			{ID: "0", SourceTopics: []string{"in"}, RepartitionSinkTopics: []string{"rp"}},
			{ID: "1", RepartitionSourceTopics: []TopicInfo{{Name: "rp"}}, RepartitionSinkTopics: []string{"rp2"}},
			{ID: "2", RepartitionSourceTopics: []TopicInfo{{Name: "rp2"}}},
		}}
		got, err := repartitionTopicsSetup(tp, image(map[string]int32{"in": 3}))
		require.NoError(t, err)
		assert.Equal(t, map[string]int32{"rp": 3, "rp2": 3}, got)
	})
	t.Run("shouldNotChangeNumberOfPartitionsOfRepartitionTopicsIfFixed", func(t *testing.T) {
		tp := &Topology{Subtopologies: []Subtopology{
			{ID: "0", SourceTopics: []string{"in"}, RepartitionSinkTopics: []string{"rp"}},
			{ID: "1", RepartitionSourceTopics: []TopicInfo{{Name: "rp", Partitions: 7}}},
		}}
		got, err := repartitionTopicsSetup(tp, image(map[string]int32{"in": 3}))
		require.NoError(t, err)
		assert.Equal(t, map[string]int32{"rp": 7}, got)
	})
	t.Run("shouldThrowStreamsInvalidTopologyExceptionIfRepartitionSourceTopicIsNeverUsedAsSink", func(t *testing.T) {
		tp := &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"in"}, RepartitionSourceTopics: []TopicInfo{{Name: "rp"}}}}}
		_, err := repartitionTopicsSetup(tp, image(map[string]int32{"in": 3}))
		assert.ErrorIs(t, err, kerr.StreamsInvalidTopology)
		assert.ErrorContains(t, err, "because a repartition source topic is never used as a sink topic.")
	})
	t.Run("shouldThrowStreamsInvalidTopologyExceptionOnLoop", func(t *testing.T) {
		tp := &Topology{Subtopologies: []Subtopology{
			{ID: "0", RepartitionSourceTopics: []TopicInfo{{Name: "a"}}, RepartitionSinkTopics: []string{"b"}},
			{ID: "1", RepartitionSourceTopics: []TopicInfo{{Name: "b"}}, RepartitionSinkTopics: []string{"a"}},
		}}
		_, err := repartitionTopicsSetup(tp, image(nil))
		assert.ErrorContains(t, err, "There may be loops in the topology that cannot be resolved.")
	})
}

func TestChangelogTopics(t *testing.T) {
	count := image(map[string]int32{"source": 3, "repartition": 3})
	t.Run("shouldNotContainChangelogsForStatelessTasks", func(t *testing.T) {
		got, err := changelogTopicsSetup(&Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"source"}}}}, count)
		require.NoError(t, err)
		assert.Empty(t, got)
	})
	t.Run("shouldContainNonSourceBasedChangelogs", func(t *testing.T) {
		got, err := changelogTopicsSetup(&Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"source"},
			StateChangelogTopics: []TopicInfo{{Name: "changelog1"}}}}}, count)
		require.NoError(t, err)
		assert.Equal(t, map[string]int32{"changelog1": 3}, got)
	})
	t.Run("shouldContainSourceBasedChangelogs", func(t *testing.T) {
		got, err := changelogTopicsSetup(&Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"source"},
			StateChangelogTopics: []TopicInfo{{Name: "source"}}}}}, count)
		require.NoError(t, err)
		assert.Equal(t, map[string]int32{"source": 3}, got)
	})
	t.Run("shouldNotFailIfOnlySourceTopicsEmpty", func(t *testing.T) {
		_, err := changelogTopicsSetup(&Topology{Subtopologies: []Subtopology{{ID: "0", RepartitionSourceTopics: []TopicInfo{{Name: "repartition"}}}}}, count)
		assert.NoError(t, err)
	})
	t.Run("shouldFailIfNoSourceTopicsAndNoRepartitionSourceTopics", func(t *testing.T) {
		_, err := changelogTopicsSetup(&Topology{Subtopologies: []Subtopology{{ID: "0"}}}, count)
		assert.ErrorContains(t, err, "No source topics found for subtopology 0")
	})
}

// makeTestTopology is InternalTopicManagerTest's: subtopology1 reads
// source_topic1 and writes repartition_topic, with a changelog; subtopology2
// reads source_topic2 and repartition_topic, copartitioned, with another.
func makeTestTopology() *Topology {
	return &Topology{Epoch: 3, Subtopologies: []Subtopology{
		{ID: "subtopology1", SourceTopics: []string{"source_topic1"}, RepartitionSinkTopics: []string{"repartition_topic"},
			StateChangelogTopics: []TopicInfo{{Name: "state_changelog_topic1", Configs: []TopicConfig{{Key: "cleanup.policy", Value: "compact"}}}}},
		{ID: "subtopology2", SourceTopics: []string{"source_topic2"}, RepartitionSourceTopics: []TopicInfo{{Name: "repartition_topic", ReplicationFactor: 3}},
			StateChangelogTopics: []TopicInfo{{Name: "state_changelog_topic2"}},
			CopartitionGroups:    []CopartitionGroup{{SourceTopics: []int16{0}, RepartitionSourceTopics: []int16{0}}}},
	}}
}

func TestInternalTopicManager(t *testing.T) {
	t.Run("testConfigureTopicsSetsConfigurationExceptionWhenSourceTopicIsMissing", func(t *testing.T) {
		c, err := configureTopics(makeTestTopology(), image(map[string]int32{"source_topic1": 2}))
		require.NoError(t, err)
		assert.False(t, c.isReady())
		assert.Nil(t, c.subtopologies)
		assert.Equal(t, StatusMissingSourceTopics, c.status)
		assert.Equal(t, "Source topics source_topic2 are missing.", c.detail)
	})
	t.Run("testConfigureTopics", func(t *testing.T) {
		c, err := configureTopics(makeTestTopology(), image(map[string]int32{"source_topic1": 2, "source_topic2": 2, "state_changelog_topic2": 2}))
		require.NoError(t, err)
		assert.Equal(t, []CreatableTopic{
			{Name: "repartition_topic", NumPartitions: 2, ReplicationFactor: 3},
			{Name: "state_changelog_topic1", NumPartitions: 2, ReplicationFactor: -1, Configs: []TopicConfig{{Key: "cleanup.policy", Value: "compact"}}},
		}, c.internalTopicsToBeCreated)
		assert.Equal(t, StatusMissingInternalTopics, c.status)
		assert.Equal(t, "Internal topics are missing: repartition_topic, state_changelog_topic1", c.detail)
		assert.Equal(t, int32(2), c.numberOfTasks("subtopology1"))
		assert.Equal(t, int32(2), c.numberOfTasks("subtopology2"))
	})
	t.Run("ready once the internal topics exist", func(t *testing.T) {
		c, err := configureTopics(makeTestTopology(), image(map[string]int32{"source_topic1": 2, "source_topic2": 2,
			"state_changelog_topic1": 2, "state_changelog_topic2": 2, "repartition_topic": 2}))
		require.NoError(t, err)
		assert.True(t, c.isReady())
		assert.Empty(t, c.internalTopicsToBeCreated)
	})
	t.Run("an existing internal topic with another partition count", func(t *testing.T) {
		c, err := configureTopics(makeTestTopology(), image(map[string]int32{"source_topic1": 2, "source_topic2": 2, "state_changelog_topic2": 5}))
		require.NoError(t, err)
		assert.Equal(t, StatusIncorrectlyPartitionedTopics, c.status)
		assert.Equal(t, "Existing topic state_changelog_topic2 has different number of partitions: expected 2, found 5", c.detail)
		assert.Empty(t, c.internalTopicsToBeCreated)
	})
	t.Run("copartitioned source topics with different counts", func(t *testing.T) {
		tp := makeTestTopology()
		tp.Subtopologies[1].RepartitionSourceTopics[0].Partitions = 4
		c, err := configureTopics(tp, image(map[string]int32{"source_topic1": 2, "source_topic2": 2}))
		require.NoError(t, err)
		assert.Equal(t, StatusIncorrectlyPartitionedTopics, c.status)
		assert.Equal(t, "Number of partitions [4] of repartition topic [repartition_topic] doesn't match number of partitions [2] of the source topic.", c.detail)
	})
	t.Run("summarizeTopics", func(t *testing.T) {
		assert.Equal(t, "a, b, c and 2 additional topics", summarizeTopics([]string{"a", "b", "c", "d", "e"}))
		assert.Equal(t, "<none>", summarizeTopics(nil))
	})
}

// TestStreamsGroupHeartbeatMissingInternalTopics proves the heartbeat side
// of configureTopics (Kafka's streamsGroupHeartbeat with
// InternalTopicManager): a topology whose internal topics do not exist
// leaves the group NOT_READY with no tasks, answers MISSING_INTERNAL_TOPICS
// with Kafka's detail and the topics to create; once they exist (with the
// decided counts) the metadata hash changes, the group epoch is bumped and
// every subtopology gets its configured task count; a changelog topic
// created with another count is INCORRECTLY_PARTITIONED_TOPICS.
func TestStreamsGroupHeartbeatMissingInternalTopics(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"source_topic1": 2, "source_topic2": 2})
	r := h.streamsBeat("app", "m1", 0, makeTestTopology())
	assert.Equal(t, []StreamsStatus{StatusMissingInternalTopics}, r.Status)
	assert.Equal(t, []string{"Internal topics are missing: repartition_topic, state_changelog_topic1, state_changelog_topic2"}, r.StatusDetails)
	assert.Equal(t, []CreatableTopic{
		{Name: "repartition_topic", NumPartitions: 2, ReplicationFactor: 3},
		{Name: "state_changelog_topic1", NumPartitions: 2, ReplicationFactor: -1, Configs: []TopicConfig{{Key: "cleanup.policy", Value: "compact"}}},
		{Name: "state_changelog_topic2", NumPartitions: 2, ReplicationFactor: -1},
	}, r.InternalTopicsToCreate)
	assert.Empty(t, r.ActiveTasks)
	d, _ := h.s.DescribeGroup("app")
	assert.Equal(t, StateNotReady, d.State)
	assert.Equal(t, int32(-1), d.ValidatedTopologyEpoch, "Kafka validates a topology only once it is ready")

	// The caller creates them; the next heartbeat finds the group ready.
	h.setTopics(map[string]int32{"source_topic1": 2, "source_topic2": 2, "repartition_topic": 2, "state_changelog_topic1": 2, "state_changelog_topic2": 2})
	r = h.streamsBeat("app", "m1", r.MemberEpoch, nil)
	assert.Empty(t, r.Status)
	assert.Empty(t, r.InternalTopicsToCreate)
	assert.Equal(t, []TaskIDs{{SubtopologyID: "subtopology1", Partitions: []int32{0, 1}}, {SubtopologyID: "subtopology2", Partitions: []int32{0, 1}}}, r.ActiveTasks)
	d, _ = h.s.DescribeGroup("app")
	assert.Equal(t, StateStable, d.State)
	assert.Equal(t, int32(3), d.Epoch, "the new topics changed the metadata hash")
	assert.Equal(t, int32(3), d.ValidatedTopologyEpoch)

	h.setTopics(map[string]int32{"source_topic1": 2, "source_topic2": 2, "repartition_topic": 2, "state_changelog_topic1": 2, "state_changelog_topic2": 4})
	r = h.streamsBeat("app", "m1", r.MemberEpoch, nil)
	assert.Equal(t, []StreamsStatus{StatusIncorrectlyPartitionedTopics}, r.Status)
	assert.Equal(t, []string{"Existing topic state_changelog_topic2 has different number of partitions: expected 2, found 4"}, r.StatusDetails)
	d, _ = h.s.DescribeGroup("app")
	assert.Equal(t, StateNotReady, d.State)
	requireSnapshotEqual(t, h.s.Snapshot(), h.rebuild().Snapshot(), "rebuild")
}

// A topology the coordinator cannot configure (a repartition source topic
// no subtopology writes) is refused with STREAMS_INVALID_TOPOLOGY and
// Kafka's message, and writes nothing.
func TestStreamsGroupHeartbeatInvalidRepartitionTopology(t *testing.T) {
	h := newHarness(t, testConfig(), map[string]int32{"in": 2})
	tp := &Topology{Epoch: 0, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"in"}, RepartitionSourceTopics: []TopicInfo{{Name: "never-written"}}}}}
	res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{GroupID: "app", MemberID: "m1", RebalanceTimeoutMs: 1000, Topology: tp})
	assert.ErrorIs(t, err, kerr.StreamsInvalidTopology)
	assert.ErrorContains(t, err, "Failed to compute number of partitions for all repartition topics, because a repartition source topic is never used as a sink topic.")
	assert.Empty(t, res.Records)
	assert.Empty(t, res.Timers)
}

// FuzzConfigureTopics builds a topology of up to four subtopologies over
// six topic names from the fuzzer's bytes, and a metadata image over the
// same names. Whatever it gets, configureTopics never panics; it fails
// only with STREAMS_INVALID_TOPOLOGY; and a ready configuration names
// nothing to create, every internal topic exists, and each subtopology has
// as many tasks as the largest topic it reads.
func FuzzConfigureTopics(f *testing.F) {
	f.Add([]byte{2, 0, 1, 3, 1, 2, 4, 2, 0, 1, 5, 3, 3, 3})
	f.Add([]byte{1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Add([]byte{4, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	names := []string{"a", "b", "c", "d", "e", "f"}
	f.Fuzz(func(t *testing.T, data []byte) {
		next := func() int {
			if len(data) == 0 {
				return 0
			}
			b := int(data[0])
			data = data[1:]
			return b
		}
		tp := &Topology{}
		for i := range 1 + next()%4 {
			st := Subtopology{ID: string(rune('0' + i))}
			flags := next()
			st.SourceTopics = []string{names[next()%len(names)]}
			if flags&1 != 0 {
				st.RepartitionSinkTopics = []string{names[next()%len(names)]}
			}
			if flags&2 != 0 {
				st.RepartitionSourceTopics = []TopicInfo{{Name: names[next()%len(names)], Partitions: int32(next() % 3)}}
			}
			if flags&4 != 0 {
				st.StateChangelogTopics = []TopicInfo{{Name: names[next()%len(names)]}}
			}
			if flags&8 != 0 && len(st.RepartitionSourceTopics) > 0 {
				st.CopartitionGroups = []CopartitionGroup{{SourceTopics: []int16{0}, RepartitionSourceTopics: []int16{0}}}
			}
			tp.Subtopologies = append(tp.Subtopologies, st)
		}
		img := map[string]int32{}
		for _, n := range names {
			if c := next() % 4; c > 0 {
				img[n] = int32(c)
			}
		}
		if validateTopology(tp) != nil {
			return
		}
		requireReadsOnlyImageTopics(t, tp, img)
		c, err := configureTopics(tp, image(img))
		if err != nil {
			require.ErrorIs(t, err, kerr.StreamsInvalidTopology)
			return
		}
		if !c.isReady() {
			require.Contains(t, []StreamsStatus{StatusMissingSourceTopics, StatusIncorrectlyPartitionedTopics, StatusMissingInternalTopics}, c.status)
			require.NotEmpty(t, c.detail)
			return
		}
		require.Empty(t, c.internalTopicsToBeCreated)
		for i, st := range tp.Subtopologies {
			var n int32
			for _, topic := range append(slices.Clone(st.SourceTopics), st.RepartitionSourceTopicNames()...) {
				n = max(n, img[topic])
			}
			require.Equal(t, n, c.numberOfTasks(st.ID), "subtopology %d", i)
		}
		// Every internal topic exists. (Its count is the decided one, which
		// the exact tests check: a fuzzed name may play several roles, and
		// then, as in Kafka's map keyed by name, the last one decides.)
		for _, st := range c.subtopologies {
			for _, ct := range append(slices.Clone(st.repartitionSourceTopics), st.stateChangelogTopics...) {
				require.Positive(t, img[ct.Name], "internal topic %s", ct.Name)
			}
		}
	})
}
