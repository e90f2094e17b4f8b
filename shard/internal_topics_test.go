package shard

import (
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
