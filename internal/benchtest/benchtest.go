// Package benchtest is the shared body of the KIP-848 and KIP-1071
// heartbeat benchmarks: BenchmarkConsumerGroupHeartbeat and
// BenchmarkStreamsGroupHeartbeat run the same cases on a bare shard (package
// shard) and through the coordinator service (package coordinator), so that
// the service's share of a heartbeat's cost is the difference. Each package
// supplies a Backend; this package builds the groups, runs the cases and
// checks their outcome.
//
// It is for benchmarks only: nothing outside _test.go files may import it,
// and it must never time its own setup (every case builds its groups before
// the timer starts).
package benchtest

import (
	"fmt"
	"slices"
	"testing"

	"github.com/coordsim/coordsim/shard"
)

// Backend is where a benchmark's heartbeats go. The shard's backend replays
// each result's records before it returns; the coordinator's commits them.
// Timers are the backend's business: the benchmarks never let one fire.
type Backend interface {
	ConsumerHeartbeat(req shard.ConsumerGroupHeartbeatRequest) (shard.ConsumerGroupHeartbeatResponse, error)
	StreamsHeartbeat(req shard.StreamsGroupHeartbeatRequest) (shard.StreamsGroupHeartbeatResponse, error)
	// Describe returns the group's description (false when it does not
	// exist).
	Describe(group string) (shard.GroupDescription, bool)
	// Advance moves the backend's clock one millisecond forward.
	Advance()
}

// Topics is the metadata image every backend must install before the
// benchmarks run: each consumer group subscribes to both topics, and the
// streams topology reads one per subtopology.
var Topics = map[string]int32{"orders": 6, "payments": 6}

// topicNames is Topics' names, sorted.
var topicNames = []string{"orders", "payments"}

// Topology is the streams groups' topology: two stateless subtopologies of
// 6 tasks each, one per topic of Topics.
func Topology() *shard.Topology {
	return &shard.Topology{Epoch: 0, Subtopologies: []shard.Subtopology{
		{ID: "0", SourceTopics: []string{"orders"}},
		{ID: "1", SourceTopics: []string{"payments"}},
	}}
}

// Member is a benchmark client: one group member as a KIP-848 or KIP-1071
// client sees it, with its epoch and what it owns (the last assignment it
// was sent: the benchmarks' clients revoke and take at once).
type Member struct {
	Group, ID string
	Epoch     int32
	// Owned is a consumer's partitions.
	Owned []shard.TopicPartitions
	// Tasks is a streams member's active tasks.
	Tasks []shard.TaskIDs
	// Keeps is a consumer's subscription without one topic it owns
	// partitions of, so that switching to it forces a revocation.
	Keeps []string
}

// memberID is the id of member m of group g (fixed length, as a real
// client's UUID).
func memberID(g, m int) string { return fmt.Sprintf("member-%06d-%02d-0123456789abcdef", g, m) }

// ConsumerJoin is member id's first heartbeat into group.
func ConsumerJoin(group, id string) shard.ConsumerGroupHeartbeatRequest {
	return shard.ConsumerGroupHeartbeatRequest{
		GroupID: group, MemberID: id, MemberEpoch: 0, ClientID: "consumer-client",
		RebalanceTimeoutMs: 300_000, SubscribedTopicNames: topicNames,
	}
}

// StreamsJoin is member id's first heartbeat into group, as a process of
// its own.
func StreamsJoin(group, id string) shard.StreamsGroupHeartbeatRequest {
	return shard.StreamsGroupHeartbeatRequest{
		GroupID: group, MemberID: id, MemberEpoch: 0, ProcessID: "process-" + id, ClientID: "streams-client",
		RebalanceTimeoutMs: 300_000, Topology: Topology(), Version: 1,
	}
}

// ConsumerBeat sends m's heartbeat with its owned partitions and applies
// the answer to m; it reports whether m's epoch or assignment changed.
func ConsumerBeat(be Backend, m *Member) (bool, error) {
	resp, err := be.ConsumerHeartbeat(shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent,
		GroupID: m.Group, MemberID: m.ID, MemberEpoch: m.Epoch, TopicPartitions: nonNil(m.Owned),
	})
	if err != nil {
		return false, fmt.Errorf("heartbeat of %s/%s at epoch %d: %w", m.Group, m.ID, m.Epoch, err)
	}
	return applyBeat(m, resp.MemberEpoch, resp.HasAssignment, resp.Assignment, &m.Owned, samePartitions), nil
}

