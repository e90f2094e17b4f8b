package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// StreamsGroupHeartbeat: v0-1 (KIP-1071; v1 is KIP-1331's, whose response
// carries TopologyDescriptionRequired when the coordinator solicits a
// push). The member's topology (its epoch, each subtopology's source and
// repartition-source topics) and its owned active, standby and warm-up
// tasks (null when not sent, which Kafka reads as "still owns what it was
// asked to revoke") go to the coordinator; the member's active, standby and
// warm-up tasks come back. The topology carries repartition and changelog
// topics and copartition groups; the coordinator configures them as Kafka's
// InternalTopicManager does, and the internal topics it finds missing are
// created here after the heartbeat. Kafka's request checks run first
// (streamsHeartbeatInvalid). The member's rack goes through (null is "":
// unchanged); the streams assignor does not read it, Describe shows it. The
// instance id makes the member static: a -2 leave keeps its tasks until its
// session times out or a join with its instance id takes them over. The
// connection's address is the member's client host, as Kafka's
// setClientHost(context.clientAddress()).
// Statuses carry Kafka's detail text; ShutdownApplication goes to the
// coordinator, which answers SHUTDOWN_APPLICATION to every member until the
// group empties (coordinator/streams_shutdown.go). A leave answers as
// GroupMetadataManager.streamsGroupLeave builds it. The user endpoint
// (application.server) and the endpoint information epoch the member knows
// go through; the group's epoch and, when the member's is older, every
// endpoint's partitions come back (KIP-1071 interactive queries;
// shard/streams_endpoints.go). Task offsets and end offsets (null:
// unchanged) are kept per member for StreamsGroupDescribe. Client tags are
// not modelled.

var apiStreamsGroupHeartbeat = api{key: 88, min: 0, max: 1, handle: handleStreamsGroupHeartbeat}

func handleStreamsGroupHeartbeat(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.StreamsGroupHeartbeatRequest)
	resp := req.ResponseKind().(*kmsg.StreamsGroupHeartbeatResponse)
	if err := streamsHeartbeatInvalid(req); err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	sreq := shard.StreamsGroupHeartbeatRequest{
		GroupID: req.Group, MemberID: req.MemberID, MemberEpoch: req.MemberEpoch, ClientID: r.clientID,
		ClientHost: r.conn.host, RebalanceTimeoutMs: req.RebalanceTimeoutMillis, Version: req.Version, RackID: derefOr(req.RackID),
		InstanceID: derefOr(req.InstanceID), ShutdownApplication: req.ShutdownApplication,
	}
	if req.ProcessID != nil {
		sreq.ProcessID = *req.ProcessID
	}
	if e := req.UserEndpoint; e != nil {
		sreq.UserEndpoint = &shard.Endpoint{Host: e.Host, Port: e.Port}
	}
	sreq.EndpointInformationEpoch = req.EndpointInformationEpoch
	sreq.TaskOffsets, sreq.TaskEndOffsets = taskOffsetsFromWire(req.TaskOffsets), taskOffsetsFromWire(req.TaskEndOffsets)
	if t := req.Topology; t != nil {
		sreq.Topology = topologyFromWire(t)
	}
	sreq.ActiveTasks, sreq.StandbyTasks, sreq.WarmupTasks = tasksFromWire(req.ActiveTasks), tasksFromWire(req.StandbyTasks), tasksFromWire(req.WarmupTasks)
	hb, err := r.driver().StreamsGroupHeartbeat(r.ctx, sreq)
	if err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	resp.MemberID, resp.MemberEpoch, resp.HeartbeatIntervalMillis = hb.MemberID, hb.MemberEpoch, hb.HeartbeatIntervalMs
	// Kafka sets Status on every answer, [] when there is none
	// (streamsGroupHeartbeat's response.setStatus(returnedStatus),
	// streamsGroupLeave's setStatus(List.of())): null would tell the client
	// "unchanged", and it would keep a status that has cleared.
	resp.Status = make([]kmsg.StreamsGroupHeartbeatResponseStatus, 0, len(hb.Status))
	if req.MemberEpoch < 0 {
		// GroupMetadataManager.streamsGroupLeave answers the member id, the
		// request's epoch and the empty status list only: the interval, the
		// task offset interval and the recovery lags keep their schema
		// defaults (AcceptableRecoveryLag's is -1).
		resp.MemberEpoch, resp.AcceptableRecoveryLag = req.MemberEpoch, -1
		return resp, nil
	}
	// Kafka 4.4 sets the long (v1+) only: a v0 answer's legacy int stays
	// 0, its schema default.
	resp.AcceptableRecoveryLag = hb.AcceptableRecoveryLag
	resp.TaskOffsetIntervalMillis = hb.TaskOffsetIntervalMs
	resp.TopologyDescriptionRequired = hb.TopologyDescriptionRequired
	for i, s := range hb.Status {
		st := kmsg.NewStreamsGroupHeartbeatResponseStatus()
		st.StatusCode, st.StatusDetail = int8(s), s.String()
		if i < len(hb.StatusDetails) {
			st.StatusDetail = hb.StatusDetails[i]
		}
		resp.Status = append(resp.Status, st)
	}
	if hb.HasAssignment {
		resp.ActiveTasks = tasksToWire(hb.ActiveTasks)
		resp.StandbyTasks, resp.WarmupTasks = tasksToWire(hb.StandbyTasks), tasksToWire(hb.WarmupTasks)
	}
	resp.EndpointInformationEpoch = hb.EndpointInformationEpoch
	resp.PartitionsByUserEndpoint = endpointsToWire(hb.PartitionsByUserEndpoint)
	createInternalTopics(r, hb.InternalTopicsToCreate)
	return resp, nil
}

