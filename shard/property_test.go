package shard

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/offsets"
)

// A random workload driven against a live shard, checked against the
// properties docs/design.md promises: operations never mutate (and return nothing
// when they fail), every record they return replays, a shard rebuilt from
// its log equals the live one (invariant 7), the indexed sweep equals
// Kafka's full scan, the sweep never expires an offset early or a subscribed
// one (invariant 5) nor tombstones a deferred streams group (invariant 1),
// and a Clone is isolated from its origin.

// chooser supplies a workload's choices: a seeded PRNG in property tests,
// the fuzzer's bytes in fuzz targets.
type chooser interface {
	// intn returns a value in [0, n).
	intn(n int) int
}

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.IntN(n) }

// byteChooser reads choices from data and answers 0 once it is exhausted.
type byteChooser struct {
	data []byte
	pos  int
}

func (c *byteChooser) intn(n int) int {
	if n <= 1 {
		return 0
	}
	v := 0
	for need := n - 1; need > 0; need >>= 8 {
		if c.pos >= len(c.data) {
			break
		}
		v = v<<8 | int(c.data[c.pos])
		c.pos++
	}
	return v % n
}

func (c *byteChooser) exhausted() bool { return c.pos >= len(c.data) }

// workload is one random run against a harness.
type workload struct {
	t      testing.TB
	h      *harness
	c      chooser
	name   string
	step   int
	trace  []string
	epochs map[string]int32 // group/member → last epoch the shard answered
	handle uint64           // the last classic request handle

	cloneAt   int
	clone     *Shard
	cloneSnap Snapshot
	cloneLog  int

	// image is the last image installed through PrepareTopicImageFrom.
	image *PreparedTopicImage
}

var (
	wlGroups  = []string{"g0", "g1", "g2", "g3", "g4"}
	wlMembers = []string{"m0", "m1", "m2", "m3"}
	wlTopics  = []string{"t0", "t1", "t2", "t3"}
	// wlTopologies holds valid topologies; the pairs at one epoch differ, so
	// joins can hit STREAMS_INVALID_TOPOLOGY_EPOCH.
	wlTopologies = []*Topology{
		topo(0, "t0"),
		topo(0, "t1"),
		topo(1, "t0", "t1"),
		{Epoch: 1, Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"t0"}, RepartitionSinkTopics: []string{"t3"}}, {ID: "1", SourceTopics: []string{"t2"}, RepartitionSourceTopics: []TopicInfo{{Name: "t3"}}}}},
		topo(2, "t2"),
		topo(3, "t3", "t0"),
		// A repartitioning, stateful, copartitioned topology (its internal
		// topics t2 and t3 are in the workload's metadata image).
		{Epoch: 2, Subtopologies: []Subtopology{
			{ID: "0", SourceTopics: []string{"t0"}, RepartitionSinkTopics: []string{"t2"}},
			{ID: "1", SourceTopics: []string{"t1"}, RepartitionSourceTopics: []TopicInfo{{Name: "t2"}},
				StateChangelogTopics: []TopicInfo{{Name: "t3", Configs: []TopicConfig{{Key: "cleanup.policy", Value: "compact"}}}},
				CopartitionGroups:    []CopartitionGroup{{SourceTopics: []int16{0}, RepartitionSourceTopics: []int16{0}}}},
		}},
	}
)

func workloadConfig(plugin bool) Config {
	cfg := testConfig()
	cfg.OffsetsRetentionMs = 20_000
	cfg.OffsetsRetentionCheckIntervalMs = 3_000
	cfg.ConsumerSessionTimeoutMs, cfg.StreamsSessionTimeoutMs, cfg.ShareSessionTimeoutMs = 6_000, 7_000, 5_000
	cfg.ConsumerMaxSize, cfg.StreamsMaxSize, cfg.ShareMaxSize = 3, 3, 2
	cfg.TopologyPluginConfigured = plugin
	// KIP-1331 workloads upgrade topologies, which needs the opt-in; the
	// others get Kafka's refusal of topology updates.
	cfg.StreamsTopologyUpdates = plugin
	return cfg
}

