package shard

import (
	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/kerr"
	"slices"
)

// The consumer-group target assignment through the broker's server
// assignors (package assignor): Kafka's GroupMetadataManager.
// updateTargetAssignment with TargetAssignmentBuilder, and the
// ServerAssignor checks of GroupCoordinatorService.
// throwIfConsumerGroupHeartbeatRequestIsInvalid.

// consumerAssignors returns group.consumer.assignors.
func (s *Shard) consumerAssignors() *assignor.Registry {
	if s.cfg.ConsumerAssignors != nil {
		return s.cfg.ConsumerAssignors
	}
	return defaultAssignors
}

var defaultAssignors = assignor.Default() // immutable

// assignorChange is the one member's server assignor name before and
// after the operation (a member that keeps its name has old == new), the
// input of Kafka's computePreferredServerAssignor(member, updatedMember).
type assignorChange struct {
	old, new string
	set      bool // by an operation that computes with it
}

// storedAssignorNames is the server assignor each member of the group
// names as stored, before this operation: Kafka's
// ConsumerGroup.serverAssignors counts.
func (v *view) storedAssignorNames() []string {
	if v.g == nil {
		return nil
	}
	names := make([]string, 0, len(v.g.members))
	for _, m := range v.g.members { // counted: the order is not read
		names = append(names, m.consumerPart().serverAssignor)
	}
	return names
}

// preferredAssignor is the server assignor the target is computed with:
// computePreferredServerAssignor over the stored counts and the
// operation's member change, else the broker's default.
func (v *view) preferredAssignor() assignor.Assignor {
	r := v.s.consumerAssignors()
	if c := v.assignorChange; c.set {
		return r.PreferredAfter(v.storedAssignorNames(), c.old, c.new)
	}
	names := make([]string, len(v.members))
	for i, m := range v.members {
		names[i] = m.consumerPart().serverAssignor
	}
	return r.Preferred(names)
}

// preferredAssignorChanged is hasPreferredServerAssignorChanged, which
// Kafka asks on every consumer heartbeat: whether the assignor the stored
// group prefers differs from the one computed with the member's change. On
// a tie between assignors the two can differ although no count changed
// (assignor.Registry.PreferredAfter), and the heartbeat bumps the epoch.
// A group whose stored members name at most one assignor, with the member
// keeping its name, cannot differ, and is not counted again.
func (v *view) preferredAssignorChanged(c assignorChange) bool {
	if c.old == c.new && !v.g.namesSeveralAssignors() {
		return false
	}
	r := v.s.consumerAssignors()
	stored := v.storedAssignorNames()
	return r.Preferred(stored).Name() != r.PreferredAfter(stored, c.old, c.new).Name()
}

