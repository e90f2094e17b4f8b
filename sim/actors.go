package sim

import (
	"fmt"
	"maps"
	"slices"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// simGroup is a group the workload creates: its type, lifetime and members.
type simGroup struct {
	id            string
	typ           shard.GroupType
	bornMs        int64
	diesMs        int64
	topic         string
	topologyEpoch int32
	members       []*simMember
	nextMember    int
	upgradeAtMs   int64 // 0: no upgrade
	variant       groupVariant
	producerID    int64 // variantTxn
	txnOpen       bool  // variantTxn: a transaction awaits its marker
	redeployed    bool  // a streams app brought back once (maybeRedeploy)
	// static consumer groups give their members instance ids; an instance
	// freed by a crash or a bounce is taken by the next member that starts.
	static bool
	// side is the second input of a streams app with internal topics
	// ("" for the one-topic topology; streams_topology.go).
	side string
	join bool // the copartitioned join (streams_topology.go)
	// standbys is the app's streams.num.standby.replicas (0: no group
	// config; streams_standby.go).
	standbys int32
	// twoThreads: each instance runs two stream threads (two members of
	// one process; streams_standby.go).
	twoThreads bool
	// rangeAssignor: the members name the range server assignor (racks.go).
	rangeAssignor bool
	freeInstances []string
	nextInstance  int
	// rolling is a rolling-upgrade application's state (nil for the
	// others; rolling_upgrade.go).
	rolling *rollingApp
}

// simMember is one client instance: a Kafka Streams instance, a KIP-848
// consumer or a share consumer.
type simMember struct {
	g      *simGroup
	id     string
	epoch  int32
	joined bool
	gone   bool // left or crashed
	// assigned is what the client holds: a consumer's partitions, a
	// Kafka Streams instance's active tasks (subtopology id as the Topic).
	assigned []shard.TopicPartitions
	// standby and warmup are a Streams instance's standby and warm-up
	// tasks, as its last assignment gave them.
	standby, warmup []shard.TaskIDs
	// wasStandby is the tasks this instance has held as standbys since it
	// joined: taking one as active is a promotion (streams_standby.go).
	wasStandby map[taskKey]bool
	// Consumer reconciliation (consumer_actor.go): the last assignment the
	// coordinator sent, a revocation in progress, and a generation that a
	// fence bumps so a late revocation callback is ignored.
	target   []shard.TopicPartitions
	revoking bool
	stalled  bool
	gen      int
	// loop identifies the member's heartbeat loop: a join starts a new one,
	// and the old loop's timers and in-flight responses are dropped, as a
	// real client has one heartbeat in flight and forgets the answers to
	// what it sent before it rejoined.
	loop     int
	topo     int32 // topology epoch this instance runs
	offset   int64
	instance string // consumer: group.instance.id ("" for a dynamic member)
	process  string // streams: the instance's process id (streams_standby.go)
	rack     string // client.rack ("" for none; racks.go)
	bounced  bool   // took over the instance of a member that left with -2
	// classic is a classic consumer's protocol state (nil for a member that
	// speaks a KIP-848 protocol; classic_actor.go).
	classic *classicClient
}

const (
	heartbeatInterval = 5 * time.Second
	retryBackoff      = time.Second
)

// spawnWorkload creates every group with its birth, lifetime and members.
func (w *world) spawnWorkload() {
	wl := w.opts.Workload
	window := int64(float64(w.opts.Duration.Milliseconds()) * wl.ArrivalWindow)
	topics := w.pick
	type kind struct {
		typ   shard.GroupType
		n     int
		label string
	}
	kinds := []kind{{shard.Streams, wl.StreamsApps, "streams"}, {shard.Consumer, wl.ConsumerGroups, "consumer"},
		{shard.Share, wl.ShareGroups, "share"}, {shard.Classic, wl.SimpleGroups, "simple"},
		{shard.Consumer, wl.RollingUpgradeGroups, rollingLabel}}
	for _, k := range kinds {
		for i := range k.n {
			g := &simGroup{
				id:  w.groupID(k.label, i),
				typ: k.typ, topic: topics[w.eng.rng.IntN(len(topics))],
				topologyEpoch: int32(w.eng.rng.IntN(3)),
				variant:       variantFor(k.typ, i),
				producerID:    int64(len(w.groups)) + 1,
			}
			// Every third consumer group uses static membership (no draw,
			// so the other groups' randomness is unchanged).
			g.static = k.typ == shard.Consumer && i%3 == 0
			withInternalTopics(g, i, topics)
			withCopartitionedJoin(g, i, topics)
			w.configureStandbys(g, i)
			if k.label == rollingLabel {
				rollingGroup(g, i, w.opts.Workload.RollingUpgradeBaseline)
			}
			g.rangeAssignor = k.typ == shard.Consumer && usesRange(w.opts.Seed, i, wl.RangeProb)
			g.rangeAssignor = g.rangeAssignor && g.rolling == nil
			g.bornMs = startMs + w.eng.rng.Int64N(max(window, 1))
			g.diesMs = g.bornMs + w.eng.uniform(wl.LifetimeMin, wl.LifetimeMax).Milliseconds()
			if k.typ == shard.Streams && w.eng.chance(wl.TopologyUpgradeProb) {
				g.upgradeAtMs = g.bornMs + (g.diesMs-g.bornMs)/2
			}
			w.groups = append(w.groups, g)
			w.costs.add(w, g)
			w.res.GroupsCreated[k.label]++
			gg := g
			w.eng.at(g.bornMs, func() { w.birth(gg) })
		}
	}
}

func (w *world) birth(g *simGroup) {
	w.check.checkRouting(g.id)
	w.markGroupID(g.id)
	if g.typ == shard.Classic {
		switch g.variant {
		case variantRetention, variantAligned:
			w.alignedCommitLoop(g)
		case variantTxn:
			w.txnLoop(g)
		default:
			w.simpleCommitLoop(g)
		}
		return
	}
	n := w.opts.Workload.MembersMin + w.eng.rng.IntN(w.opts.Workload.MembersMax-w.opts.Workload.MembersMin+1)
	for range n {
		w.addMember(g)
	}
	if g.upgradeAtMs > 0 {
		w.eng.at(g.upgradeAtMs, func() { w.upgrade(g) })
	}
	if g.rolling != nil {
		w.scheduleRolls(g)
	}
	w.eng.at(g.diesMs, func() { w.death(g) })
}

func (w *world) addMember(g *simGroup) *simMember {
	m := &simMember{g: g, id: fmt.Sprintf("m%d", g.nextMember), topo: g.topologyEpoch, process: processOf(g, g.nextMember)}
	g.nextMember++
	if g.static {
		if len(g.freeInstances) > 0 {
			m.instance, g.freeInstances = g.freeInstances[0], g.freeInstances[1:]
		} else {
			m.instance = fmt.Sprintf("i%d", g.nextInstance)
			g.nextInstance++
		}
	}
	// The rack is the host's: a static member's instance and a stream
	// thread's process keep theirs.
	host := m.id
	if m.instance != "" {
		host = m.instance
	} else if g.typ == shard.Streams {
		host = m.process
	}
	m.rack = w.memberRack(g.id, host)
	g.members = append(g.members, m)
	if g.rolling != nil && g.rolling.classic {
		m.classic = &classicClient{cooperative: g.rolling.cooperative}
		w.eng.after(w.eng.uniform(0, time.Second), func() { w.classicJoin(m) })
		return m
	}
	w.eng.after(w.eng.uniform(0, time.Second), func() { w.join(m) })
	return m
}

// upgrade rolls a streams app to the next topology epoch: each instance
// rejoins with it at a random moment of the next minute.
func (w *world) upgrade(g *simGroup) {
	if w.healed {
		return
	}
	g.topologyEpoch++
	w.client(tUpgrade, g.id, "", fmt.Sprintf("topology-epoch=%d", g.topologyEpoch))
	w.mark("topology-upgrade")
	for _, m := range g.members {
		mm := m
		w.eng.after(w.eng.uniform(0, time.Minute), func() {
			if !mm.gone {
				mm.topo = g.topologyEpoch
				w.join(mm)
			}
		})
	}
}

func (w *world) death(g *simGroup) {
	for _, m := range g.members {
		if !m.gone {
			w.stop(m)
		}
	}
	w.maybeRedeploy(g)
}

func topologyFor(g *simGroup, epoch int32) *shard.Topology {
	if g.join {
		return joinTopology(g, epoch)
	}
	if g.side != "" {
		return internalTopology(g, epoch)
	}
	return &shard.Topology{Epoch: epoch, Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{g.topic}}}}
}

