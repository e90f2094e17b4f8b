package sim

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The simulated classic consumer: Kafka's ConsumerCoordinator speaking
// JoinGroup, SyncGroup, Heartbeat and LeaveGroup, with the embedded
// consumer protocol as its metadata and assignments. The group's leader
// computes the assignment on the client (classic_assignor.go). Its
// rebalance protocol decides what it holds while it rejoins:
//
//   - eager (range): onPartitionsRevoked for everything before each
//     JoinGroup, so it holds nothing during a rebalance;
//   - cooperative (cooperative-sticky): it keeps its partitions, names them
//     as owned in its subscription, revokes only what the new assignment
//     takes away, and rejoins at once when it revoked any (the second
//     round, which hands the revoked partitions to their new owners).
//
// A fence (UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION) loses everything
// (onPartitionsLost). What it holds is checked by the one-owner invariant
// on every take, as the KIP-848 consumer's holdings are
// (consumer_actor.go): in a classic group and, after an online upgrade, as
// a classic member of a consumer group.

// classicClient is a classic consumer's protocol state.
type classicClient struct {
	cooperative bool
	known       bool  // the coordinator gave the member its id (KIP-394)
	generation  int32 // -1: none
	// req numbers the requests: the answer to one sent before the latest
	// (a JoinGroup the client gave up on) is dropped, as the client has
	// closed that request.
	req int
}

const (
	// classicSessionTimeout, classicRebalanceTimeout and
	// classicHeartbeatInterval are the consumer's defaults
	// (session.timeout.ms, max.poll.interval.ms, heartbeat.interval.ms).
	classicSessionTimeout    = 45 * time.Second
	classicRebalanceTimeout  = 5 * time.Minute
	classicHeartbeatInterval = 3 * time.Second
	// classicJoinTimeout is the JoinGroup request timeout the consumer
	// uses: the rebalance timeout plus five seconds.
	classicJoinTimeout = classicRebalanceTimeout + 5*time.Second
)

// protocolName is the member's one assignor.
func (c *classicClient) protocolName() string {
	if c.cooperative {
		return "cooperative-sticky"
	}
	return "range"
}

// classicJoin sends a JoinGroup: the start of every rebalance the client
// takes part in.
func (w *world) classicJoin(m *simMember) {
	if m.gone {
		return
	}
	c := m.classic
	m.loop++ // the old heartbeat loop stops
	if !c.cooperative && len(m.assigned) > 0 {
		w.commitPartitions(m, m.assigned)
		m.assigned = nil
		w.mark("classic-eager-release")
	}
	b := w.route(m.g.id)
	w.client(tJoin, m.g.id, m.id, "classic "+c.protocolName())
	if b < 0 {
		w.eng.after(retryBackoff, w.inLoop(m, func() { w.classicJoin(m) }))
		return
	}
	req := w.classicRequest(m, classicJoinTimeout)
	memberID := ""
	if c.known {
		memberID = m.id
	}
	w.touch(b)
	w.brokers[b].c.JoinGroup(shard.JoinGroupRequest{
		GroupID: m.g.id, MemberID: memberID, ClientID: "sim", ClientHost: "/sim",
		SessionTimeoutMs: int32(classicSessionTimeout.Milliseconds()), RebalanceTimeoutMs: int32(classicRebalanceTimeout.Milliseconds()),
		ProtocolType: shard.ConsumerProtocolType, RequireKnownMemberID: true,
		Protocols: []shard.ClassicProtocol{{Name: c.protocolName(), Metadata: w.classicSubscription(m)}},
	}).OnDone(func(r shard.JoinGroupResponse, err error) {
		if !w.classicCurrent(m, req) {
			return
		}
		if err == nil {
			err = r.Err
		}
		switch kerr.As(err) {
		case nil:
		case kerr.MemberIDRequired:
			m.id, c.known = r.MemberID, true
			w.classicJoin(m)
			return
		default:
			w.classicFailed(m, err)
			return
		}
		m.id, c.known, c.generation = r.MemberID, true, r.GenerationID
		var assignments []shard.SyncGroupAssignment
		if r.Leader == m.id && !r.SkipAssignment {
			assignments = w.classicAssign(m, r.Members)
		}
		w.classicSync(m, r.ProtocolName, assignments)
	})
}