func newWorkload(t testing.TB, c chooser, name string, steps int) *workload {
	h := newHarness(t, workloadConfig(c.intn(2) == 1), map[string]int32{"t0": 2, "t1": 3})
	h.timers.apply(h.s.OnLoaded(h.nowMs))
	return &workload{t: t, h: h, c: c, name: name, epochs: map[string]int32{}, cloneAt: c.intn(max(steps, 1))}
}

// run performs steps operations (fewer if more returns false), with replay
// checks every 100 steps and at the end.
func (w *workload) run(steps int, more func() bool) {
	t := w.t
	t.Helper()
	defer func() {
		if t.Failed() {
			t.Logf("%s: failed at step %d; recent operations:\n%s", w.name, w.step, strings.Join(w.trace, "\n"))
		}
	}()
	for w.step = 0; w.step < steps && more(); w.step++ {
		if w.step == w.cloneAt {
			w.startClone()
		}
		w.do()
		if w.step%100 == 99 {
			w.checkReplay()
		}
	}
	w.checkReplay()
	w.finishClone()
}

func (w *workload) note(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("%5d t=%d ", w.step, w.h.nowMs)+fmt.Sprintf(format, args...))
	if len(w.trace) > 40 {
		w.trace = w.trace[1:]
	}
}

func (w *workload) ctx() string { return fmt.Sprintf("%s step %d", w.name, w.step) }

// checkReplay is docs/invariants.md invariant 7: the log rebuilds the live shard, and
// every derived index matches its definition.
func (w *workload) checkReplay() {
	w.t.Helper()
	rebuilt := w.h.rebuild()
	requireSnapshotEqual(w.t, w.h.s.Snapshot(), rebuilt.Snapshot(), "%s: replay equality", w.ctx())
	requireIndexesConsistent(w.t, w.h.s, "%s", w.ctx())
	// Snapshot counts pending transactional offsets but does not show them;
	// committing every transaction on clones of both makes them visible.
	requireSnapshotEqual(w.t, commitAllPending(w.t, w.h.s), commitAllPending(w.t, rebuilt), "%s: pending offsets", w.ctx())
}

// commitAllPending commits every workload producer's transaction on a clone
// of s and returns the clone's snapshot.
func commitAllPending(t testing.TB, s *Shard) Snapshot {
	t.Helper()
	c := s.Clone()
	for _, g := range wlGroups {
		for producer := range int64(3) {
			require.NoError(t, c.Replay(c.LastOffset()+1, &EndTransactionMarker{Group: g, ProducerID: producer, Commit: true}))
		}
	}
	require.Zero(t, c.Snapshot().PendingCount, "every pending offset belongs to a workload group and producer")
	return c.Snapshot()
}

// startClone takes a clone, then checks that writing to a second clone
// changes neither the origin nor the first clone.
func (w *workload) startClone() {
	t := w.t
	t.Helper()
	w.clone = w.h.s.Clone()
	w.cloneSnap = w.clone.Snapshot()
	w.cloneLog = len(w.h.log)
	origin := w.h.s.Snapshot()

	scratch := w.h.s.Clone()
	var ids []string
	for _, g := range origin.Groups {
		ids = append(ids, g.GroupID)
	}
	del, err := scratch.DeleteGroups(ids)
	require.NoError(t, err)
	require.NoError(t, scratch.ReplayAll(scratch.LastOffset()+1, del.Records), "%s: scratch delete", w.ctx())
	sweep := scratch.CleanupGroupMetadata(w.h.nowMs + 10*w.h.cfg.OffsetsRetentionMs)
	require.NoError(t, scratch.ReplayAll(scratch.LastOffset()+1, sweep.Records), "%s: scratch sweep", w.ctx())
	require.NoError(t, scratch.SetTopics(map[string]int32{"t3": 1}))
	requireSnapshotEqual(t, origin, w.h.s.Snapshot(), "%s: writing a clone changed its origin", w.ctx())
	requireSnapshotEqual(t, w.cloneSnap, w.clone.Snapshot(), "%s: writing a clone changed a sibling", w.ctx())
}