// join sends a join heartbeat (epoch 0).
func (w *world) join(m *simMember) {
	if m.gone {
		return
	}
	b := w.route(m.g.id)
	w.client(tJoin, m.g.id, m.id, "")
	if b < 0 {
		w.eng.after(retryBackoff, func() { w.join(m) })
		return
	}
	m.epoch = 0
	m.loop++
	// A join starts over with nothing (a join's owned tasks and partitions
	// are empty): a Kafka Streams instance that rejoins, say to run a new
	// topology, closes its tasks first, and a revocation in flight is moot.
	m.assigned, m.target, m.revoking, m.stalled = nil, nil, false, false
	m.standby, m.warmup, m.wasStandby = nil, nil, nil
	m.gen++
	w.heartbeatWith(b, m, 0)
	if w.joins++; w.joins%4 == 0 {
		w.describeBack(m.g, b)
	}
}

// heartbeatWith sends one heartbeat of the member's type at epoch.
func (w *world) heartbeatWith(b int, m *simMember, epoch int32) {
	c := w.brokers[b].c
	g := m.g
	w.touch(b)
	sentMs := w.nowMs()
	loop := m.loop
	accepted := func(err error) {
		if err == nil && epoch >= 0 {
			w.check.onHeartbeatAccepted(g.id, m.id, sentMs)
		}
	}
	// stale: the answer to a heartbeat sent before the member rejoined.
	stale := func(err error) bool {
		if epoch < 0 || m.loop == loop {
			return false
		}
		accepted(err)
		return true
	}
	switch g.typ {
	case shard.Consumer:
		req := shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: g.id, MemberID: m.id, MemberEpoch: epoch, ClientID: "sim", InstanceID: m.instance}
		if epoch == 0 {
			req.RebalanceTimeoutMs, req.SubscribedTopicNames, req.RackID = 300_000, []string{g.topic}, m.rack
			if g.rangeAssignor {
				req.ServerAssignor = &rangeName
			}
		} else if epoch > 0 {
			req.TopicPartitions = ownedList(m.assigned) // what it holds: revoked ones are gone
		}
		c.ConsumerGroupHeartbeat(req).OnDone(func(r shard.ConsumerGroupHeartbeatResponse, err error) {
			if stale(err) {
				return
			}
			if err == nil && r.HasAssignment && epoch >= 0 && !m.gone {
				w.consumerAssign(m, r.Assignment)
			}
			accepted(err)
			w.afterHeartbeat(m, epoch, r.MemberEpoch, err, false)
		})
	case shard.Share:
		req := shard.ShareGroupHeartbeatRequest{GroupID: g.id, MemberID: m.id, MemberEpoch: epoch, ClientID: "sim"}
		if epoch == 0 {
			req.SubscribedTopicNames, req.RackID = []string{g.topic}, m.rack
		}
		c.ShareGroupHeartbeat(req).OnDone(func(r shard.ShareGroupHeartbeatResponse, err error) {
			if stale(err) {
				return
			}
			accepted(err)
			w.afterHeartbeat(m, epoch, r.MemberEpoch, err, false)
		})
	case shard.Streams:
		req := shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: g.id, MemberID: m.id, MemberEpoch: epoch, ClientID: "sim", ProcessID: m.process, Version: 1}
		if epoch == 0 {
			req.RebalanceTimeoutMs, req.Topology, req.RackID = 300_000, topologyFor(g, m.topo), m.rack
		} else if epoch > 0 {
			// The tasks it runs: revoked ones are gone (KIP-1071's owned tasks).
			req.ActiveTasks = ownedTasks(m.assigned)
			req.StandbyTasks = append([]shard.TaskIDs{}, m.standby...)
			req.WarmupTasks = append([]shard.TaskIDs{}, m.warmup...)
		}
		c.StreamsGroupHeartbeat(req).OnDone(func(r shard.StreamsGroupHeartbeatResponse, err error) {
			if stale(err) {
				return
			}
			if err == nil && r.HasAssignment && epoch >= 0 && !m.gone {
				// Standby and warm-up tasks only restore state: the client
				// drops a revoked one at once and reports the rest.
				w.onStandbyAssignment(m, r.StandbyTasks, r.WarmupTasks)
				w.consumerAssign(m, tasksAsPartitions(r.ActiveTasks))
				w.checkStandbyApart(m)
			}
			if err == nil && epoch > 0 && r.MemberEpoch > epoch {
				w.markUnreleased(m)
			}
			shutdown := w.onStreamsStatus(m, r)
			accepted(err)
			w.afterHeartbeat(m, epoch, r.MemberEpoch, err, r.TopologyDescriptionRequired && !shutdown)
		})
	}
}