// StreamsBeat is ConsumerBeat for a streams member: it sends its active
// tasks and empty standby and warm-up tasks (all three, so that a
// revocation is acknowledged).
func StreamsBeat(be Backend, m *Member) (bool, error) {
	resp, err := be.StreamsHeartbeat(shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent,
		GroupID: m.Group, MemberID: m.ID, MemberEpoch: m.Epoch, Version: 1,
		ActiveTasks: nonNil(m.Tasks), StandbyTasks: []shard.TaskIDs{}, WarmupTasks: []shard.TaskIDs{},
	})
	if err != nil {
		return false, fmt.Errorf("streams heartbeat of %s/%s at epoch %d: %w", m.Group, m.ID, m.Epoch, err)
	}
	return applyBeat(m, resp.MemberEpoch, resp.HasAssignment, resp.ActiveTasks, &m.Tasks, sameTasks), nil
}

// applyBeat applies a heartbeat's answer to m, for ConsumerBeat and
// StreamsBeat alike: the member epoch, and the assignment (into *owned,
// m's partitions or tasks) when the answer carries one that differs. It
// reports whether either changed, the question Settle asks.
func applyBeat[A any](m *Member, epoch int32, hasAssignment bool, assignment []A, owned *[]A, same func(A, A) bool) bool {
	changed := epoch != m.Epoch
	m.Epoch = epoch
	if hasAssignment && !slices.EqualFunc(assignment, *owned, same) {
		*owned, changed = assignment, true
	}
	return changed
}

// nonNil is s, or an empty slice for nil: a heartbeat that owns nothing
// says so with an empty list (null means "unchanged").
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func samePartitions(x, y shard.TopicPartitions) bool {
	return x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
}

func sameTasks(x, y shard.TaskIDs) bool {
	return x.SubtopologyID == y.SubtopologyID && slices.Equal(x.Partitions, y.Partitions)
}

// Settle heartbeats every member, in order, round after round, until a
// round changes nothing (at most 20 rounds): a group reconciles in a few.
func Settle(be Backend, members []*Member, beat func(Backend, *Member) (bool, error)) error {
	for range 20 {
		changed := false
		for _, m := range members {
			c, err := beat(be, m)
			if err != nil {
				return err
			}
			changed = changed || c
		}
		if !changed {
			return nil
		}
	}
	return fmt.Errorf("group %s did not settle in 20 rounds", members[0].Group)
}

// StableGroups builds n groups (consumer or streams) of size members each
// on be, named prefix-000000 and on, each member joining then all
// heartbeating until the group settles; it fails b unless every group is
// STABLE. It returns each group's members.
func StableGroups(b *testing.B, be Backend, typ shard.GroupType, prefix string, n, size int) [][]*Member {
	b.Helper()
	beat := ConsumerBeat
	if typ == shard.Streams {
		beat = StreamsBeat
	}
	out := make([][]*Member, n)
	for g := range n {
		group := fmt.Sprintf("%s-%06d", prefix, g)
		members := make([]*Member, size)
		for k := range members {
			m := &Member{Group: group, ID: memberID(g, k)}
			if err := Join(be, typ, m); err != nil {
				b.Fatal(err)
			}
			members[k] = m
		}
		if err := Settle(be, members, beat); err != nil {
			b.Fatal(err)
		}
		ExpectStable(b, be, group)
		for _, m := range members {
			m.Keeps = []string{"payments"}
			if len(m.Owned) > 0 && m.Owned[0].Topic == "payments" {
				m.Keeps = []string{"orders"}
			}
		}
		out[g] = members
	}
	return out
}

// Join sends m's join heartbeat (consumer or streams) and applies the
// answer to m.
func Join(be Backend, typ shard.GroupType, m *Member) error {
	if typ == shard.Streams {
		resp, err := be.StreamsHeartbeat(StreamsJoin(m.Group, m.ID))
		if err != nil {
			return fmt.Errorf("streams join of %s/%s: %w", m.Group, m.ID, err)
		}
		m.Epoch, m.Tasks = resp.MemberEpoch, resp.ActiveTasks
		return nil
	}
	resp, err := be.ConsumerHeartbeat(ConsumerJoin(m.Group, m.ID))
	if err != nil {
		return fmt.Errorf("join of %s/%s: %w", m.Group, m.ID, err)
	}
	m.Epoch, m.Owned = resp.MemberEpoch, resp.Assignment
	return nil
}

