package difftest

import (
	"fmt"
	"maps"
	"slices"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// driver runs ops on coordsim's shard the way package coordinator drives
// it, reduced to what one partition needs: an operation's records are
// replayed at once (every write commits), its timer changes are applied to
// a keyed timer queue with Kafka's semantics (a key replaces its timer,
// equal deadlines fire in scheduling order), timers fire only on Advance,
// and Reload rebuilds the shard from its log and arms OnLoaded's timers.
type driver struct {
	cfg    shard.Config
	s      *shard.Shard
	nowMs  int64
	log    []shard.Record
	topics map[string]int32
	// ids hands out the topic ids the oracle gives Kafka, so the shard's
	// assignor sees Kafka's (SetTopics).
	ids    topicIDs
	timers map[string]timer
	seq    uint64
	soft   streamsSoft
	// parked are the classic requests (by number) whose answer comes
	// later; completed the answers released since the op began.
	parked    map[int]string
	completed []any
	// groupConfigs are the groups' dynamic configs (SetGroupConfig),
	// installed on every shard the driver loads.
	groupConfigs map[string]coordinator.GroupConfig
}

type timer struct {
	op  shard.TimerOp
	seq uint64
}

func newDriver(cfg shard.Config) (*driver, error) {
	s, err := shard.New(0, cfg)
	if err != nil {
		return nil, err
	}
	d := &driver{cfg: cfg, s: s, topics: map[string]int32{}, ids: newTopicIDs(), timers: map[string]timer{}, soft: newStreamsSoft()}
	d.applyTimers(s.OnLoaded(0))
	return d, nil
}

// commit replays a result's records and applies its timers.
func (d *driver) commit(records []shard.Record, timers []shard.TimerOp) []any {
	out := make([]any, 0, len(records))
	for i, r := range records {
		if r.Type() == shard.TypeClassicGroupState {
			// coordsim's own snapshot of a classic group beside Kafka's
			// GroupMetadata: no Kafka record to compare it with.
			if err := d.s.Replay(int64(len(d.log)), r); err != nil {
				out = append(out, map[string]any{"replayError": err.Error()})
				continue
			}
			d.log = append(d.log, r)
			continue
		}
		if err := d.s.Replay(int64(len(d.log)), r); err != nil {
			// A record the shard produced and cannot replay is a coordsim
			// bug; report it as an outcome so the runner shows it.
			out = append(out, map[string]any{"replayError": err.Error()})
			continue
		}
		d.log = append(d.log, r)
		out = append(out, recordJSON(r))
		// After every record, as package coordinator does: Kafka clears the
		// request when a record's replay leaves the group empty, even if a
		// later record of the same write fills it again.
		d.forgetEmptyShutdowns(records[i : i+1])
	}
	if len(out) > 0 {
		d.soft.undo = nil // a new last written offset: nothing to revert to before it
	}
	d.applyTimers(timers)
	d.soft.taskOffsets.ForgetReplayed(records)
	return out
}

func (d *driver) applyTimers(ops []shard.TimerOp) {
	for _, op := range ops {
		if op.Cancel {
			delete(d.timers, op.Key)
			continue
		}
		if _, ok := d.timers[op.Key]; ok && op.IfAbsent {
			continue
		}
		d.seq++
		d.timers[op.Key] = timer{op: op, seq: d.seq}
	}
}

// nextDueOf returns the first armed timer of kind due at or before
// limitMs.
func (d *driver) nextDueOf(kind shard.TaskKind, limitMs int64) (timer, bool) {
	var best timer
	found := false
	for _, t := range d.timers {
		if t.op.Task.Kind == kind && t.op.DeadlineMs <= limitMs && (!found || t.seq < best.seq) {
			best, found = t, true
		}
	}
	return best, found
}

// nextDue returns the earliest timer due at or before limitMs.
func (d *driver) nextDue(limitMs int64) (timer, bool) {
	var best timer
	found := false
	for _, t := range d.timers {
		if t.op.DeadlineMs > limitMs {
			continue
		}
		if !found || t.op.DeadlineMs < best.op.DeadlineMs || t.op.DeadlineMs == best.op.DeadlineMs && t.seq < best.seq {
			best, found = t, true
		}
	}
	return best, found
}

// assignors is group.consumer.assignors, as the wire checks a heartbeat's
// ServerAssignor against it.
func (d *driver) assignors() *assignor.Registry {
	if d.cfg.ConsumerAssignors != nil {
		return d.cfg.ConsumerAssignors
	}
	return assignor.Default()
}

// hasMembers reports whether group exists with members (a classic
// group's pending members count).
func (d *driver) hasMembers(group string) bool {
	g, ok := d.s.DescribeGroup(group)
	if !ok {
		return false
	}
	if g.Classic != nil && (len(g.Classic.Members) > 0 || len(g.Classic.PendingMembers) > 0) {
		return true
	}
	return len(g.Members) > 0
}

// errOutcome is the outcome of an operation that failed as a whole: Kafka's
// error name and message, and nothing written.
func errOutcome(err error) Outcome {
	msg := ""
	var me *kerr.MessageError
	if asMessage(err, &me) {
		msg = me.Message
	}
	return Outcome{Error: kerr.Name(err), Message: msg, Records: []any{}}
}

func (o SetTopics) run(d *driver) Outcome {
	next := map[string]int32{}
	for _, t := range o.Topics {
		next[t.Name] = max(t.Partitions, d.topics[t.Name])
	}
	var deleted []shard.TopicPartitions
	for _, name := range slices.Sorted(maps.Keys(d.topics)) {
		if _, ok := next[name]; !ok {
			tp := shard.TopicPartitions{Topic: name}
			for p := range d.topics[name] {
				tp.Partitions = append(tp.Partitions, p)
			}
			deleted = append(deleted, tp)
		}
	}
	d.ids.image(o.Topics)
	d.topics = next
	if err := d.s.SetTopicImage(d.image()); err != nil {
		return Outcome{Bad: err.Error()}
	}
	out := Outcome{Records: []any{}}
	if len(deleted) > 0 {
		res, err := d.s.OnPartitionsDeleted(deleted)
		if err != nil {
			return errOutcome(err)
		}
		out.Records = d.commit(res.Records, res.Timers)
		d.deliver(res.Completions)
		// And the share groups' state metadata, as the oracle's
		// maybeCleanupShareGroupState write after onTopicsDeleted.
		var names []string
		for _, tp := range deleted {
			names = append(names, tp.Topic)
		}
		cleanup := d.s.MaybeCleanupShareGroupState(d.nowMs, names)
		out.Records = append(out.Records, d.commit(cleanup.Records, cleanup.Timers)...)
	}
	return out
}

func str(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}

func partitions(tps []TopicPartitions) []shard.TopicPartitions {
	if tps == nil {
		return nil
	}
	out := make([]shard.TopicPartitions, 0, len(tps))
	for _, tp := range tps {
		out = append(out, shard.TopicPartitions{Topic: tp.Topic, Partitions: slices.Clone(tp.Partitions)})
	}
	return out
}

func (o ConsumerHeartbeat) run(d *driver) Outcome {
	owned := partitions(o.Owned)
	if owned == nil && o.OwnedSet {
		owned = []shard.TopicPartitions{}
	}
	// The wire's request checks first, on the request with its nulls, as
	// the oracle runs GroupCoordinatorService's (wire/heartbeat_validation.go).
	if err := shard.CheckConsumerHeartbeat(shard.ConsumerHeartbeatCheck{
		Version: 1, GroupID: o.GroupID, MemberID: o.MemberID, InstanceID: o.InstanceID, RackID: o.RackID,
		MemberEpoch: o.MemberEpoch, RebalanceTimeoutMs: o.RebalanceTimeoutMs, TopicPartitions: shard.ListOf(owned),
		SubscribedTopicNames: o.Subscribed, SubscribedTopicRegex: o.Regex, ServerAssignor: o.ServerAssignor,
	}, d.assignors()); err != nil {
		return errOutcome(err)
	}
	res, err := d.s.ConsumerGroupHeartbeat(d.nowMs, shard.ConsumerGroupHeartbeatRequest{
		GroupID: o.GroupID, MemberID: o.MemberID, MemberEpoch: o.MemberEpoch, InstanceID: str(o.InstanceID),
		ClientID: o.ClientID, RackID: str(o.RackID), RebalanceTimeoutMs: o.RebalanceTimeoutMs,
		SubscribedTopicNames: o.Subscribed, TopicPartitions: owned, ServerAssignor: o.ServerAssignor,
		SubscribedTopicRegex: o.Regex,
	})
	if err != nil {
		return errOutcome(err)
	}
	r := res.Response
	out := Outcome{Records: d.commit(res.Records, res.Timers)}
	out.Response = heartbeatJSON(r.MemberID, r.MemberEpoch, r.HeartbeatIntervalMs, r.HasAssignment, r.Assignment)
	d.deliver(res.Completions)
	return out
}

func (o ShareHeartbeat) run(d *driver) Outcome {
	res, err := d.s.ShareGroupHeartbeat(d.nowMs, shard.ShareGroupHeartbeatRequest{
		GroupID: o.GroupID, MemberID: o.MemberID, MemberEpoch: o.MemberEpoch, ClientID: o.ClientID,
		RackID: str(o.RackID), SubscribedTopicNames: o.Subscribed,
	})
	if err != nil {
		return errOutcome(err)
	}
	r := res.Response
	return Outcome{Response: heartbeatJSON(r.MemberID, r.MemberEpoch, r.HeartbeatIntervalMs, r.HasAssignment, r.Assignment),
		Records: d.commit(res.Records, res.Timers)}
}

func shardCommitTopics(topics []CommitTopic) []shard.OffsetCommitTopic {
	out := make([]shard.OffsetCommitTopic, 0, len(topics))
	for _, t := range topics {
		ct := shard.OffsetCommitTopic{Topic: t.Topic}
		for _, p := range t.Partitions {
			ct.Partitions = append(ct.Partitions, shard.OffsetCommitPartition{Partition: p.Partition, Offset: p.Offset, LeaderEpoch: p.LeaderEpoch, Metadata: p.Metadata})
		}
		out = append(out, ct)
	}
	return out
}

func (o OffsetCommit) run(d *driver) Outcome {
	res, err := d.s.CommitOffsets(d.nowMs, shard.OffsetCommitRequest{
		GroupID: o.GroupID, MemberID: o.MemberID, GroupInstanceID: str(o.InstanceID), MemberEpoch: o.MemberEpoch,
		RetentionTimeMs: shard.DefaultRetentionTimeMs, APIVersion: 9, Topics: shardCommitTopics(o.Topics),
	})
	if err != nil {
		return errOutcome(err)
	}
	return Outcome{Response: partitionResultsJSON(0, res.Response.Topics), Records: d.commit(res.Records, res.Timers)}
}

func (o TxnOffsetCommit) run(d *driver) Outcome {
	res, err := d.s.CommitTransactionalOffsets(d.nowMs, shard.TxnOffsetCommitRequest{
		TransactionalID: "txn", GroupID: o.GroupID, ProducerID: o.ProducerID, ProducerEpoch: o.ProducerEpoch,
		MemberID: o.MemberID, GroupInstanceID: str(o.InstanceID), MemberEpoch: o.MemberEpoch, Topics: shardCommitTopics(o.Topics),
	})
	if err != nil {
		return errOutcome(err)
	}
	return Outcome{Response: partitionResultsJSON(0, res.Response.Topics), Records: d.commit(res.Records, res.Timers)}
}

func (o EndTxn) run(d *driver) Outcome {
	res, err := d.s.EndTransaction(o.GroupID, o.ProducerID, o.Commit)
	if err != nil {
		return errOutcome(err)
	}
	d.commit(res.Records, res.Timers)
	// The marker is a control record, not a coordinator record: Kafka's
	// shard replays it and writes nothing.
	return Outcome{Records: []any{}}
}

func (o OffsetFetch) run(d *driver) Outcome {
	var topics []shard.TopicPartitions
	if o.Topics != nil {
		topics = partitions(o.Topics)
		for i := range topics {
			if topics[i].Partitions == nil {
				topics[i].Partitions = []int32{}
			}
		}
	}
	got, err := d.s.OffsetFetch(shard.OffsetFetchRequest{GroupID: o.GroupID, MemberID: str(o.MemberID), MemberEpoch: o.MemberEpoch,
		Topics: topics, RequireStable: o.RequireStable})
	if err != nil {
		return errOutcome(err)
	}
	return Outcome{Response: fetchJSON(got), Records: []any{}}
}

func (o OffsetDelete) run(d *driver) Outcome {
	res, err := d.s.DeleteOffsets(o.GroupID, partitions(o.Topics))
	if err != nil {
		return errOutcome(err)
	}
	return Outcome{Response: partitionResultsJSON(0, res.Response.Topics), Records: d.commit(res.Records, res.Timers)}
}

func (o DeleteGroups) run(d *driver) Outcome {
	res, err := d.s.DeleteGroups(o.Groups)
	if err != nil {
		return errOutcome(err)
	}
	results := make([]any, 0, len(res.Response))
	for _, r := range res.Response {
		results = append(results, fmt.Sprintf("%s: %d", r.GroupID, kerr.Code(r.Err)))
	}
	slices.SortFunc(results, func(a, b any) int { return compareStrings(a.(string), b.(string)) })
	out := Outcome{Response: results, Records: d.commit(res.Records, res.Timers)}
	d.deliver(res.Completions)
	return out
}

func (ListGroups) run(d *driver) Outcome {
	var out []any
	d.s.ListGroups(func(g shard.GroupListing) bool {
		out = append(out, fmt.Sprintf("%s %s %s", g.GroupID, g.Type, g.State.MetricLabel()))
		return true
	})
	return Outcome{Response: nonNil(out), Records: []any{}}
}

func (o DescribeGroups) run(d *driver) Outcome {
	want := shard.Consumer
	if o.Share {
		want = shard.Share
	}
	out := make([]any, 0, len(o.Groups))
	for _, id := range o.Groups {
		g, ok := d.s.DescribeGroup(id)
		if !ok || g.Type != want {
			out = append(out, map[string]any{"groupId": id, "errorCode": kerr.GroupIDNotFound.Code})
			continue
		}
		out = append(out, describeJSON(g, func(t string) bool { return d.topics[t] > 0 }))
	}
	return Outcome{Response: out, Records: []any{}}
}

func (o Advance) run(d *driver) Outcome {
	if o.Ms < 0 {
		return Outcome{Bad: "negative advance"}
	}
	target := d.nowMs + o.Ms
	out := Outcome{Records: []any{}}
	// The background work the operations before armed runs first, as the
	// oracle's advance completes its executor's tasks (regex resolutions)
	// and then its share-state initialisations before any timer fires:
	// a timer due now that was armed earlier does not overtake them.
	for _, kind := range []shard.TaskKind{shard.TaskRegexRefresh, shard.TaskShareInitialize} {
		for {
			t, ok := d.nextDueOf(kind, d.nowMs)
			if !ok {
				break
			}
			d.fire(t, &out)
		}
	}
	for {
		t, ok := d.nextDue(target)
		if !ok {
			break
		}
		d.fire(t, &out)
	}
	d.nowMs = target
	return out
}

// fire runs timer t at its deadline (or now, if later).
func (d *driver) fire(t timer, out *Outcome) {
	delete(d.timers, t.op.Key)
	d.nowMs = max(d.nowMs, t.op.DeadlineMs)
	task := t.op.Task
	if task.Kind == shard.TaskStreamsInitialRebalance {
		task.StreamsConfigured = d.soft.configured[task.GroupID] // coordinator.runTimer
		task.StreamsTaskOffsets = d.soft.taskOffsets.Group(task.GroupID)
	}
	res := d.s.RunTimer(d.nowMs, task)
	out.Records = append(out.Records, d.commit(res.Records, res.Timers)...)
	d.deliver(res.Completions)
}

// image is the topic image the driver installs: the topics with the ids
// the oracle gave Kafka.
func (d *driver) image() shard.TopicImage {
	return shard.TopicImage{Partitions: d.topics, IDs: d.ids.bytes()}
}

func (Reload) run(d *driver) Outcome {
	d.unloaded()
	s, err := shard.New(0, d.cfg)
	if err != nil {
		return Outcome{Bad: err.Error()}
	}
	if err := d.installGroupConfigs(s); err != nil {
		return Outcome{Bad: err.Error()}
	}
	if err := s.ReplayAll(0, d.log); err != nil {
		return Outcome{Bad: "reload: " + err.Error()}
	}
	if err := s.SetTopicImage(d.image()); err != nil {
		return Outcome{Bad: err.Error()}
	}
	d.s = s
	d.timers = map[string]timer{}
	d.soft = newStreamsSoft()
	d.applyTimers(s.OnLoaded(d.nowMs))
	return Outcome{Records: []any{}}
}