// afterHeartbeat reacts to a heartbeat response: schedule the next one,
// rejoin when fenced, retry when the coordinator is unavailable, push when
// solicited, and start committing after the first join.
func (w *world) afterHeartbeat(m *simMember, sent, epoch int32, err error, solicited bool) {
	if m.gone && sent >= 0 {
		return
	}
	if sent < 0 { // leave answered
		return
	}
	if err != nil {
		e := kerr.As(err)
		if e != kerr.UnreleasedInstanceID {
			// (An UNRELEASED_INSTANCE_ID answers the join in the same event,
			// retried every second: it is counted by its mark, not traced.)
			w.client(tResponse, m.g.id, m.id, kerr.Name(err))
		}
		switch e {
		case kerr.FencedMemberEpoch, kerr.UnknownMemberID, kerr.GroupIDNotFound:
			w.mark("member-fenced-rejoin")
			if m.g.typ == shard.Consumer || m.g.typ == shard.Streams {
				w.consumerLost(m)
			}
			w.eng.after(retryBackoff, w.inLoop(m, func() { w.join(m) }))
		case kerr.FencedInstanceID:
			// Another instance took this one's instance id: it stops.
			w.mark("fenced-instance-id")
			w.consumerLost(m)
			m.gone = true
			return
		case kerr.UnreleasedInstanceID:
			// The crashed holder of the instance id has not timed out yet.
			w.mark("unreleased-instance-id")
			w.eng.after(retryBackoff, w.inLoop(m, func() { w.retry(m) }))
		case kerr.CoordinatorLoadInProgress:
			w.mark("load-in-progress-seen")
			w.eng.after(retryBackoff, w.inLoop(m, func() { w.retry(m) }))
		default:
			w.eng.after(retryBackoff, w.inLoop(m, func() { w.retry(m) }))
		}
		return
	}
	first := !m.joined
	m.joined, m.epoch = true, epoch
	if first && m.bounced {
		w.mark("static-rejoin") // took over the assignment its instance left
	}
	if solicited && w.opts.Plugin {
		w.push(m)
	}
	if first {
		w.eng.after(w.eng.uniform(0, w.opts.Workload.CommitInterval), func() { w.commitLoop(m) })
	}
	w.eng.after(heartbeatInterval, w.inLoop(m, func() { w.heartbeat(m) }))
}