// finishClone checks the clone did not move while its origin was written,
// then catches it up from the log and requires it to equal the origin.
func (w *workload) finishClone() {
	t := w.t
	t.Helper()
	if w.clone == nil {
		return
	}
	requireSnapshotEqual(t, w.cloneSnap, w.clone.Snapshot(), "%s: writing the origin changed its clone", w.ctx())
	require.NoError(t, w.clone.SetTopics(w.h.topics))
	require.NoError(t, w.clone.ReplayAll(int64(w.cloneLog), w.h.log[w.cloneLog:]))
	requireSnapshotEqual(t, w.h.s.Snapshot(), w.clone.Snapshot(), "%s: a caught-up clone equals its origin", w.ctx())
}

func (w *workload) pick(xs []string) string { return xs[w.c.intn(len(xs))] }

// group picks a group id, now and then an invalid one.
func (w *workload) group() string {
	if w.c.intn(40) == 0 {
		return w.pick([]string{"", invalidUTF8, longGroupID})
	}
	return w.pick(wlGroups)
}

func (w *workload) member() string {
	if w.c.intn(50) == 0 {
		return w.pick([]string{"", invalidUTF8, longMemberID})
	}
	return w.pick(wlMembers)
}

func (w *workload) topics() []string {
	if w.c.intn(50) == 0 {
		return []string{"t0", ""}
	}
	var out []string
	for _, topic := range wlTopics {
		if w.c.intn(3) == 0 {
			out = append(out, topic)
		}
	}
	if len(out) == 0 && w.c.intn(8) != 0 {
		out = append(out, w.pick(wlTopics))
	}
	return out
}

// epoch picks a member epoch: mostly a join or the last one the shard
// answered, sometimes a leave or a wrong one.
func (w *workload) epoch(group, member string) int32 {
	known := w.epochs[group+"/"+member]
	switch r := w.c.intn(20); {
	case r < 5:
		return 0
	case r < 14:
		return known
	case r < 16:
		return -1
	case r < 18:
		return known + int32(w.c.intn(3)) - 1
	default:
		return int32(w.c.intn(9)) - 4
	}
}

func (w *workload) remember(group, member string, epoch int32) {
	if epoch < 0 {
		delete(w.epochs, group+"/"+member)
		return
	}
	w.epochs[group+"/"+member] = epoch
}

// pure runs op and requires it to leave the shard unchanged; on error it
// must return no records and no timers, but for a failed online upgrade's
// answers to the classic group's parked requests (answeredUpgrade).
func pure[T any](w *workload, what string, op func() (Result[T], error)) (Result[T], error) {
	w.t.Helper()
	before := w.h.s.Snapshot()
	res, err := op()
	requireSnapshotEqual(w.t, before, w.h.s.Snapshot(), "%s: %s mutated the shard", w.ctx(), what)
	if err != nil && !answeredUpgrade(res.Records, res.Completions) {
		require.Empty(w.t, res.Records, "%s: failed %s returned records (%v)", w.ctx(), what, err)
		require.Empty(w.t, res.Timers, "%s: failed %s returned timers", w.ctx(), what)
	}
	return res, err
}

// answeredUpgrade reports whether records and cs are what a failed online
// upgrade leaves: answers to parked requests and one classic group state
// with none parked.
func answeredUpgrade(records []Record, cs []Completion) bool {
	if len(records) != 1 || len(cs) == 0 {
		return false
	}
	st, ok := records[0].(*ClassicGroupState)
	if !ok {
		return false
	}
	for _, m := range st.Members {
		if m.JoinHandle != 0 || m.SyncHandle != 0 {
			return false
		}
	}
	return true
}

func countResults(topics []TopicResults) int {
	n := 0
	for _, t := range topics {
		n += len(t.Partitions)
	}
	return n
}

