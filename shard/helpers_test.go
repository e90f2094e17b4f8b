package shard

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/offsets"
)

// Test helpers shared by the shard tests. They emulate the coordinator: an
// operation's Result is appended to a log and replayed at the next offsets,
// and its timer changes go to a tiny keyed timer model.

// testT is the "T" of Kafka's expiry tests: an arbitrary start instant.
const testT int64 = 1_000_000

// testConfig is Kafka's defaults with the one-minute retention of
// OffsetMetadataManagerTest and a one-second sweep interval.
func testConfig() Config {
	cfg := DefaultConfig()
	cfg.OffsetsRetentionMs = 60_000
	cfg.OffsetsRetentionCheckIntervalMs = 1_000
	// Kafka's GroupMetadataManagerTest runs streams groups without the
	// initial rebalance delay unless a test is about it.
	cfg.StreamsInitialRebalanceDelayMs = 0
	return cfg
}

// topologyUpdatesConfig is testConfig with Config.StreamsTopologyUpdates,
// the opt-in that lets a higher topology epoch replace the group's (Kafka
// refuses it), for the tests that upgrade topologies.
func topologyUpdatesConfig() Config {
	cfg := testConfig()
	cfg.StreamsTopologyUpdates = true
	return cfg
}

// harness is one shard driven the way the coordinator drives it.
type harness struct {
	t      testing.TB
	s      *Shard
	cfg    Config
	topics map[string]int32
	log    []Record
	timers *timerModel
	nowMs  int64
	// configured is the streams groups' configured topologies, the soft
	// state the coordinator keeps from heartbeat answers and hands the
	// initial rebalance delay's task when it fires.
	configured map[string]*ConfiguredTopology
}

func newHarness(t testing.TB, cfg Config, topics map[string]int32) *harness {
	t.Helper()
	s, err := New(7, cfg)
	require.NoError(t, err)
	require.NoError(t, s.SetTopics(topics))
	return &harness{t: t, s: s, cfg: cfg, topics: maps.Clone(topics), timers: newTimerModel(), nowMs: testT}
}

// setTopics installs a new metadata image on the live shard and remembers it
// for rebuilds.
func (h *harness) setTopics(topics map[string]int32) {
	h.t.Helper()
	require.NoError(h.t, h.s.SetTopics(topics))
	h.topics = maps.Clone(topics)
}

// replay appends records to the log and replays them at the next offsets.
func (h *harness) replay(records ...Record) {
	h.t.Helper()
	for _, r := range records {
		require.NoError(h.t, h.s.Replay(h.s.LastOffset()+1, r), "replaying %s", Format(r))
		h.log = append(h.log, r)
	}
}

// applyResult appends and replays a result's records, applies its timers and
// returns its response: what the coordinator does once the append succeeds.
func applyResult[T any](h *harness, res Result[T]) T {
	h.t.Helper()
	h.replay(res.Records...)
	h.timers.apply(res.Timers)
	return res.Response
}

// keepConfigured keeps a streams heartbeat's configured topology, as the
// coordinator does.
func (h *harness) keepConfigured(group string, r StreamsGroupHeartbeatResponse) StreamsGroupHeartbeatResponse {
	if h.configured == nil {
		h.configured = map[string]*ConfiguredTopology{}
	}
	h.configured[group] = r.ConfiguredTopology
	return r
}

// mustApply requires err to be nil, then applies res.
func mustApply[T any](h *harness, res Result[T], err error) T {
	h.t.Helper()
	require.NoError(h.t, err)
	return applyResult(h, res)
}

// rebuild replays the whole log into a fresh shard with the same config and
// topics: what a new owner does when it loads the partition.
func (h *harness) rebuild() *Shard {
	h.t.Helper()
	s := rebuildFrom(h.t, h.cfg, h.topics, h.log)
	// What the harness's shard forgot at its load (classic_load.go), the
	// replay forgets too: the one place the two may differ.
	s.ForgetAsLoaded(h.s.ForgottenAtLoad())
	return s
}

func rebuildFrom(t testing.TB, cfg Config, topics map[string]int32, log []Record) *Shard {
	t.Helper()
	s, err := New(7, cfg)
	require.NoError(t, err)
	require.NoError(t, s.SetTopics(topics))
	require.NoError(t, s.ReplayAll(0, log))
	return s
}