// ExpectStable fails b unless group is STABLE.
func ExpectStable(b *testing.B, be Backend, group string) {
	b.Helper()
	if d, ok := be.Describe(group); !ok || d.State != shard.StateStable {
		b.Fatalf("group %s is %s, want STABLE", group, d.State)
	}
}

// RebalanceSize is the size of the groups of the rebalance cases: one more
// member joins a STABLE group of RebalanceSize.
const RebalanceSize = 8

// RunConsumer runs BenchmarkConsumerGroupHeartbeat's cases on a fresh
// backend each, from newBackend (which must have installed Topics). The
// groups are 3 members on the two topics of Topics (6 partitions each),
// except in rebalance-8.
//
//   - steady: a STABLE member heartbeats at its epoch with nothing to
//     change (1000 groups, the 3000 members cycling): no records, the
//     session timer re-armed. This is almost every heartbeat of a live
//     group.
//   - rebalance-revoke: a STABLE member drops from its subscription a topic
//     it owns partitions of: its member record and a new group epoch are
//     written, the target assignment is recomputed, and the member is told
//     to revoke that topic's partitions. One fresh group per op.
//   - join: a fourth member joins a STABLE group: its member record, a new
//     group epoch and the target assignment are written; the partitions it
//     is given are still owned, so it waits for them. One fresh group per
//     op.
//   - leave: a STABLE member leaves (epoch -1): its records are tombstoned
//     and the group epoch bumped. One fresh group per op.
//   - rebalance-8: a ninth member joins a STABLE group of 8, then every
//     member heartbeats with what it owns, round after round, until a round
//     changes nothing (the last round is 9 steady heartbeats): the whole
//     rebalance, revocations included. One fresh group per op.
func RunConsumer(b *testing.B, newBackend func(b *testing.B) Backend) {
	runSteady(b, newBackend, consumerBeats)
	b.Run("rebalance-revoke", func(b *testing.B) {
		be := newBackend(b)
		groups := StableGroups(b, be, shard.Consumer, "revoke-group", b.N, 3)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			be.Advance()
			m := groups[i][0]
			resp, err := be.ConsumerHeartbeat(shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent,
				GroupID: m.Group, MemberID: m.ID, MemberEpoch: m.Epoch, SubscribedTopicNames: m.Keeps,
			})
			if err != nil || resp.MemberEpoch != m.Epoch {
				b.Fatalf("heartbeat of %s/%s: %+v, %v", m.Group, m.ID, resp, err)
			}
		}
		b.StopTimer()
		// Every op must have asked for a revocation: check the last.
		m := groups[b.N-1][0]
		d, _ := be.Describe(m.Group)
		for _, dm := range d.Members {
			if dm.MemberID == m.ID && (dm.State != shard.MemberUnrevokedPartitions || len(dm.PartitionsPendingRevocation) == 0) {
				b.Fatalf("member %s/%s is %s with %v pending revocation, want UNREVOKED_PARTITIONS", m.Group, m.ID, dm.State, dm.PartitionsPendingRevocation)
			}
		}
	})

	runJoin(b, newBackend, consumerBeats)
	runLeave(b, newBackend, consumerBeats)
	b.Run(fmt.Sprintf("rebalance-%d", RebalanceSize), func(b *testing.B) {
		runRebalance(b, newBackend(b), shard.Consumer, ConsumerBeat)
	})
}

// RunStreams runs BenchmarkStreamsGroupHeartbeat's cases: RunConsumer's
// steady, join, leave and rebalance-8 for streams groups of processes of
// one member each, on Topology (12 active tasks; no standby replicas). The
// backend must not delay a new group's first assignment
// (group.streams.initial.rebalance.delay.ms 0), so that the groups settle
// without a timer.
func RunStreams(b *testing.B, newBackend func(b *testing.B) Backend) {
	runSteady(b, newBackend, streamsBeats)
	runJoin(b, newBackend, streamsBeats)
	runLeave(b, newBackend, streamsBeats)
	b.Run(fmt.Sprintf("rebalance-%d", RebalanceSize), func(b *testing.B) {
		runRebalance(b, newBackend(b), shard.Streams, StreamsBeat)
	})
}

// beats is what the cases both group types share need of one: its
// request and response types, how to send one and read the epoch it
// answers, and the name word of its groups ("group", "app").
type beats[Req, Resp any] struct {
	typ   shard.GroupType
	noun  string
	send  func(Backend, Req) (Resp, error)
	epoch func(Resp) int32
	// at is m's heartbeat at epoch with nothing else to say (-1: a leave).
	at   func(m *Member, epoch int32) Req
	join func(group, id string) Req
}

