package sim

import (
	"fmt"
	"slices"
	"time"

	"github.com/coordsim/coordsim/shard"
)

// The simulated KIP-848 consumer's side of reconciliation, as Kafka's
// ConsumerMembershipManager runs it (and, for a Kafka Streams instance's
// active tasks, StreamsMembershipManager): on a new assignment the client first
// revokes what it lost (commits their offsets, runs onPartitionsRevoked),
// and only then takes what it gained; its next heartbeat's owned
// partitions acknowledge the revocation. A fence loses every partition
// (onPartitionsLost) before the rejoin. A close commits what the member
// owns before its leave heartbeat (consumerClose); a crash does not.

// revokeLatencyMax bounds how long a client spends in onPartitionsRevoked
// (committing the revoked partitions) before it lets them go.
const revokeLatencyMax = time.Second

// revokeStall is how long a hung revocation callback holds its partitions:
// longer than the sim consumers' rebalance timeout (300 s), so the
// coordinator's rebalance timer fences the member first.
const revokeStall = 6 * time.Minute

// consumerAssign applies an assignment from a heartbeat response.
func (w *world) consumerAssign(m *simMember, next []shard.TopicPartitions) {
	m.target = next
	if m.revoking {
		return // the revocation in progress applies the latest target when done
	}
	revoked := minusPartitions(m.assigned, next)
	if len(revoked) == 0 {
		added := minusPartitions(next, m.assigned)
		m.assigned = next
		w.checkOneOwner(m, added)
		w.markRackMatched(m)
		if m.g.typ == shard.Streams {
			w.onActiveTaken(m, added)
			w.checkStandbyApart(m)
		}
		return
	}
	m.revoking = true
	if m.g.typ == shard.Streams {
		w.mark("task-revocation")
	}
	gen := m.gen
	delay := w.eng.uniform(0, revokeLatencyMax)
	if w.heartbeatLost() {
		// A revocation callback that hangs (blocked on I/O): the client
		// keeps heartbeating without acknowledging.
		delay, m.stalled = revokeStall, true
		w.mark("revocation-stalled")
	}
	w.commitPartitions(m, revoked)
	w.eng.after(delay, func() {
		if m.gen != gen || m.gone {
			return // fenced or gone meanwhile: the partitions were lost
		}
		m.revoking, m.stalled = false, false
		m.assigned = minusPartitions(m.assigned, revoked)
		w.client(tTask, m.g.id, m.id, fmt.Sprintf("revoked %s", shard.FormatAssignment(revoked)))
		w.consumerAssign(m, m.target)
	})
}

// consumerLost is onPartitionsLost: a fenced member drops everything.
func (w *world) consumerLost(m *simMember) {
	if m.stalled {
		w.mark("rebalance-timeout-fenced")
	}
	m.assigned, m.target, m.revoking, m.stalled = nil, nil, false, false
	m.standby, m.warmup = nil, nil
	m.gen++
}

// consumerClose is the KIP-848 consumer's close before its leave
// heartbeat, as Kafka's AsyncKafkaConsumer.close runs autoCommitOnClose
// (every consumed position) and runRebalanceCallbacksOnClose
// (onPartitionsRevoked for everything it owns) before leaveGroupOnClose:
// one commit of every owned partition at the member's current epoch, which
// the coordinator accepts while the member is in the group at that epoch.
// The classic consumer does the same before its LeaveGroup (classicLeave).
// The commit and the leave are sent in one event, commit first, and the
// coordinator runs them in that order: the commit never meets a member that
// already left.
func (w *world) consumerClose(m *simMember) {
	if len(m.assigned) > 0 {
		w.commitPartitions(m, m.assigned)
	}
}

// commitPartitions commits the client's position of partitions it is about
// to revoke, at its current epoch (the coordinator accepts it: the member
// keeps its epoch until it acknowledges).
func (w *world) commitPartitions(m *simMember, tps []shard.TopicPartitions) {
	w.costs.stop(m, tps, w.nowMs()) // it fetches them no more (pending revocation)
	var parts []shard.OffsetCommitPartition
	for _, tp := range tps {
		if m.g.typ != shard.Streams && tp.Topic != m.g.topic {
			continue // (a streams task commits the partition of the group's topic it reads)
		}
		for _, p := range tp.Partitions {
			parts = append(parts, shard.OffsetCommitPartition{Partition: p, Offset: m.offset, LeaderEpoch: -1})
		}
	}
	if len(parts) == 0 || m.epoch <= 0 {
		return
	}
	b := w.route(m.g.id)
	if b < 0 {
		return
	}
	// Not traced: the response that asked for the revocation may arrive in
	// a poll with others, and the trace keeps at most one line per event.
	w.touch(b)
	cost := w.costs.commitSent(m.g, m.id, parts, w.nowMs())
	w.brokers[b].c.CommitOffsets(shard.OffsetCommitRequest{
		GroupID: m.g.id, MemberID: m.id, MemberEpoch: m.epoch, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: m.g.topic, Partitions: parts}},
	}).OnDone(func(r shard.OffsetCommitResponse, err error) {
		if err == nil {
			w.res.OffsetCommits += int64(r.Committed)
		}
		cost.done(r, err)
	})
}

// minusPartitions returns the partitions of a not in b, sorted as a is.
func minusPartitions(a, b []shard.TopicPartitions) []shard.TopicPartitions {
	var out []shard.TopicPartitions
	for _, tp := range a {
		var keep []int32
		for _, p := range tp.Partitions {
			if !holds(b, tp.Topic, p) {
				keep = append(keep, p)
			}
		}
		if len(keep) > 0 {
			out = append(out, shard.TopicPartitions{Topic: tp.Topic, Partitions: keep})
		}
	}
	return out
}

func holds(a []shard.TopicPartitions, topic string, p int32) bool {
	for _, tp := range a {
		if tp.Topic == topic {
			return slices.Contains(tp.Partitions, p)
		}
	}
	return false
}