// advance moves virtual time to toMs, firing due timers in (deadline,
// sequence) order, each at its deadline, and applying what they produce.
func (h *harness) advance(toMs int64) {
	h.t.Helper()
	for {
		task, at, ok := h.timers.popDue(toMs)
		if !ok {
			break
		}
		h.nowMs = max(h.nowMs, at)
		if task.Kind == TaskStreamsInitialRebalance {
			task.StreamsConfigured = h.configured[task.GroupID]
		}
		applyResult(h, h.s.RunTimer(h.nowMs, task))
	}
	h.nowMs = max(h.nowMs, toMs)
}

// ownedBy is the TopicPartitions a caught-up KIP-848 client sends: the
// partitions its member currently holds, having revoked whatever it was
// asked to (never nil, so the coordinator reads it as sent).
func ownedBy(s *Shard, group, member string) []TopicPartitions {
	owned := []TopicPartitions{}
	if d, ok := s.DescribeGroup(group); ok {
		for _, m := range d.Members {
			if m.MemberID == member {
				owned = append(owned, m.Assignment...)
			}
		}
	}
	return owned
}

// ownedTasksBy is what a caught-up KIP-1071 client sends: the active,
// standby and warm-up tasks its member currently holds, having revoked
// whatever it was asked to (never nil, so the coordinator reads them as sent).
func ownedTasksBy(s *Shard, group, member string) (active, standby, warmup []TaskIDs) {
	active, standby, warmup = []TaskIDs{}, []TaskIDs{}, []TaskIDs{}
	if d, ok := s.DescribeGroup(group); ok {
		for _, m := range d.Members {
			if m.MemberID == member {
				active = append(active, m.ActiveTasks...)
				standby = append(standby, m.StandbyTasks...)
				warmup = append(warmup, m.WarmupTasks...)
			}
		}
	}
	return active, standby, warmup
}

// consumerJoin joins member to a consumer group at h.nowMs.
func (h *harness) consumerJoin(group, member string, topics ...string) ConsumerGroupHeartbeatResponse {
	h.t.Helper()
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{
		GroupID: group, MemberID: member, MemberEpoch: 0, ClientID: "client-" + member,
		RebalanceTimeoutMs: 300_000, SubscribedTopicNames: topics,
	})
	return mustApply(h, res, err)
}

// consumerHeartbeat sends a heartbeat with epoch (and, if topics is non-nil,
// a new subscription), from the client that joined: every request carries
// its client id.
func (h *harness) consumerHeartbeat(group, member string, epoch int32, topics []string) ConsumerGroupHeartbeatResponse {
	h.t.Helper()
	res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent,
		GroupID: group, MemberID: member, MemberEpoch: epoch, SubscribedTopicNames: topics, ClientID: "client-" + member,
		TopicPartitions: ownedBy(h.s, group, member),
	})
	return mustApply(h, res, err)
}

// shareJoin joins a share member; the group's share state is initialised
// for the topics first when it has none (initializedShareState).
func (h *harness) shareJoin(group, member string, topics ...string) ShareGroupHeartbeatResponse {
	h.t.Helper()
	h.initializedShareState(group, topics...)
	res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{
		GroupID: group, MemberID: member, MemberEpoch: 0, ClientID: "client-" + member, SubscribedTopicNames: topics,
	})
	return mustApply(h, res, err)
}

func (h *harness) shareHeartbeat(group, member string, epoch int32) ShareGroupHeartbeatResponse {
	h.t.Helper()
	res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: group, MemberID: member, MemberEpoch: epoch,
		ClientID: "client-" + member})
	return mustApply(h, res, err)
}

func (h *harness) streamsJoin(group, member string, topo *Topology) StreamsGroupHeartbeatResponse {
	h.t.Helper()
	res, err := h.s.StreamsGroupHeartbeat(h.nowMs, StreamsGroupHeartbeatRequest{
		GroupID: group, MemberID: member, MemberEpoch: 0, ProcessID: "process-" + member, ClientID: "client-" + member,
		RebalanceTimeoutMs: 300_000, Topology: topo, Version: 1,
	})
	return h.keepConfigured(group, mustApply(h, res, err))
}

func (h *harness) streamsHeartbeat(group, member string, epoch int32) StreamsGroupHeartbeatResponse {
	h.t.Helper()
	// The client id of the join: Kafka takes the request header's on every
	// heartbeat, and a change bumps the group epoch.
	req := StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: group, MemberID: member, MemberEpoch: epoch, ClientID: "client-" + member, Version: 1}
	if epoch > 0 {
		req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = ownedTasksBy(h.s, group, member)
	}
	res, err := h.s.StreamsGroupHeartbeat(h.nowMs, req)
	return h.keepConfigured(group, mustApply(h, res, err))
}