var consumerBeats = beats[shard.ConsumerGroupHeartbeatRequest, shard.ConsumerGroupHeartbeatResponse]{
	typ: shard.Consumer, noun: "group", send: Backend.ConsumerHeartbeat, join: ConsumerJoin,
	epoch: func(r shard.ConsumerGroupHeartbeatResponse) int32 { return r.MemberEpoch },
	at: func(m *Member, epoch int32) shard.ConsumerGroupHeartbeatRequest {
		return shard.ConsumerGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: m.Group, MemberID: m.ID, MemberEpoch: epoch}
	},
}

var streamsBeats = beats[shard.StreamsGroupHeartbeatRequest, shard.StreamsGroupHeartbeatResponse]{
	typ: shard.Streams, noun: "app", send: Backend.StreamsHeartbeat, join: StreamsJoin,
	epoch: func(r shard.StreamsGroupHeartbeatResponse) int32 { return r.MemberEpoch },
	at: func(m *Member, epoch int32) shard.StreamsGroupHeartbeatRequest {
		return shard.StreamsGroupHeartbeatRequest{RebalanceTimeoutMs: shard.RebalanceTimeoutNotSent, GroupID: m.Group, MemberID: m.ID, MemberEpoch: epoch, Version: 1}
	},
}

// runSteady is the steady case of either group type.
func runSteady[Req, Resp any](b *testing.B, newBackend func(b *testing.B) Backend, k beats[Req, Resp]) {
	b.Run("steady", func(b *testing.B) {
		be := newBackend(b)
		var members []*Member
		var reqs []Req
		for _, g := range StableGroups(b, be, k.typ, "steady-"+k.noun, 1000, 3) {
			for _, m := range g {
				members, reqs = append(members, m), append(reqs, k.at(m, m.Epoch))
			}
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			be.Advance()
			m := members[i%len(members)]
			resp, err := k.send(be, reqs[i%len(reqs)])
			if err != nil || k.epoch(resp) != m.Epoch {
				b.Fatalf("steady heartbeat of %s/%s: %+v, %v", m.Group, m.ID, resp, err)
			}
		}
	})
}

// runJoin is the join case of either group type.
func runJoin[Req, Resp any](b *testing.B, newBackend func(b *testing.B) Backend, k beats[Req, Resp]) {
	b.Run("join", func(b *testing.B) {
		be := newBackend(b)
		groups := StableGroups(b, be, k.typ, "join-"+k.noun, b.N, 3)
		reqs := make([]Req, b.N)
		for i := range reqs {
			reqs[i] = k.join(groups[i][0].Group, memberID(i, 3))
		}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			be.Advance()
			if _, err := k.send(be, reqs[i]); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// runLeave is the leave case of either group type.
func runLeave[Req, Resp any](b *testing.B, newBackend func(b *testing.B) Backend, k beats[Req, Resp]) {
	b.Run("leave", func(b *testing.B) {
		be := newBackend(b)
		groups := StableGroups(b, be, k.typ, "leave-"+k.noun, b.N, 3)
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			be.Advance()
			m := groups[i][0]
			resp, err := k.send(be, k.at(m, -1))
			if err != nil || k.epoch(resp) != -1 {
				b.Fatalf("leave of %s/%s: %+v, %v", m.Group, m.ID, resp, err)
			}
		}
	})
}

// runRebalance is the rebalance-8 case of either group type.
func runRebalance(b *testing.B, be Backend, typ shard.GroupType, beat func(Backend, *Member) (bool, error)) {
	prefix := "rebalance-group"
	if typ == shard.Streams {
		prefix = "rebalance-app"
	}
	groups := StableGroups(b, be, typ, prefix, b.N, RebalanceSize)
	for i, g := range groups {
		groups[i] = append(g, &Member{Group: g[0].Group, ID: memberID(i, RebalanceSize)})
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		be.Advance()
		g := groups[i]
		if err := Join(be, typ, g[RebalanceSize]); err != nil {
			b.Fatal(err)
		}
		if err := Settle(be, g, beat); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	ExpectStable(b, be, groups[b.N-1][0].Group)
	// The newcomer must have been given its share.
	if last := groups[b.N-1][RebalanceSize]; len(last.Owned)+len(last.Tasks) == 0 {
		b.Fatalf("member %s/%s owns nothing after the rebalance", last.Group, last.ID)
	}
}