// inLoop returns f guarded by the member's current heartbeat loop: it does
// nothing once the member has rejoined (started another loop).
func (w *world) inLoop(m *simMember, f func()) func() {
	loop := m.loop
	return func() {
		if m.loop == loop {
			f()
		}
	}
}

// retry resends after an error: a join if the member never joined.
func (w *world) retry(m *simMember) {
	if m.joined {
		w.heartbeat(m)
	} else {
		w.join(m)
	}
}

func (w *world) heartbeat(m *simMember) {
	if m.gone {
		return
	}
	if w.heartbeatLost() {
		w.mark("heartbeat-lost")
		w.eng.after(heartbeatInterval, w.inLoop(m, func() { w.heartbeat(m) }))
		return
	}
	b := w.route(m.g.id)
	if b < 0 {
		w.eng.after(retryBackoff, w.inLoop(m, func() { w.heartbeat(m) }))
		return
	}
	w.client(tHeartbeat, m.g.id, m.id, "")
	w.heartbeatWith(b, m, m.epoch)
}

// leave is a graceful close: the member sends the leave heartbeat (epoch
// -1). A KIP-848 consumer commits what it owns first (consumerClose); a
// crash (commitLoop) does neither.
func (w *world) leave(m *simMember) {
	m.gone = true
	if m.g.typ == shard.Consumer {
		w.consumerClose(m)
	}
	b := w.route(m.g.id)
	w.client(tLeave, m.g.id, m.id, "")
	if b < 0 {
		return // the session timeout will fence it
	}
	w.heartbeatWith(b, m, -1)
}