// classicSync sends the SyncGroup of the generation just joined; the
// leader's carries everyone's assignment.
func (w *world) classicSync(m *simMember, protocol string, assignments []shard.SyncGroupAssignment) {
	c := m.classic
	b := w.route(m.g.id)
	if b < 0 {
		w.eng.after(retryBackoff, w.inLoop(m, func() { w.classicJoin(m) }))
		return
	}
	req := w.classicRequest(m, classicJoinTimeout)
	w.touch(b)
	w.brokers[b].c.SyncGroup(shard.SyncGroupRequest{
		GroupID: m.g.id, MemberID: m.id, GenerationID: c.generation,
		ProtocolType: shard.ConsumerProtocolType, ProtocolName: protocol, Assignments: assignments,
	}).OnDone(func(r shard.SyncGroupResponse, err error) {
		if !w.classicCurrent(m, req) {
			return
		}
		if err == nil {
			err = r.Err
		}
		if err != nil {
			w.classicFailed(m, err)
			return
		}
		w.classicAssigned(m, decodeClassicAssignment(r.Assignment, m.g.topic))
	})
}

// classicAssigned is onJoinComplete: revoke what the assignment took away,
// take what it added, and start (or go on) heartbeating and committing.
func (w *world) classicAssigned(m *simMember, next []shard.TopicPartitions) {
	c := m.classic
	m.epoch = c.generation // commits carry the generation
	revoked := minusPartitions(m.assigned, next)
	added := minusPartitions(next, m.assigned)
	if len(revoked) > 0 {
		w.commitPartitions(m, revoked)
	}
	m.assigned = next
	w.check.forgetUpgradeHole(m) // the coordinator knows what it holds now
	w.checkOneOwner(m, added)
	if first := !m.joined; first {
		m.joined = true
		w.eng.after(w.eng.uniform(0, w.opts.Workload.CommitInterval), func() { w.commitLoop(m) })
	}
	if len(revoked) > 0 && c.cooperative {
		// The revoked partitions go to their new owners in a second round.
		w.mark("classic-cooperative-second-round")
		w.classicJoin(m)
		return
	}
	w.eng.after(classicHeartbeatInterval, w.inLoop(m, func() { w.classicHeartbeat(m) }))
}

// classicHeartbeat keeps the session alive and learns of rebalances.
func (w *world) classicHeartbeat(m *simMember) {
	if m.gone {
		return
	}
	next := w.inLoop(m, func() { w.classicHeartbeat(m) })
	if w.heartbeatLost() {
		w.mark("heartbeat-lost")
		w.eng.after(classicHeartbeatInterval, next)
		return
	}
	b := w.route(m.g.id)
	if b < 0 {
		w.eng.after(retryBackoff, next)
		return
	}
	w.client(tHeartbeat, m.g.id, m.id, "classic")
	loop, id, sentMs := m.loop, m.id, w.nowMs()
	w.touch(b)
	w.brokers[b].c.Heartbeat(shard.HeartbeatRequest{GroupID: m.g.id, MemberID: m.id, GenerationID: m.classic.generation}).
		OnDone(func(_ struct{}, err error) {
			if err == nil {
				// Accepted: the member's session restarts (14), whatever
				// the client does with the answer.
				w.check.onClassicHeartbeatAccepted(m.g.id, id, sentMs, classicSessionTimeout.Milliseconds())
			}
			if m.gone || m.loop != loop {
				return
			}
			switch kerr.As(err) {
			case nil:
				w.eng.after(classicHeartbeatInterval, next)
			case kerr.RebalanceInProgress, kerr.UnknownMemberID, kerr.IllegalGeneration:
				w.classicFailed(m, err)
			default: // the coordinator moved or is loading
				w.eng.after(retryBackoff, next)
			}
		})
}