// describedEndpoint is a member's user endpoint as StreamsGroupDescribe
// shows it (StreamsGroupMember.asStreamsGroupDescribeMember): null for none.
func describedEndpoint(e *shard.Endpoint) *kmsg.StreamsGroupDescribeResponseGroupMemberUserEndpoint {
	if e == nil {
		return nil
	}
	w := kmsg.NewStreamsGroupDescribeResponseGroupMemberUserEndpoint()
	w.Host, w.Port = e.Host, e.Port
	return &w
}

// endpointsToWire encodes PartitionsByUserEndpoint (topics by name, as
// Kafka's StreamsGroupHeartbeatResponseData.TopicPartition has them).
func endpointsToWire(eps []shard.EndpointPartitions) []kmsg.StreamsGroupHeartbeatResponsePartitionsByUserEndpoint {
	if eps == nil {
		return nil
	}
	out := make([]kmsg.StreamsGroupHeartbeatResponsePartitionsByUserEndpoint, 0, len(eps))
	for _, e := range eps {
		w := kmsg.NewStreamsGroupHeartbeatResponsePartitionsByUserEndpoint()
		w.UserEndpoint.Host, w.UserEndpoint.Port = e.UserEndpoint.Host, e.UserEndpoint.Port
		w.ActivePartitions = endpointPartitions[kmsg.StreamsGroupHeartbeatResponsePartitionsByUserEndpointActivePartition](e.ActivePartitions)
		w.StandbyPartitions = endpointPartitions[kmsg.StreamsGroupHeartbeatResponsePartitionsByUserEndpointStandbyPartition](e.StandbyPartitions)
		out = append(out, w)
	}
	return out
}

// wireEndpointPartition is a topic of an endpoint's active or standby
// partitions in a StreamsGroupHeartbeat response (kmsg has one named type
// for each).
type wireEndpointPartition = struct {
	Topic       string
	Partitions  []int32
	UnknownTags kmsg.Tags
}

// endpointPartitions is an endpoint's active or standby partitions: an
// empty list, never null, when it has none.
func endpointPartitions[P ~wireEndpointPartition](tps []shard.TopicPartitions) []P {
	out := make([]P, 0, len(tps))
	for _, tp := range tps {
		out = append(out, P(wireEndpointPartition{Topic: tp.Topic, Partitions: tp.Partitions}))
	}
	return out
}

// createInternalTopics creates the internal topics a streams heartbeat
// found missing (MISSING_INTERNAL_TOPICS), as Kafka's KafkaApis does after
// the heartbeat through AutoTopicCreationManager.createStreamsInternalTopics,
// whatever auto.create.topics.enable says. The data plane takes no topic
// configs and has one replica, so only the names and partition counts
// matter. The member's next heartbeat sees them in the metadata image.
func createInternalTopics(r *request, topics []shard.CreatableTopic) {
	created, locked := false, false
	for _, ct := range topics {
		if _, exists := r.cl.data.lookup(ct.Name); exists || ct.NumPartitions < 1 || ct.NumPartitions > maxTopicPartitions {
			continue
		}
		if !locked { // no deletion interleaves (lockTopics)
			locked = true
			defer r.cl.lockTopics()()
		}
		if _, raced, err := r.cl.data.createTopic(ct.Name, ct.NumPartitions); err != nil {
			r.cl.log.Warn("creating a streams internal topic failed", "topic", ct.Name, "err", err)
		} else if !raced {
			created = true
		}
	}
	if created {
		r.cl.broadcastTopics(r.ctx)
	}
}

