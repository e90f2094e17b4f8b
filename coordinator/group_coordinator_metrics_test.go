package coordinator_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/shard"
)

// metricKeys lists the snapshot's metrics of the coordinator's group as
// "name{k=v,...}", sorted.
func metricKeys(h *coordtest.Harness) []string {
	var keys []string
	for _, s := range h.Coordinator.MetricsSnapshot() {
		if s.Name.Group != coordinator.MetricsGroup {
			continue
		}
		var tags []string
		for _, t := range s.Name.Tags {
			tags = append(tags, t.Key+"="+t.Value)
		}
		keys = append(keys, s.Name.Name+"{"+strings.Join(tags, ",")+"}")
	}
	slices.Sort(keys)
	return keys
}

// TestMetricNames is GroupCoordinatorMetricsTest.testMetricNames: the
// coordinator registers exactly Kafka's group-coordinator-metrics (names,
// group and tags, state tags in the state enums' toString form), plus the
// documented coordsim-only ones.
func TestMetricNames(t *testing.T) {
	h, err := coordtest.New()
	require.NoError(t, err)
	kafka := []string{
		"offset-commit-rate{}", "offset-commit-count{}",
		"offset-expiration-rate{}", "offset-expiration-count{}",
		"offset-deletion-rate{}", "offset-deletion-count{}",
		"group-completed-rebalance-rate{}", "group-completed-rebalance-count{}",
		"consumer-group-rebalance-rate{}", "consumer-group-rebalance-count{}",
		"share-group-rebalance-rate{}", "share-group-rebalance-count{}",
		"streams-group-rebalance-rate{}", "streams-group-rebalance-count{}",
		"group-count{protocol=classic}", "group-count{protocol=consumer}",
		"group-count{protocol=share}", "group-count{protocol=streams}",
		"consumer-group-count{state=Empty}", "consumer-group-count{state=Assigning}",
		"consumer-group-count{state=Reconciling}", "consumer-group-count{state=Stable}",
		"consumer-group-count{state=Dead}",
		"share-group-count{state=Empty}", "share-group-count{state=Stable}", "share-group-count{state=Dead}",
		"streams-group-count{state=Empty}", "streams-group-count{state=Assigning}",
		"streams-group-count{state=Reconciling}", "streams-group-count{state=Stable}",
		"streams-group-count{state=Dead}", "streams-group-count{state=NotReady}",
		"offset-count{}",
		"classic-group-count{state=PreparingRebalance}", "classic-group-count{state=CompletingRebalance}",
		"classic-group-count{state=Stable}", "classic-group-count{state=Dead}", "classic-group-count{state=Empty}",
	}
	// KIP-1331's meters (docs/kip1331.md), registered with the topology
	// manager; cleanup-cycle-skipped is coordsim's own.
	const p = "streams-group-topology-description-"
	for _, base := range []string{"cleanup-cycle", "cleanup-eligible", "cleanup-cycle-skipped",
		"delete-success", "delete-error", "set-success", "set-error", "get-success", "get-error"} {
		kafka = append(kafka, p+base+"-rate{}", p+base+"-count{}")
	}
	slices.Sort(kafka)
	require.Equal(t, kafka, metricKeys(h))
}

// TestMetricDescriptions checks Kafka's descriptions on the meters and the
// per-state gauges (the description is not part of a metric's identity, but
// the Prometheus exporter prints it as HELP).
func TestMetricDescriptions(t *testing.T) {
	h, err := coordtest.New()
	require.NoError(t, err)
	want := map[string]string{
		"offset-commit-rate":                                 "The rate of committed offsets",
		"offset-commit-count":                                "The total number of committed offsets",
		"offset-deletion-rate":                               "The rate of administrative deleted offsets",
		"group-completed-rebalance-count":                    "The total number of classic group completed rebalances",
		"streams-group-rebalance-count":                      "The total number of streams group rebalances",
		"offset-count":                                       "The number of offsets currently retained for Classic, Consumer, and Streams Groups.",
		"streams-group-count{state=NotReady}":                "The number of streams groups in not ready state.",
		"classic-group-count{state=PreparingRebalance}":      "The number of classic groups in preparing rebalance state.",
		"group-count{protocol=share}":                        "The total number of share groups.",
		"group-count{protocol=consumer}":                     "The total number of groups using the consumer rebalance protocol.",
		"streams-group-topology-description-set-error-count": "The total number of failed plugin.setTopology calls (any failure: permanent, transient, or otherwise)",
	}
	got := map[string]string{}
	for _, s := range h.Coordinator.MetricsSnapshot() {
		key := s.Name.Name
		for _, tg := range s.Name.Tags {
			key += "{" + tg.Key + "=" + tg.Value + "}"
		}
		got[key] = s.Name.Description
	}
	for k, d := range want {
		require.Equal(t, d, got[k], k)
	}
}