// push answers a solicitation with the instance's topology description.
func (w *world) push(m *simMember) {
	b := w.route(m.g.id)
	if b < 0 {
		return
	}
	w.client(tPush, m.g.id, m.id, fmt.Sprintf("epoch=%d", m.topo))
	w.touch(b)
	w.brokers[b].c.StreamsGroupTopologyDescriptionUpdate(coordinator.TopologyDescriptionUpdateRequest{
		GroupID: m.g.id, MemberID: m.id, TopologyEpoch: m.topo, Description: plugin.SampleTopology(uint64(m.topo)+1, 2),
	}).OnDone(func(_ struct{}, err error) {
		if err != nil {
			w.check.raced(m.g.id, "push failed: "+kerr.Name(err))
			w.client(tResponse, m.g.id, m.id, "push "+kerr.Name(err))
			if kerr.As(err) == kerr.StreamsTopologyDescriptionUpdateFailed {
				w.mark("push-failed")
			}
		}
	})
}

// commitLoop commits the member's partitions every CommitInterval; each
// commit may crash the member instead (it then stops heartbeating and a new
// instance replaces it a little later).
func (w *world) commitLoop(m *simMember) {
	if m.gone {
		return
	}
	if w.memberCrashes() {
		if m.instance != "" && m.joined && w.eng.chance(0.5) {
			w.staticBounce(m)
			return
		}
		m.gone = true
		if m.instance != "" {
			m.g.freeInstances = append(m.g.freeInstances, m.instance)
		}
		w.client(tCrash, m.g.id, m.id, "")
		w.mark("member-crash")
		if w.nowMs() < m.g.diesMs {
			g := m.g
			w.eng.after(w.eng.uniform(10*time.Second, 2*time.Minute), func() {
				if w.nowMs() < g.diesMs && !w.healed {
					w.client(tRestart, g.id, "", "")
					w.addMember(g)
				}
			})
		}
		return
	}
	if m.g.typ != shard.Share && (m.g.variant != variantIdle || m.offset == 0) {
		w.commitAssigned(m)
	}
	w.eng.after(w.opts.Workload.CommitInterval, func() { w.commitLoop(m) })
}

func (w *world) commitAssigned(m *simMember) {
	var parts []shard.OffsetCommitPartition
	// A streams task commits the partition of the group's topic it reads:
	// subtopology 0 reads it; the others of an app with internal topics
	// read the repartition and side topics (streams_topology.go).
	for _, tp := range m.assigned {
		if m.g.typ == shard.Streams && tp.Topic != "0" {
			continue
		}
		for _, p := range tp.Partitions {
			parts = append(parts, shard.OffsetCommitPartition{Partition: p})
		}
	}
	if len(parts) == 0 {
		return
	}
	m.offset += 100
	for i := range parts {
		parts[i].Offset, parts[i].LeaderEpoch = m.offset, -1
	}
	w.commit(m.g, m.id, m.epoch, parts)
}

func (w *world) commit(g *simGroup, member string, epoch int32, parts []shard.OffsetCommitPartition) {
	w.commitWith(g, member, epoch, -1, parts)
}

// commitWith commits with an explicit retention (-1: the broker's); a
// tenth of the commits are read back at once (see readBack).
func (w *world) commitWith(g *simGroup, member string, epoch int32, retentionMs int64, parts []shard.OffsetCommitPartition) {
	b := w.route(g.id)
	if b < 0 {
		return
	}
	w.touch(b)
	w.client(tCommit, g.id, member, "")
	cost := w.costs.commitSent(g, member, parts, w.nowMs())
	w.brokers[b].c.CommitOffsets(shard.OffsetCommitRequest{
		GroupID: g.id, MemberID: member, MemberEpoch: epoch, RetentionTimeMs: retentionMs,
		Topics: []shard.OffsetCommitTopic{{Topic: g.topic, Partitions: parts}},
	}).OnDone(func(r shard.OffsetCommitResponse, err error) {
		if err == nil {
			w.res.OffsetCommits += int64(r.Committed)
		}
		cost.done(r, err)
	})
	if w.eng.chance(0.1) {
		w.readBack(g, b)
	}
}

// simpleCommitLoop is a simple consumer: memberless commits during its life.
func (w *world) simpleCommitLoop(g *simGroup) {
	if w.nowMs() >= g.diesMs || w.healed {
		return
	}
	n := w.topics[g.topic]
	p := int32(w.eng.rng.IntN(int(n)))
	w.commit(g, "", -1, []shard.OffsetCommitPartition{{Partition: p, Offset: w.nowMs() - startMs, LeaderEpoch: -1}})
	w.eng.after(w.opts.Workload.CommitInterval, func() { w.simpleCommitLoop(g) })
}

