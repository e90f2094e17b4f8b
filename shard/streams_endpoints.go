package shard

import (
	"slices"
	"sort"
	"strings"
)

// Streams endpoint information (KIP-1071 interactive queries): each member
// may name its user endpoint (application.server), kept on its member
// metadata record, and the heartbeat tells members which source-topic
// partitions each endpoint serves, so KafkaStreams.metadataForAllStreamsClients
// can route a query. Kafka's GroupMetadataManager.streamsGroupHeartbeat:
//
//	if (hasUserEndpointChanged(member, updatedMember) ||
//	    hasAssignedTasksChanged(member, updatedMember) && updatedMember.userEndpoint().isPresent())
//	    bump the group's endpointInformationEpoch
//
// (a join sets the endpoint as sent, null clearing it; a heartbeat keeps it
// when it sends none).
//	if (group.endpointInformationEpoch() != memberEndpointEpoch) → PartitionsByUserEndpoint
//	if the group existed before the heartbeat → EndpointInformationEpoch = the group's
//
// The group's endpoint information epoch is soft state in Kafka
// (StreamsGroup.endpointInformationEpoch, a plain int starting at 0: not
// written to the log, not rolled back, lost on failover). The shard writes
// nothing for it either and changes nothing outside replay, so the
// coordinator keeps it per hosted partition and hands it in
// (StreamsGroupHeartbeatRequest.GroupEndpointInformationEpoch) and back
// (StreamsGroupHeartbeatResponse.GroupEndpointInformationEpoch).

// EndpointPartitions is one endpoint's partitions, Kafka's
// StreamsGroupHeartbeatResponseData.EndpointToPartitions: the source and
// repartition-source topic partitions of the member's active tasks and of
// its standby tasks (warm-up tasks are not listed).
type EndpointPartitions struct {
	UserEndpoint      Endpoint
	ActivePartitions  []TopicPartitions
	StandbyPartitions []TopicPartitions
}

// InitialEndpointInformationEpoch is Kafka 4.4's initial
// StreamsGroup.endpointInformationEpoch (its constructor sets 0), the
// group's epoch before any bump and after every load. A member that joins
// a new group with a user endpoint bumps it to 1 and, knowing 0, hears
// the endpoints in its first answer.
const InitialEndpointInformationEpoch int32 = 0

// streamsEndpointInformation fills the endpoint fields of a streams
// heartbeat's response from its outcome: the group's epoch after the
// heartbeat (bumped when the member's endpoint changed, or its tasks
// changed and it has an endpoint: Kafka 4.4's hasUserEndpointChanged ||
// hasAssignedTasksChanged && userEndpoint.isPresent, against the member
// before the heartbeat, an empty one for a new member), and the endpoints'
// partitions when the member's known epoch differs from the group's.
func (s *Shard) streamsEndpointInformation(req *StreamsGroupHeartbeatRequest, out *heartbeatResult, resp *StreamsGroupHeartbeatResponse) {
	if req.MemberEpoch < 0 {
		// A leave answers only the member id and epoch (streamsGroupLeave).
		resp.GroupEndpointInformationEpoch = req.GroupEndpointInformationEpoch
		return
	}
	v := out.view
	existed := v.g != nil
	epoch := InitialEndpointInformationEpoch
	if existed {
		epoch = req.GroupEndpointInformationEpoch
	}
	updated := v.endpointMember(req.MemberID)
	var old *member
	if existed {
		old = v.g.members[req.MemberID]
	}
	if old == nil {
		// A static member's replacement starts as a copy of the member it
		// replaces: its endpoint and tasks are not new.
		old = out.replacedStatic
	}
	if updated != nil && (!sameEndpoint(endpointOf(old), updated.userEndpoint()) || updated.userEndpoint() != nil && tasksChanged(old, updated)) {
		epoch++
	}
	if epoch != req.EndpointInformationEpoch {
		resp.PartitionsByUserEndpoint = []EndpointPartitions{}
		if v.anyEndpoint() {
			others, _ := v.endpointMembers(req.MemberID)
			resp.PartitionsByUserEndpoint = s.endpointToPartitions(v.topo, others, updated)
		}
	}
	// "If we just created the group, the endpoint information epoch will
	// not be persisted, so return epoch 0": Kafka's new group object,
	// which replay replaces, forgets the bump.
	resp.GroupEndpointInformationEpoch = InitialEndpointInformationEpoch
	if existed {
		resp.EndpointInformationEpoch, resp.GroupEndpointInformationEpoch = epoch, epoch
	}
}

// endpointMember is the heartbeating member after the heartbeat, nil when
// it is not in the group.
func (v *view) endpointMember(memberID string) *member {
	if v.members == nil && v.g != nil {
		return v.g.members[memberID]
	}
	_, m := v.find(memberID)
	return m
}

// anyEndpoint reports whether a member has a user endpoint: most groups
// have none, and their heartbeats then build nothing.
func (v *view) anyEndpoint() bool {
	if v.members == nil && v.g != nil {
		for _, m := range v.g.members {
			if m.userEndpoint() != nil {
				return true
			}
		}
		return false
	}
	for _, m := range v.members {
		if m.userEndpoint() != nil {
			return true
		}
	}
	return false
}

