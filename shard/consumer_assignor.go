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

// preferredAssignor is the server assignor the group's members prefer
// (ConsumerGroup.preferredServerAssignor, else the broker's default).
func (v *view) preferredAssignor() assignor.Assignor {
	names := make([]string, len(v.members))
	for i, m := range v.members {
		names[i] = m.consumerPart().serverAssignor
	}
	return v.s.consumerAssignors().Preferred(names)
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
				spec.Topics = append(spec.Topics, assignor.Topic{Name: t, Partitions: n, Racks: v.s.racks[t]})
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

// subscriptionType is Kafka's ModernGroup.subscriptionType: homogeneous
// when every member subscribes to every topic name any member subscribes to
// (regex-resolved names included), names that do not exist counted too. So
// a member that also names a missing topic makes the group heterogeneous
// although the existing topics every member gets are the same, and the
// heterogeneous builder, which moves whole topics when it balances, gives
// another target than the homogeneous one would.
func subscriptionType(members []*member) assignor.SubscriptionType {
	if len(members) == 0 {
		return assignor.Homogeneous
	}
	first := members[0].topics()
	for _, m := range members[1:] {
		if !slices.Equal(m.topics(), first) {
			return assignor.Heterogeneous
		}
	}
	return assignor.Homogeneous
}