func (w *workload) commitTopics() []OffsetCommitTopic {
	var out []OffsetCommitTopic
	for _, topic := range w.topics() {
		ct := OffsetCommitTopic{Topic: topic}
		for p := range int32(3) {
			if w.c.intn(2) == 0 {
				continue
			}
			part := OffsetCommitPartition{Partition: p, Offset: int64(w.c.intn(1000)), LeaderEpoch: int32(w.c.intn(3)) - 1}
			switch w.c.intn(60) {
			case 0:
				part.Offset = -1
			case 1:
				part.Metadata = strings.Repeat("x", offsets.MetadataMaxBytes+1)
			case 2:
				part.Partition = -1
			case 3:
				part.Metadata = "meta"
			}
			ct.Partitions = append(ct.Partitions, part)
		}
		out = append(out, ct)
	}
	return out
}

func (w *workload) partitions() []TopicPartitions {
	var out []TopicPartitions
	for _, topic := range w.topics() {
		tp := TopicPartitions{Topic: topic}
		for p := range int32(3) {
			if w.c.intn(2) == 0 {
				tp.Partitions = append(tp.Partitions, p)
			}
		}
		out = append(out, tp)
	}
	return out
}

// do performs one random operation.
func (w *workload) do() {
	t := w.t
	t.Helper()
	h := w.h
	switch op := w.c.intn(19); op {
	case 0, 1:
		group, member := w.group(), w.member()
		req := ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: RebalanceTimeoutNotSent, GroupID: group, MemberID: member, MemberEpoch: w.epoch(group, member), ClientID: "c"}
		if req.MemberEpoch > 0 && w.c.intn(4) > 0 {
			req.TopicPartitions = ownedBy(h.s, group, member) // a caught-up client; else the field is not sent
		}
		if req.MemberEpoch == 0 || w.c.intn(5) == 0 {
			req.SubscribedTopicNames = w.topics()
			req.RebalanceTimeoutMs = int32(w.c.intn(30)) * 1000
		}
		if w.c.intn(4) == 0 {
			req.ServerAssignor = ptr([]string{"uniform", "range"}[w.c.intn(2)])
		}
		if w.c.intn(4) == 0 {
			req.SubscribedTopicRegex = ptr([]string{"", "t[0-2]", "t.*", "x["}[w.c.intn(4)])
		}
		w.note("consumer heartbeat %s/%s epoch=%d topics=%v", group, member, req.MemberEpoch, req.SubscribedTopicNames)
		res, err := pure(w, "ConsumerGroupHeartbeat", func() (Result[ConsumerGroupHeartbeatResponse], error) {
			return h.s.ConsumerGroupHeartbeat(h.nowMs, req)
		})
		if err == nil {
			w.remember(group, member, applyResult(h, res).MemberEpoch)
		} else {
			applyResult(h, res) // a failed upgrade's answers to parked requests
		}
	case 2, 3:
		group, member := w.group(), w.member()
		req := StreamsGroupHeartbeatRequest{GroupID: group, MemberID: member, MemberEpoch: w.epoch(group, member), ProcessID: "p", RebalanceTimeoutMs: 1000, Version: 1}
		if req.MemberEpoch == 0 || w.c.intn(30) == 0 {
			switch w.c.intn(30) {
			case 0:
				req.Topology = nil
			case 1:
				req.Topology = topo(1) // invalid: no sources
			default:
				req.Topology = wlTopologies[w.c.intn(len(wlTopologies))]
			}
		}
		w.note("streams heartbeat %s/%s epoch=%d topology=%s", group, member, req.MemberEpoch, FormatTopology(req.Topology))
		res, err := pure(w, "StreamsGroupHeartbeat", func() (Result[StreamsGroupHeartbeatResponse], error) {
			return h.s.StreamsGroupHeartbeat(h.nowMs, req)
		})
		if err == nil {
			w.remember(group, member, applyResult(h, res).MemberEpoch)
		}
	case 4:
		group, member := w.group(), w.member()
		req := ShareGroupHeartbeatRequest{GroupID: group, MemberID: member, MemberEpoch: w.epoch(group, member)}
		if req.MemberEpoch == 0 || w.c.intn(5) == 0 {
			req.SubscribedTopicNames = w.topics()
		}
		w.note("share heartbeat %s/%s epoch=%d topics=%v", group, member, req.MemberEpoch, req.SubscribedTopicNames)
		res, err := pure(w, "ShareGroupHeartbeat", func() (Result[ShareGroupHeartbeatResponse], error) {
			return h.s.ShareGroupHeartbeat(h.nowMs, req)
		})
		if err == nil {
			w.remember(group, member, applyResult(h, res).MemberEpoch)
		}
	case 5, 6:
		group := w.group()
		req := OffsetCommitRequest{GroupID: group, MemberEpoch: -1, RetentionTimeMs: -1, Topics: w.commitTopics()}
		if w.c.intn(2) == 0 {
			req.MemberID = w.member()
			req.MemberEpoch = w.epoch(group, req.MemberID)
		}
		if w.c.intn(6) == 0 {
			req.RetentionTimeMs = int64(w.c.intn(40_000)) - 1
		}
		w.note("commit %s member=%q epoch=%d retention=%d %d topics", group, req.MemberID, req.MemberEpoch, req.RetentionTimeMs, len(req.Topics))
		res, err := pure(w, "CommitOffsets", func() (Result[OffsetCommitResponse], error) { return h.s.CommitOffsets(h.nowMs, req) })
		if err == nil {
			require.Equal(t, len(res.Records), res.Response.Committed)
			require.Equal(t, countCommitPartitions(req.Topics), countResults(res.Response.Topics), "every partition is answered")
			applyResult(h, res)
		}
	case 7:
		group := w.group()
		req := TxnOffsetCommitRequest{GroupID: group, ProducerID: int64(w.c.intn(4)) - 1, MemberEpoch: -1, Topics: w.commitTopics()}
		if w.c.intn(3) == 0 {
			req.MemberID = w.member()
			req.MemberEpoch = w.epoch(group, req.MemberID)
		}
		w.note("txn commit %s producer=%d member=%q epoch=%d", group, req.ProducerID, req.MemberID, req.MemberEpoch)
		res, err := pure(w, "CommitTransactionalOffsets", func() (Result[OffsetCommitResponse], error) {
			return h.s.CommitTransactionalOffsets(h.nowMs, req)
		})
		if err == nil {
			applyResult(h, res)
		}
	case 8:
		group, producer, commit := w.group(), int64(w.c.intn(4))-1, w.c.intn(2) == 0
		w.note("end txn %s producer=%d commit=%v", group, producer, commit)
		res, err := pure(w, "EndTransaction", func() (Result[struct{}], error) { return h.s.EndTransaction(group, producer, commit) })
		if err == nil {
			applyResult(h, res)
		}
	case 9:
		group, parts := w.group(), w.partitions()
		w.note("delete offsets %s %v", group, parts)
		res, err := pure(w, "DeleteOffsets", func() (Result[OffsetDeleteResponse], error) { return h.s.DeleteOffsets(group, parts) })
		if err == nil {
			require.Equal(t, len(res.Records), res.Response.Deleted)
			require.Equal(t, countPartitions(parts), countResults(res.Response.Topics), "every partition is answered")
			applyResult(h, res)
		}
	case 10:
		ids := []string{w.group()}
		if w.c.intn(2) == 0 {
			ids = append(ids, w.group())
		}
		w.note("delete groups %q", ids)
		res, err := pure(w, "DeleteGroups", func() (Result[[]DeleteGroupResult], error) { return h.s.DeleteGroups(ids) })
		require.NoError(t, err)
		applyResult(h, res)
		for _, id := range ids {
			_, exists := h.s.GroupType(id)
			require.False(t, exists && slices.ContainsFunc(res.Response, func(r DeleteGroupResult) bool { return r.GroupID == id && r.Err == nil }),
				"%s: group %q answered deleted but still exists", w.ctx(), id)
		}
	case 11, 12:
		to := h.nowMs + int64(w.c.intn(4_000))
		w.note("advance to %d", to)
		h.advance(to)
	case 13:
		w.checkSweep()
	case 14:
		img := map[string]int32{}
		for _, topic := range wlTopics {
			if w.c.intn(3) != 0 {
				img[topic] = int32(w.c.intn(4)) + 1
			}
		}
		if w.c.intn(20) == 0 {
			img["t0"] = 0
			w.note("set topics (invalid) %v", img)
			before := h.s.Snapshot()
			require.Error(t, h.s.SetTopics(img))
			requireSnapshotEqual(t, before, h.s.Snapshot(), "%s: failed SetTopics", w.ctx())
			return
		}
		// Every other image goes in as a successor of the last prepared one
		// (re-deriving the groups on its changed topics), the others
		// through SetTopics (walking the topic index).
		w.note("set topics %v", img)
		if w.step%2 == 0 {
			w.setTopicsFrom(img)
		} else {
			h.setTopics(img)
		}
	case 15:
		group := w.pick(wlGroups)
		if typ, ok := h.s.GroupType(group); ok && typ == Streams {
			stored := int32(w.c.intn(6)) - 2
			w.note("set stored epoch %s %d", group, stored)
			h.setStoredEpoch(group, stored)
		}
	case 16:
		group, stable := w.group(), w.c.intn(2) == 0
		var parts []TopicPartitions
		if w.c.intn(2) == 0 {
			parts = w.partitions()
		}
		w.note("fetch offsets %s stable=%v", group, stable)
		_, _ = pure(w, "FetchOffsets", func() (Result[struct{}], error) {
			_, err := h.s.FetchOffsets(group, parts, stable)
			return Result[struct{}]{}, err
		})
	case 17, 18:
		w.doClassic()
	}
}