// endpointMembers returns the group's members after the heartbeat in id
// order, without the heartbeating member, and that member (nil when it is
// not in the group). The steady path's view has no member list: it reads
// the stored group, which that heartbeat does not change.
func (v *view) endpointMembers(memberID string) (others []*member, updated *member) {
	if v.members == nil && v.g != nil {
		for _, id := range v.g.sortedMemberIDs() {
			if m := v.g.members[id]; id == memberID {
				updated = m
			} else {
				others = append(others, m)
			}
		}
		return others, updated
	}
	for _, m := range v.members {
		if m.id == memberID {
			updated = m
		} else {
			others = append(others, m)
		}
	}
	return others, updated
}

// endpointToPartitions is Kafka's maybeBuildEndpointToPartitions: an entry
// for each member with an endpoint, the others first (Kafka: the group's
// map order; here by member id), the heartbeating member last. Never nil,
// as Kafka's list is not.
func (s *Shard) endpointToPartitions(topo *Topology, others []*member, updated *member) []EndpointPartitions {
	out := []EndpointPartitions{}
	// Configured once for every member: a topology that is not ready is
	// configured afresh, which allocates.
	if topo != nil && !s.topologyConfigured(topo) {
		topo = nil
	}
	add := func(m *member) {
		if m == nil || m.userEndpoint() == nil {
			return
		}
		out = append(out, EndpointPartitions{
			UserEndpoint:      *m.userEndpoint(),
			ActivePartitions:  s.taskSourcePartitions(topo, m.assigned),
			StandbyPartitions: s.taskSourcePartitions(topo, m.streamsPart().standby),
		})
	}
	for _, m := range others {
		add(m)
	}
	add(updated)
	return out
}

// taskSourcePartitions is EndpointToPartitionsManager.topicPartitions: for
// each subtopology of the tasks, each of its source and repartition-source
// topics with the task ids as partitions, those below the topic's partition
// count only (topicPartitionListForTask filters id < partitionCount), a
// topic left with none omitted. Topics are in name order. The caller
// passes a topology with configured subtopologies (topologyConfigured),
// nil otherwise; one whose internal topics are still missing has them
// (InternalTopicManager.configureTopics configures them before it looks
// for missing ones). Where Kafka would throw (a topology without
// configured subtopologies, a subtopology the topology lacks, a topic
// missing from the image) the tasks are left out.
func (s *Shard) taskSourcePartitions(topo *Topology, tasks []TopicPartitions) []TopicPartitions {
	out := []TopicPartitions{}
	if topo == nil || len(tasks) == 0 {
		return out
	}
	for _, t := range tasks {
		j := slices.IndexFunc(topo.Subtopologies, func(st Subtopology) bool { return st.ID == t.Topic })
		if j < 0 || len(t.Partitions) == 0 {
			continue
		}
		st := &topo.Subtopologies[j]
		topics := append(slices.Clone(st.SourceTopics), st.RepartitionSourceTopicNames()...)
		slices.Sort(topics)
		topics = slices.Compact(topics)
		ids := slices.Clone(t.Partitions)
		slices.Sort(ids)
		for _, topic := range topics {
			n := s.TopicPartitions(topic)
			if n <= 0 {
				continue
			}
			// ids is sorted: the ones below the count are a prefix.
			parts := ids[:sort.Search(len(ids), func(k int) bool { return ids[k] >= n })]
			if len(parts) == 0 {
				continue
			}
			out = append(out, TopicPartitions{Topic: topic, Partitions: slices.Clone(parts)})
		}
	}
	slices.SortStableFunc(out, func(a, b TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
	return out
}

// topologyConfigured reports whether configuring t over the image yields
// subtopologies (Kafka's ConfiguredTopology.subtopologies is present):
// every source topic exists and the internal topics' partition counts are
// decided, whether or not those topics exist yet.
func (s *Shard) topologyConfigured(t *Topology) bool {
	if s.topologyReady(t) {
		return true
	}
	c, err := configureTopics(t, s.TopicPartitions)
	return err == nil && c.subtopologies != nil
}

// endpointOf is a member's endpoint, nil for no member.
func endpointOf(m *member) *Endpoint {
	if m == nil {
		return nil
	}
	return m.userEndpoint()
}

// tasksChanged is Kafka's StreamsGroupMember.hasAssignedTasksChanged: the
// member's active, standby or warm-up tasks differ from before (a new
// member had none).
func tasksChanged(old, updated *member) bool {
	if old == nil {
		return len(updated.assigned)+len(updated.streamsPart().standby)+len(updated.streamsPart().warmup) > 0
	}
	return !equalAssignment(old.assigned, updated.assigned) || !equalAssignment(old.streamsPart().standby, updated.streamsPart().standby) ||
		!equalAssignment(old.streamsPart().warmup, updated.streamsPart().warmup)
}