// tasksFromWire decodes owned tasks, keeping Kafka's null (nil) apart from
// an empty list.
func tasksFromWire(tasks []kmsg.TaskIDs) []shard.TaskIDs {
	if tasks == nil {
		return nil
	}
	out := make([]shard.TaskIDs, 0, len(tasks))
	for _, t := range tasks {
		out = append(out, shard.TaskIDs{SubtopologyID: t.SubtopologyID, Partitions: t.Partitions})
	}
	return out
}

// topologyFromWire decodes the request's topology into the shard's model
// (Kafka's StreamsCoordinatorRecordHelpers.convertToStreamsGroupTopologyRecord):
// the source, repartition sink, repartition source and state changelog
// topics and the copartition groups. Source topic regexes are not modelled.
func topologyFromWire(t *kmsg.StreamsGroupHeartbeatRequestTopology) *shard.Topology {
	out := &shard.Topology{Epoch: t.Epoch}
	for _, s := range t.Subtopologies {
		sub := shard.Subtopology{
			ID: s.SubtopologyID, SourceTopics: s.SourceTopics, RepartitionSinkTopics: s.RepartitionSinkTopics,
			RepartitionSourceTopics: topicInfosFromWire(s.RepartitionSourceTopics),
			StateChangelogTopics:    topicInfosFromWire(s.StateChangelogTopics),
		}
		for _, cg := range s.CopartitionGroups {
			sub.CopartitionGroups = append(sub.CopartitionGroups, shard.CopartitionGroup{
				SourceTopics: cg.SourceTopics, RepartitionSourceTopics: cg.RepartitionSourceTopics,
			})
		}
		out.Subtopologies = append(out.Subtopologies, sub)
	}
	return out
}

func topicInfosFromWire(infos []kmsg.TopicInfo) []shard.TopicInfo {
	var out []shard.TopicInfo
	for _, ti := range infos {
		info := shard.TopicInfo{Name: ti.Topic, Partitions: ti.NumPartitions, ReplicationFactor: ti.ReplicationFactor}
		for _, c := range ti.Configs {
			info.Configs = append(info.Configs, shard.TopicConfig{Key: c.Key, Value: c.Value})
		}
		out = append(out, info)
	}
	return out
}

// topicInfosToWire encodes internal topics for a describe.
func topicInfosToWire(infos []shard.TopicInfo) []kmsg.TopicInfo {
	var out []kmsg.TopicInfo
	for _, ti := range infos {
		w := kmsg.NewTopicInfo()
		w.Topic, w.NumPartitions, w.ReplicationFactor = ti.Name, ti.Partitions, ti.ReplicationFactor
		for _, c := range ti.Configs {
			wc := kmsg.NewTopicInfoConfig()
			wc.Key, wc.Value = c.Key, c.Value
			w.Configs = append(w.Configs, wc)
		}
		out = append(out, w)
	}
	return out
}

// taskOffsetsFromWire converts a heartbeat's task offsets, null staying
// nil (not sent) and an empty list an empty one.
func taskOffsetsFromWire(in []kmsg.TaskOffset) []shard.TaskOffset {
	if in == nil {
		return nil
	}
	out := make([]shard.TaskOffset, 0, len(in))
	for _, t := range in {
		out = append(out, shard.TaskOffset{SubtopologyID: t.SubtopologyID, Partition: t.Partition, Offset: t.Offset})
	}
	return out
}

// taskOffsetsToWire converts a described member's task offsets (never
// null: Kafka's describe lists none as an empty list).
func taskOffsetsToWire(in []shard.TaskOffset) []kmsg.TaskOffset {
	out := make([]kmsg.TaskOffset, 0, len(in))
	for _, t := range in {
		o := kmsg.NewTaskOffset()
		o.SubtopologyID, o.Partition, o.Offset = t.SubtopologyID, t.Partition, t.Offset
		out = append(out, o)
	}
	return out
}