// checkSweep compares the indexed sweep with Kafka's full scan at a point in
// time, checks what it expires against invariants 1 and 5, and sometimes
// applies it.
func (w *workload) checkSweep() {
	t := w.t
	t.Helper()
	h := w.h
	retention := h.cfg.OffsetsRetentionMs
	at := h.nowMs + []int64{0, 0, retention / 2, retention, 3 * retention}[w.c.intn(5)]
	w.note("sweep at %d", at)
	sweep, _ := pure(w, "CleanupGroupMetadata", func() (Result[SweepResponse], error) { return h.s.CleanupGroupMetadata(at), nil })
	full := h.s.cleanupGroupMetadataFullScan(at)
	require.Equal(t, full.Records, sweep.Records, "%s: sweep records differ from the full scan\nindexed:\n%s\nfull:\n%s",
		w.ctx(), formatRecords(sweep.Records), formatRecords(full.Records))
	require.LessOrEqual(t, sweep.Response.GroupsVisited, full.Response.GroupsVisited)
	full.Response.GroupsVisited = sweep.Response.GroupsVisited
	require.Equal(t, full.Response, sweep.Response, "%s: sweep response", w.ctx())

	for _, r := range sweep.Records {
		g := h.s.lookup(r.GroupID())
		require.NotNil(t, g, "%s: sweep record for a missing group: %s", w.ctx(), Format(r))
		switch r := r.(type) {
		case *OffsetCommit:
			v, ok := h.s.Offset(r.Group, r.Topic, r.Partition)
			require.True(t, ok, "%s: tombstone of a missing offset %s", w.ctx(), Format(r))
			// Kafka's ClassicGroup.offsetExpirationCondition: an Empty
			// classic group with a protocol type counts from its state
			// timestamp, every other group from the commit time.
			base := v.CommitTimestampMs
			if g.typ == Classic && g.state == StateEmpty && g.protocolType != "" && g.currentStateTimestampMs >= 0 {
				base = g.currentStateTimestampMs
			}
			require.True(t, offsets.IsOffsetExpiredFrom(v, base, at, retention), "%s: offset expired early: %s %+v", w.ctx(), Format(r), v)
			require.False(t, g.isSubscribedToTopic(r.Topic), "%s: subscribed offset expired: %s", w.ctx(), Format(r))
		case *StreamsGroupMetadata:
			require.True(t, r.Tombstone)
			require.False(t, h.cfg.TopologyPluginConfigured && g.storedEpoch != EpochNone,
				"%s: streams group %s tombstoned with stored epoch %d", w.ctx(), r.Group, g.storedEpoch)
		}
	}
	if at == h.nowMs && w.c.intn(2) == 0 {
		applyResult(h, sweep)
	}
}