// TestConsumerGroupStateTransitionMetrics follows
// GroupCoordinatorMetricsShardTest.testConsumerGroupStateTransitionMetrics:
// the per-state gauges move with the group (tagged Kafka's way, "Stable",
// "Empty"), and group-count{protocol=consumer} counts the group once.
func TestConsumerGroupStateTransitionMetrics(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	gauge := func(name string, tags ...string) float64 {
		t.Helper()
		v, ok := h.Metric(name, tags...)
		require.True(t, ok, "metric %s%v missing", name, tags)
		return v
	}
	require.Zero(t, gauge("group-count", "protocol", "consumer"))
	_, err = h.JoinConsumer("g", "m1", "foo")
	require.NoError(t, err)
	require.Equal(t, 1.0, gauge("group-count", "protocol", "consumer"))
	states := func() (n float64) {
		for _, st := range []string{"Empty", "Assigning", "Reconciling", "Stable", "Dead"} {
			n += gauge("consumer-group-count", "state", st)
		}
		return n
	}
	require.Equal(t, 1.0, states())
	require.Equal(t, 1.0, gauge("consumer-group-count", "state", "Stable"))
	_, err = h.HeartbeatConsumer("g", "m1", -1) // leave
	require.NoError(t, err)
	require.Equal(t, 1.0, gauge("consumer-group-count", "state", "Empty"))
	require.Zero(t, gauge("consumer-group-count", "state", "Stable"))
	_, found := h.Metric("consumer-group-count", "state", "empty")
	require.False(t, found, "lowercase state tags are not Kafka's")
}

// TestClassicGroupCountMetrics: a simple classic group (an admin commit)
// counts in group-count{protocol=classic} and classic-group-count{state=Empty},
// the other classic states stay at zero, and group-completed-rebalance-count
// stays at zero (no JoinGroup/SyncGroup generation ever completes), as
// GroupCoordinatorMetricsTest.aggregateShards reads them.
func TestClassicGroupCountMetrics(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2}))
	require.NoError(t, err)
	require.NoError(t, h.Commit("simple", "", -1, "foo", 0, 5))
	require.NoError(t, h.Commit("simple", "", -1, "foo", 1, 7))
	for _, c := range []struct {
		name string
		tags []string
		want float64
	}{
		{"group-count", []string{"protocol", "classic"}, 1},
		{"classic-group-count", []string{"state", "Empty"}, 1},
		{"classic-group-count", []string{"state", "Stable"}, 0},
		{"classic-group-count", []string{"state", "PreparingRebalance"}, 0},
		{"classic-group-count", []string{"state", "CompletingRebalance"}, 0},
		{"classic-group-count", []string{"state", "Dead"}, 0},
		{"offset-count", nil, 2},
		{"offset-commit-count", nil, 2},
		{"group-completed-rebalance-count", nil, 0},
	} {
		v, ok := h.Metric(c.name, c.tags...)
		require.True(t, ok, "%s%v missing", c.name, c.tags)
		require.Equal(t, c.want, v, "%s%v", c.name, c.tags)
	}
}

// TestRebalanceSensorsRecordHeartbeatEpochBumps: Kafka records
// <type>-group-rebalance where a heartbeat bumps the group epoch
// (GroupMetadataManager.consumerGroupHeartbeat's bumpGroupEpoch branch), not
// when a leave bumps it (consumerGroupFenceMember records nothing) nor when
// the target is later recomputed; a streams group counts at the join, not
// when the initial rebalance delay's timer computes the target.
func TestRebalanceSensorsRecordHeartbeatEpochBumps(t *testing.T) {
	h, err := coordtest.New(coordtest.WithTopics(map[string]int32{"foo": 2, "bar": 1}))
	require.NoError(t, err)
	count := func(name string) float64 {
		t.Helper()
		v, ok := h.Metric(name)
		require.True(t, ok, name)
		return v
	}
	_, err = h.JoinConsumer("g", "m1", "foo")
	require.NoError(t, err)
	_, err = h.JoinConsumer("g", "m2", "foo")
	require.NoError(t, err)
	require.Equal(t, 2.0, count("consumer-group-rebalance-count"))

	// m2 leaves: the group epoch moves on, nothing is recorded; m1's next
	// heartbeat recomputes the target, still nothing.
	_, err = h.HeartbeatConsumer("g", "m2", -1)
	require.NoError(t, err)
	d, err := h.Group("g")
	require.NoError(t, err)
	require.Len(t, d.Members, 1)
	hb, err := h.HeartbeatConsumer("g", "m1", d.Members[0].MemberEpoch)
	require.NoError(t, err)
	require.Equal(t, d.Epoch, hb.MemberEpoch, "m1 reached the post-leave epoch")
	require.Equal(t, 2.0, count("consumer-group-rebalance-count"))

	// A streams join counts at once, before the delayed target exists.
	_, err = h.JoinStreams("app", "s1", shard.Topology{Epoch: 1, Subtopologies: []shard.Subtopology{{ID: "s0", SourceTopics: []string{"bar"}}}})
	require.NoError(t, err)
	require.Equal(t, 1.0, count("streams-group-rebalance-count"))
	h.Advance(3 * time.Second)
	require.Equal(t, 1.0, count("streams-group-rebalance-count"))
}