// adminLoop is the admin client: DeleteGroups of a random group past its
// life, and describe (with the topology description) of a random streams app.
func (w *world) adminLoop(endMs int64) {
	if w.opts.Workload.AdminInterval <= 0 || len(w.groups) == 0 || w.nowMs() >= endMs {
		return
	}
	g := w.groups[w.eng.rng.IntN(len(w.groups))]
	// Mostly groups past their life; sometimes a live one, which must be
	// refused while it has members.
	if b := w.route(g.id); b >= 0 && (w.nowMs() > g.diesMs || w.eng.chance(0.3)) {
		w.touch(b)
		w.client(tAdminDelete, g.id, "", "")
		w.check.adminDeleteStarted(g.id)
		w.brokers[b].c.DeleteGroups([]string{g.id}).OnDone(func(rs []shard.DeleteGroupResult, err error) {
			if err == nil && len(rs) == 1 {
				w.onAdminDeleteResult(rs[0].Err)
				err = rs[0].Err
			}
			w.check.adminDeleteDone(g.id, err)
		})
	}
	s := w.groups[w.eng.rng.IntN(len(w.groups))]
	if b := w.route(s.id); b >= 0 && s.typ == shard.Streams {
		w.touch(b)
		w.brokers[b].c.DescribeStreamsGroups([]string{s.id}, true).OnDone(func(rows []coordinator.StreamsGroupDescription, err error) {
			if err != nil || rows[0].Err != nil {
				return
			}
			st := rows[0].TopologyDescriptionStatus
			w.client(tDescribe, s.id, "", st.String())
			w.mark("describe-" + st.String())
		})
	}
	w.maybeMoveRacks()
	w.eng.after(w.opts.Workload.AdminInterval, func() { w.adminLoop(endMs) })
}

func sortedTopicNames(m map[string]int32) []string { return slices.Sorted(maps.Keys(m)) }

// ownedTasks is a Streams instance's owned active tasks: never nil, so the
// coordinator reads them as sent.
func ownedTasks(a []shard.TopicPartitions) []shard.TaskIDs {
	out := make([]shard.TaskIDs, 0, len(a))
	for _, tp := range a {
		out = append(out, shard.TaskIDs{SubtopologyID: tp.Topic, Partitions: tp.Partitions})
	}
	return out
}

// tasksAsPartitions holds active tasks as the client's assignment,
// subtopology id as the Topic.
func tasksAsPartitions(t []shard.TaskIDs) []shard.TopicPartitions {
	out := make([]shard.TopicPartitions, 0, len(t))
	for _, x := range t {
		out = append(out, shard.TopicPartitions{Topic: x.SubtopologyID, Partitions: x.Partitions})
	}
	return out
}

// markUnreleased marks a streams member that moved to a new epoch without
// every task of its target: a task another member has not revoked yet is
// withheld (UNRELEASED_TASKS).
func (w *world) markUnreleased(m *simMember) {
	p := coordinator.PartitionFor(m.g.id, w.opts.Partitions)
	b := w.owner[p]
	if b < 0 {
		return
	}
	_ = w.brokers[b].c.ReadShard(p, func(s *shard.Shard) {
		if st, ok := s.MemberState(m.g.id, m.id); ok && st == shard.MemberUnreleasedPartitions {
			w.mark("task-unreleased")
		}
	})
}

// ownedList is a consumer's TopicPartitions: never nil, so the coordinator
// reads it as sent.
func ownedList(a []shard.TopicPartitions) []shard.TopicPartitions {
	return append([]shard.TopicPartitions{}, a...)
}

// staticBounce is a static member's graceful restart: it leaves with epoch
// -2, keeping its assignment at the coordinator, and a new process with the
// same instance id joins within the session timeout and takes the
// assignment back at once.
func (w *world) staticBounce(m *simMember) {
	m.gone = true
	w.consumerLost(m)
	w.mark("static-leave")
	if b := w.route(m.g.id); b >= 0 {
		w.client(tLeave, m.g.id, m.id, "static")
		w.heartbeatWith(b, m, shard.LeaveGroupStaticMemberEpoch)
	}
	g := m.g
	w.eng.after(w.eng.uniform(time.Second, 20*time.Second), func() {
		if w.nowMs() >= g.diesMs || w.healed {
			g.freeInstances = append(g.freeInstances, m.instance)
			return
		}
		w.client(tRestart, g.id, "", "static "+m.instance)
		g.freeInstances = append([]string{m.instance}, g.freeInstances...)
		n := w.addMember(g)
		n.bounced = true
	})
}