// assignConsumer computes the consumer group's new target: the assignor is
// the one most members name (ConsumerGroup.computePreferredServerAssignor,
// ties to the one listed first), else the broker's default. The spec holds
// the topics of the metadata image the members subscribe to (a subscribed
// topic that does not exist is left out, as Kafka's topic-id resolution
// does) and each member's current target for stickiness; homogeneous or
// heterogeneous is decided on the names (subscriptionType). An assignor's
// error is Kafka's "Failed to compute a new target assignment" as
// UNKNOWN_SERVER_ERROR. Targets come back in the view's member order.
func (v *view) assignConsumer() ([][]TopicPartitions, error) {
	spec := assignor.Spec{Members: make([]assignor.Member, len(v.members))}
	// The members' topic and assignment lists share one array each, sized
	// first: a rebalance allocates per list, not per member.
	ntopics, nassigned := 0, 0
	for _, m := range v.members {
		ntopics += len(m.subscribedTopics) + len(m.consumerPart().regexTopics)
		nassigned += len(m.target)
	}
	topicBuf := make([]string, 0, ntopics)
	spec.Topics = make([]assignor.Topic, 0, min(ntopics, len(v.s.topics)))
	assignedBuf := make([]assignor.TopicPartitions, 0, nassigned)
	seen := map[string]bool{} // looked up only; Topics is built in member order
	for i, m := range v.members {
		// The instance id orders static members first in range, so a static
		// member that rejoins under a new member id keeps its ranges.
		am := assignor.Member{ID: m.id, InstanceID: m.instanceID(), Rack: m.rackID}
		from := len(topicBuf)
		for _, t := range m.topics() {
			n := v.s.TopicPartitions(t)
			if n <= 0 {
				continue
			}
			topicBuf = append(topicBuf, t)
			if !seen[t] {
				seen[t] = true
				spec.Topics = append(spec.Topics, assignor.Topic{Name: t, ID: v.s.topicID(t), Partitions: n, Racks: v.s.racks[t]})
			}
		}
		if len(topicBuf) > from {
			am.Topics = topicBuf[from:len(topicBuf):len(topicBuf)]
		}
		from = len(assignedBuf)
		for _, tp := range m.target {
			assignedBuf = append(assignedBuf, assignor.TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
		}
		if len(assignedBuf) > from {
			am.Assignment = assignedBuf[from:len(assignedBuf):len(assignedBuf)]
		}
		spec.Members[i] = am
	}
	spec.SubscriptionType = subscriptionType(v.members)
	target, err := v.preferredAssignor().Assign(&spec)
	if err != nil {
		return nil, kerr.UnknownServerError.WithMessage("Failed to compute a new target assignment for epoch %d: %v", v.epoch, err)
	}
	// The target is sorted by member id, as v.members is: member i's entry
	// is target[i] unless an assignor left members out.
	total := 0
	for _, ma := range target {
		total += len(ma.Partitions)
	}
	buf := make([]TopicPartitions, total)
	out := make([][]TopicPartitions, len(v.members))
	for i, m := range v.members {
		var tps []assignor.TopicPartitions
		if i < len(target) && target[i].MemberID == m.id {
			tps = target[i].Partitions
		} else {
			tps = target.Of(m.id)
		}
		if len(tps) == 0 || len(tps) > len(buf) {
			for _, tp := range tps { // only when the target names a member twice
				out[i] = append(out[i], TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions})
			}
			continue
		}
		mine := buf[:len(tps):len(tps)]
		buf = buf[len(tps):]
		for k, tp := range tps {
			mine[k] = TopicPartitions{Topic: tp.Topic, Partitions: tp.Partitions}
		}
		out[i] = mine
	}
	return out, nil
}

// subscriptionType is Kafka's ConsumerGroup.subscriptionType, decided on
// the names the members subscribe to, names that do not exist counted too.
// Without regular expressions the group is homogeneous when every member
// names the same topics; so a member that also names a missing topic makes
// it heterogeneous although the existing topics every member gets are the
// same, and the heterogeneous builder, which moves whole topics when it
// balances, gives another target than the homogeneous one would. With
// them, it is homogeneous only when every member subscribes to one and the
// same regular expression and no member names a topic: a member with a
// regex and names, or two regexes resolving to the same topics, make it
// heterogeneous.
func subscriptionType(members []*member) assignor.SubscriptionType {
	if len(members) == 0 {
		return assignor.Homogeneous
	}
	regex := members[0].consumerPart().topicRegex
	for _, m := range members {
		if m.consumerPart().topicRegex != "" {
			regex = m.consumerPart().topicRegex
			break
		}
	}
	if regex == "" {
		first := members[0].subscribedTopics
		for _, m := range members[1:] {
			if !slices.Equal(m.subscribedTopics, first) {
				return assignor.Heterogeneous
			}
		}
		return assignor.Homogeneous
	}
	for _, m := range members {
		if m.consumerPart().topicRegex != regex || len(m.subscribedTopics) > 0 {
			return assignor.Heterogeneous
		}
	}
	return assignor.Homogeneous
}