// TestReplayEqualityRandomWorkloads proves docs/invariants.md invariant 7 and the
// other workload properties (see the file comment) over 250 seeds.
func TestReplayEqualityRandomWorkloads(t *testing.T) {
	const steps = 300
	seeds := uint64(propertySeeds(250))
	for seed := uint64(1); seed <= seeds; seed++ {
		name := fmt.Sprintf("seed=%d", seed)
		ok := t.Run(name, func(t *testing.T) {
			w := newWorkload(t, randChooser{rand.New(rand.NewPCG(seed, 0))}, name, steps)
			w.run(steps, func() bool { return true })
		})
		if !ok {
			t.Fatalf("workload %s failed; rerun with -run 'TestReplayEqualityRandomWorkloads/%s'", name, name)
		}
	}
}

// TestRandomWorkloadsReachEveryState proves the workload generator is not
// vacuous: across the seeds it reaches every group type, the interesting
// states, deferrals, expiries and fencing.
func TestRandomWorkloadsReachEveryState(t *testing.T) {
	seen := map[string]int{}
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorkload(t, randChooser{rand.New(rand.NewPCG(seed, 0))}, fmt.Sprintf("seed=%d", seed), 300)
		for w.step = 0; w.step < 300; w.step++ {
			w.do()
			w.h.s.ListGroups(func(g GroupListing) bool {
				seen[g.Type.String()+"/"+g.State.String()]++
				return true
			})
			if w.h.s.eligible.Len() > 0 {
				seen["eligible"]++
			}
		}
		for _, r := range w.h.log {
			kind := r.Type().String()
			if isTombstoneRecord(r) {
				kind += "/tombstone"
			}
			seen[kind]++
		}
	}
	for _, want := range []string{
		"classic/EMPTY", "classic/PREPARING_REBALANCE", "classic/COMPLETING_REBALANCE", "classic/STABLE", "ClassicGroupState",
		"consumer/EMPTY", "consumer/STABLE", "consumer/RECONCILING",
		"streams/EMPTY", "streams/NOT_READY", "streams/STABLE", "streams/RECONCILING",
		"share/EMPTY", "share/STABLE",
		"OffsetCommit/tombstone", "EndTransactionMarker", "GroupMetadata/tombstone",
		"ConsumerGroupMetadata/tombstone", "StreamsGroupMetadata/tombstone", "ShareGroupMetadata/tombstone",
		"StreamsGroupTopology", "ConsumerGroupMemberMetadata/tombstone", "eligible",
	} {
		require.Positive(t, seen[want], "the workload never produced %s; seen: %v", want, slices.Sorted(maps.Keys(seen)))
	}
}

// isTombstoneRecord reports whether any record is a tombstone.
func isTombstoneRecord(r Record) bool {
	switch r := r.(type) {
	case *OffsetCommit:
		return r.Tombstone
	case *GroupMetadata:
		return r.Tombstone
	case *ConsumerGroupMetadata:
		return r.Tombstone
	case *ConsumerGroupMemberMetadata:
		return r.Tombstone
	case *ConsumerGroupTargetAssignmentMetadata:
		return r.Tombstone
	case *StreamsGroupMetadata:
		return r.Tombstone
	case *StreamsGroupTopology:
		return r.Tombstone
	case *StreamsGroupMemberMetadata:
		return r.Tombstone
	case *StreamsGroupTargetAssignmentMetadata:
		return r.Tombstone
	case *ShareGroupMetadata:
		return r.Tombstone
	case *ShareGroupMemberMetadata:
		return r.Tombstone
	case *ShareGroupTargetAssignmentMetadata:
		return r.Tombstone
	}
	return isTombstone(r)
}