// commit commits offset 100+partition for each "topic-partition" spec at atMs.
func (h *harness) commit(group, member string, epoch int32, atMs int64, specs ...string) {
	h.t.Helper()
	res, err := h.s.CommitOffsets(atMs, OffsetCommitRequest{
		GroupID: group, MemberID: member, MemberEpoch: epoch, RetentionTimeMs: -1, Topics: commitTopics(h.t, specs...),
	})
	mustApply(h, res, err)
}

// setStoredEpoch replays a StreamsGroupMetadata record that keeps every field
// and sets the KIP-1331 stored description epoch, as the coordinator's
// setStoredDescriptionTopologyEpoch write does.
func (h *harness) setStoredEpoch(group string, stored int32) {
	h.t.Helper()
	d, ok := h.s.DescribeGroup(group)
	require.True(h.t, ok, "group %s", group)
	require.Equal(h.t, Streams, d.Type)
	h.replay(&StreamsGroupMetadata{
		Group: group, Epoch: d.Epoch, MetadataHash: d.MetadataHash, ValidatedTopologyEpoch: d.ValidatedTopologyEpoch,
		StoredDescriptionTopologyEpoch: stored, FailedDescriptionTopologyEpoch: d.FailedDescriptionTopologyEpoch,
	})
}

// commitTopics parses "topic-partition" specs (the partition after the last
// '-') into request topics, keeping first-seen topic order.
func commitTopics(t testing.TB, specs ...string) []OffsetCommitTopic {
	t.Helper()
	var out []OffsetCommitTopic
	for _, spec := range specs {
		i := strings.LastIndexByte(spec, '-')
		require.Positive(t, i, "spec %q", spec)
		var p int32
		_, err := fmt.Sscanf(spec[i+1:], "%d", &p)
		require.NoError(t, err, "spec %q", spec)
		topic := spec[:i]
		j := slices.IndexFunc(out, func(x OffsetCommitTopic) bool { return x.Topic == topic })
		if j < 0 {
			out = append(out, OffsetCommitTopic{Topic: topic})
			j = len(out) - 1
		}
		out[j].Partitions = append(out[j].Partitions, OffsetCommitPartition{
			Partition: p, Offset: 100 + int64(p), LeaderEpoch: offsets.NoLeaderEpoch,
		})
	}
	return out
}

// topo is a one-subtopology topology reading sources.
func topo(epoch int32, sources ...string) *Topology {
	return &Topology{Epoch: epoch, Subtopologies: []Subtopology{{ID: "0", SourceTopics: sources}}}
}

// formatRecords renders records one per line, for assertion messages.
func formatRecords(records []Record) string {
	var b strings.Builder
	for _, r := range records {
		b.WriteString(Format(r))
		b.WriteByte('\n')
	}
	return b.String()
}

// offsetTombstoneKeys returns "group/topic-partition" for every offset
// tombstone in records, in order.
func offsetTombstoneKeys(records []Record) []string {
	var out []string
	for _, r := range records {
		if oc, ok := r.(*OffsetCommit); ok && oc.Tombstone {
			out = append(out, fmt.Sprintf("%s/%s-%d", oc.Group, oc.Topic, oc.Partition))
		}
	}
	return out
}

// recordTypes lists the types of records, in order.
func recordTypes(records []Record) []RecordType {
	out := make([]RecordType, len(records))
	for i, r := range records {
		out[i] = r.Type()
	}
	return out
}

// requireSnapshotEqual compares two snapshots field by field, so a failure
// names the field (and the group) that differs, then as a whole so a field
// added to Snapshot later is still compared.
func requireSnapshotEqual(t testing.TB, want, got Snapshot, format string, args ...any) {
	t.Helper()
	ctx := fmt.Sprintf(format, args...)
	require.Equal(t, want.LastOffset, got.LastOffset, "%s: LastOffset", ctx)
	require.Equal(t, want.Counts, got.Counts, "%s: Counts", ctx)
	require.Equal(t, want.OffsetCount, got.OffsetCount, "%s: OffsetCount", ctx)
	require.Equal(t, want.PendingCount, got.PendingCount, "%s: PendingCount", ctx)
	require.Equal(t, want.Offsets, got.Offsets, "%s: Offsets", ctx)
	require.Equal(t, want.OpenTxnGroups, got.OpenTxnGroups, "%s: OpenTxnGroups", ctx)
	require.Equal(t, want.Deletable, got.Deletable, "%s: Deletable", ctx)
	require.Equal(t, want.Eligible, got.Eligible, "%s: Eligible", ctx)
	require.Equal(t, groupIDs(want.Groups), groupIDs(got.Groups), "%s: group ids", ctx)
	for i := range want.Groups {
		require.Equal(t, want.Groups[i], got.Groups[i], "%s: group %s", ctx, want.Groups[i].GroupID)
	}
	require.Equal(t, want, got, "%s: whole snapshot", ctx)
}