// classicFailed reacts to a failed JoinGroup, SyncGroup or Heartbeat: a
// rebalance rejoins at once; a fence loses everything first; anything else
// (the coordinator moved, is loading) retries the join after a backoff.
func (w *world) classicFailed(m *simMember, err error) {
	w.client(tResponse, m.g.id, m.id, kerr.Name(err))
	switch kerr.As(err) {
	case kerr.RebalanceInProgress:
		w.mark("classic-rebalance")
		w.classicJoin(m)
	case kerr.UnknownMemberID, kerr.IllegalGeneration, kerr.FencedInstanceID:
		w.mark("classic-fenced-rejoin")
		if kerr.As(err) == kerr.UnknownMemberID {
			m.classic.known = false // the coordinator forgot it: join anew
		}
		w.classicLost(m)
		m.loop++
		w.eng.after(retryBackoff, w.inLoop(m, func() { w.classicJoin(m) }))
	default:
		m.loop++
		w.eng.after(retryBackoff, w.inLoop(m, func() { w.classicJoin(m) }))
	}
}

// classicLost is onPartitionsLost.
func (w *world) classicLost(m *simMember) {
	w.check.forgetUpgradeHole(m)
	m.assigned, m.classic.generation, m.epoch = nil, -1, -1
	m.gen++
}

// classicLeave is the consumer's close: it revokes what it holds
// (committing it) and sends LeaveGroup.
func (w *world) classicLeave(m *simMember) {
	m.gone = true
	if len(m.assigned) > 0 {
		w.commitPartitions(m, m.assigned)
		m.assigned = nil
	}
	b := w.route(m.g.id)
	w.client(tLeave, m.g.id, m.id, "classic")
	if b < 0 || !m.classic.known {
		return // the session timeout will remove it
	}
	w.touch(b)
	w.brokers[b].c.LeaveGroup(shard.LeaveGroupRequest{GroupID: m.g.id, Members: []shard.LeaveGroupMember{{MemberID: m.id}}})
}

// stop closes a member whatever protocol it speaks.
func (w *world) stop(m *simMember) {
	if m.classic != nil {
		w.classicLeave(m)
		return
	}
	w.leave(m)
}

// classicRequest numbers a request and gives up on it after timeout: the
// client then rejoins.
func (w *world) classicRequest(m *simMember, timeout time.Duration) int {
	c := m.classic
	c.req++
	req, loop := c.req, m.loop
	w.eng.after(timeout, func() {
		if c.req == req && m.loop == loop && !m.gone {
			w.mark("classic-request-timeout")
			w.classicJoin(m)
		}
	})
	return req
}

// classicCurrent reports whether an answer is to the member's latest
// request.
func (w *world) classicCurrent(m *simMember, req int) bool {
	if m.gone || m.classic.req != req {
		return false
	}
	m.classic.req++ // answered: the timeout no longer applies
	return true
}

// classicSubscription is the member's ConsumerProtocolSubscription: its
// topic and, for a cooperative member, what it owns.
func (w *world) classicSubscription(m *simMember) []byte {
	s := kmsg.NewConsumerMemberMetadata()
	s.Version = 3
	s.Topics = []string{m.g.topic}
	s.Generation = m.classic.generation
	if m.rack != "" {
		rack := m.rack
		s.Rack = &rack
	}
	if m.classic.cooperative {
		for _, tp := range m.assigned {
			s.OwnedPartitions = append(s.OwnedPartitions, kmsg.ConsumerMemberMetadataOwnedPartition{Topic: tp.Topic, Partitions: tp.Partitions})
		}
	}
	return s.AppendTo(nil)
}

// decodeClassicAssignment reads a SyncGroup assignment's partitions of
// topic; a malformed one is empty.
func decodeClassicAssignment(b []byte, topic string) []shard.TopicPartitions {
	if len(b) == 0 {
		return nil
	}
	var a kmsg.ConsumerMemberAssignment
	if a.ReadFrom(b) != nil {
		return nil
	}
	var ps []int32
	for _, t := range a.Topics {
		if t.Topic == topic {
			ps = append(ps, t.Partitions...)
		}
	}
	if len(ps) == 0 {
		return nil
	}
	return []shard.TopicPartitions{{Topic: topic, Partitions: sortedPartitions(ps)}}
}