func groupIDs(gs []GroupDescription) []string {
	out := make([]string, len(gs))
	for i, g := range gs {
		out[i] = g.GroupID
	}
	return out
}

// requireIndexesConsistent recomputes every derived field and index of the
// shard from its groups and offsets and requires them to match: the state
// refresh keeps, the deletable and eligible indexes and the state counts.
func requireIndexesConsistent(t testing.TB, s *Shard, format string, args ...any) {
	t.Helper()
	ctx := fmt.Sprintf(format, args...)
	var counts [numGroupTypes][numGroupStates]int
	var deletable, eligible []string
	s.groups.Ascend(func(g *group) bool {
		state := g.deriveState(freshReadiness{s})
		require.Equal(t, state, g.state, "%s: state of %s", ctx, g.id)
		counts[g.typ][g.state]++
		noOffsets := s.offsets.GroupHasNoOffsets(g.id)
		if g.typ != Share && state == StateEmpty && noOffsets {
			deletable = append(deletable, g.id)
		}
		if g.typ == Streams && state == StateEmpty && g.storedEpoch != EpochNone && noOffsets {
			eligible = append(eligible, g.id)
		}
		return true
	})
	snap := s.Snapshot()
	require.Equal(t, counts, snap.Counts, "%s: counts", ctx)
	require.Equal(t, deletable, snap.Deletable, "%s: deletable index", ctx)
	require.Equal(t, eligible, snap.Eligible, "%s: eligible index", ctx)
	requireTopicIndexConsistent(t, s, ctx)
}

// timerModel is the coordinator's keyed timer in miniature: scheduling a key
// replaces its timer, and due timers fire in (deadline, sequence) order.
type timerModel struct {
	seq   int64
	byKey map[string]timerEntry
}

type timerEntry struct {
	deadlineMs int64
	seq        int64
	task       Task
}

func newTimerModel() *timerModel { return &timerModel{byKey: map[string]timerEntry{}} }

func (m *timerModel) apply(ops []TimerOp) {
	for _, op := range ops {
		if op.Cancel {
			delete(m.byKey, op.Key)
			continue
		}
		if _, ok := m.byKey[op.Key]; ok && op.IfAbsent {
			continue
		}
		m.seq++
		m.byKey[op.Key] = timerEntry{deadlineMs: op.DeadlineMs, seq: m.seq, task: op.Task}
	}
}

// popDue removes and returns the first timer due at nowMs. The minimum is
// unique (sequences are), so the map's iteration order cannot leak.
func (m *timerModel) popDue(nowMs int64) (Task, int64, bool) {
	bestKey := ""
	var best timerEntry
	found := false
	for k, e := range m.byKey {
		if e.deadlineMs > nowMs {
			continue
		}
		if !found || e.deadlineMs < best.deadlineMs || (e.deadlineMs == best.deadlineMs && e.seq < best.seq) {
			bestKey, best, found = k, e, true
		}
	}
	if !found {
		return Task{}, 0, false
	}
	delete(m.byKey, bestKey)
	return best.task, best.deadlineMs, true
}

// deadline returns the deadline of key, or false.
func (m *timerModel) deadline(key string) (int64, bool) {
	e, ok := m.byKey[key]
	return e.deadlineMs, ok
}

// initializedShareState replays a ShareGroupStatePartitionMetadata record
// with every partition of topics initialised, unless the group has share
// state already: the start of Kafka's share-group tests.
func (h *harness) initializedShareState(group string, topics ...string) {
	h.t.Helper()
	if d, ok := h.s.DescribeGroup(group); ok && (d.ShareInitialized != nil || d.ShareInitializing != nil) {
		return
	}
	var init []TopicPartitions
	for _, t := range slices.Sorted(slices.Values(topics)) {
		var ps []int32
		for p := range h.s.TopicPartitions(t) {
			ps = append(ps, p)
		}
		init = append(init, TopicPartitions{Topic: t, Partitions: ps})
	}
	h.replay(&ShareGroupStatePartitionMetadata{Group: group, Initialized: init, TimestampMs: h.nowMs})
}
