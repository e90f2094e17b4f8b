package shard

import (
	"errors"
	"fmt"
)

// ConsumerGroupHeartbeatRequest is KIP-848's ConsumerGroupHeartbeat.
// SubscribedTopicNames nil means "unchanged"; it must be set on join.
type ConsumerGroupHeartbeatRequest struct {
	GroupID     string
	MemberID    string
	MemberEpoch int32
	// InstanceID is group.instance.id: "" (Kafka's null) for a dynamic
	// member. A static member may leave temporarily with epoch -2 and be
	// replaced by a new member id with the same instance id.
	InstanceID string
	ClientID   string
	// ClientHost is the client's address as Kafka's request context shows
	// it ("/127.0.0.1"; the wire endpoint fills it from the connection).
	// Kafka sets it on every heartbeat, so a change writes the member's
	// record; ConsumerGroupDescribe shows it, and a downgrade to a classic
	// group keeps it.
	ClientHost string
	// RackID is client.rack: "" (Kafka's null) leaves the member's rack as
	// it is. The consumer assignors place partitions on replicas in the
	// member's rack when the topic image carries racks (see SetTopicImage).
	RackID string
	// RebalanceTimeoutMs is the member's max.poll.interval.ms, required on
	// a join; RebalanceTimeoutNotSent (-1) leaves it unchanged. 0 is a
	// rebalance timeout of 0, not "not sent", as in Kafka.
	RebalanceTimeoutMs   int32
	SubscribedTopicNames []string
	// TopicPartitions is the partitions the member owns: nil (Kafka's
	// null) when not sent, which the coordinator reads as "still owns what
	// it was asked to revoke". A KIP-848 client sends it once it has
	// revoked, so the coordinator can advance its epoch. On join it must
	// be empty (nil is read as empty there).
	TopicPartitions []TopicPartitions
	// ServerAssignor names the server assignor the member prefers (nil,
	// Kafka's null, leaves it unchanged). It must be one of the broker's
	// group.consumer.assignors, else UNSUPPORTED_ASSIGNOR. The group uses
	// the assignor most of its members name, else the broker's first.
	ServerAssignor *string
	// SubscribedTopicRegex is a regular expression in RE2 syntax (Kafka
	// uses RE2/J) that must match a whole topic name; the member subscribes
	// to the names and the regex's topics. nil leaves it unchanged, ""
	// clears it. An invalid one is INVALID_REGULAR_EXPRESSION.
	SubscribedTopicRegex *string
}

// ConsumerGroupHeartbeatResponse answers a consumer heartbeat. Assignment is
// set (non-nil flag HasAssignment) on join and whenever it changed.
type ConsumerGroupHeartbeatResponse struct {
	MemberID            string
	MemberEpoch         int32
	HeartbeatIntervalMs int32
	HasAssignment       bool
	Assignment          []TopicPartitions
}

// ConsumerGroupHeartbeat runs a consumer-group heartbeat: join (epoch 0),
// heartbeat (current epoch, or the previous one with owned partitions that
// are a subset of the assignment), leave (-1) or a static member's
// temporary leave (-2). Kafka's GroupMetadataManager.consumerGroupHeartbeat.
// A failed heartbeat changes nothing, but for one that failed after it
// began an online upgrade: its Result still carries the answers to the
// classic group's parked requests and the record that clears them, which
// the caller writes (as convertToConsumerGroup answers them first).
func (s *Shard) ConsumerGroupHeartbeat(nowMs int64, req ConsumerGroupHeartbeatRequest) (Result[ConsumerGroupHeartbeatResponse], error) {
	var res Result[ConsumerGroupHeartbeatResponse]
	h := &heartbeat{
		typ: Consumer, groupID: req.GroupID, memberID: req.MemberID, memberEpoch: req.MemberEpoch,
		clientID: req.ClientID, clientHost: req.ClientHost, rebalanceTimeoutMs: req.RebalanceTimeoutMs,
		subscribedTopics: req.SubscribedTopicNames, instanceID: req.InstanceID, rackID: req.RackID, owned: req.TopicPartitions,
		serverAssignor: req.ServerAssignor, topicRegex: req.SubscribedTopicRegex,
	}
	out, err := s.doHeartbeat(nowMs, h)
	if err == nil && out.view.assignErr != nil {
		err = out.view.assignErr
	}
	if err != nil {
		if v := out.converted; v != nil {
			// A failed online upgrade had answered the classic group's
			// parked requests: the answers and the classic group's state
			// without them come with the error.
			res.Records, res.Completions = v.answeredUpgrade, v.completions
		}
		return res, err
	}
	res.Records, res.Timers, res.Completions = out.view.records, out.view.timers, out.view.completions
	res.Response = ConsumerGroupHeartbeatResponse{
		MemberID: req.MemberID, MemberEpoch: out.memberEpoch,
		HeartbeatIntervalMs: s.answerIntervalMs(Consumer, req.GroupID, req.MemberEpoch),
		HasAssignment:       out.sendAssignment, Assignment: out.assignment,
	}
	return res, nil
}

// ShareGroupHeartbeatRequest is KIP-932's ShareGroupHeartbeat.
type ShareGroupHeartbeatRequest struct {
	GroupID     string
	MemberID    string
	MemberEpoch int32
	ClientID    string
	// ClientHost is the client's address as Kafka's request context shows
	// it ("/127.0.0.1"; the wire endpoint fills it from the connection).
	// Kafka sets it on every heartbeat, so a change writes the member's
	// record; ShareGroupDescribe shows it.
	ClientHost           string
	RackID               string // client.rack; "" leaves it unchanged (recorded; no assignor reads it)
	SubscribedTopicNames []string
}

// ShareGroupHeartbeatResponse answers a share heartbeat.
type ShareGroupHeartbeatResponse struct {
	MemberID            string
	MemberEpoch         int32
	HeartbeatIntervalMs int32
	HasAssignment       bool
	Assignment          []TopicPartitions
}

// ShareGroupHeartbeat runs a share-group heartbeat (membership only; the
// share-partition record state lives in package share).
func (s *Shard) ShareGroupHeartbeat(nowMs int64, req ShareGroupHeartbeatRequest) (Result[ShareGroupHeartbeatResponse], error) {
	var res Result[ShareGroupHeartbeatResponse]
	out, err := s.doHeartbeat(nowMs, &heartbeat{
		typ: Share, groupID: req.GroupID, memberID: req.MemberID, memberEpoch: req.MemberEpoch,
		clientID: req.ClientID, clientHost: req.ClientHost, rackID: req.RackID, subscribedTopics: req.SubscribedTopicNames,
	})
	if err != nil {
		return res, err
	}
	res.Records, res.Timers = out.view.records, out.view.timers
	res.Response = ShareGroupHeartbeatResponse{
		MemberID: req.MemberID, MemberEpoch: out.memberEpoch,
		HeartbeatIntervalMs: s.answerIntervalMs(Share, req.GroupID, req.MemberEpoch),
		HasAssignment:       out.sendAssignment, Assignment: out.assignment,
	}
	return res, nil
}

// StreamsStatus is a KIP-1071 heartbeat status code.
type StreamsStatus int8

// Streams heartbeat statuses (Kafka's codes).
const (
	StatusStaleTopology                StreamsStatus = 0
	StatusMissingSourceTopics          StreamsStatus = 1
	StatusIncorrectlyPartitionedTopics StreamsStatus = 2
	StatusMissingInternalTopics        StreamsStatus = 3
	StatusShutdownApplication          StreamsStatus = 4
	StatusAssignmentDelayed            StreamsStatus = 5
)

func (s StreamsStatus) String() string {
	switch s {
	case StatusStaleTopology:
		return "STALE_TOPOLOGY"
	case StatusMissingSourceTopics:
		return "MISSING_SOURCE_TOPICS"
	case StatusIncorrectlyPartitionedTopics:
		return "INCORRECTLY_PARTITIONED_TOPICS"
	case StatusMissingInternalTopics:
		return "MISSING_INTERNAL_TOPICS"
	case StatusShutdownApplication:
		return "SHUTDOWN_APPLICATION"
	case StatusAssignmentDelayed:
		return "ASSIGNMENT_DELAYED"
	}
	return "UNKNOWN"
}

// StreamsGroupHeartbeatRequest is KIP-1071's StreamsGroupHeartbeat. Topology
// is required on join (epoch 0) and refused otherwise. Version is the request
// version (KIP-1331 solicits only from v1).
type StreamsGroupHeartbeatRequest struct {
	GroupID     string
	MemberID    string
	MemberEpoch int32
	ProcessID   string
	ClientID    string
	// ClientHost is the client's address as Kafka's request context shows
	// it ("/127.0.0.1"; the wire endpoint fills it from the connection).
	// Kafka sets it on every heartbeat, so a change writes the member's
	// record and bumps the group epoch, as a changed client id does
	// (hasStreamsMemberMetadataChanged); StreamsGroupDescribe shows it.
	ClientHost string
	RackID     string // client.rack; "" leaves it unchanged (a change bumps the group epoch)
	// InstanceID is the member's group.instance.id: "" (Kafka's null) for
	// a dynamic member. A static member that leaves with -2 keeps its
	// tasks until its session times out, and a join under a new member id
	// with its instance id takes them over (Kafka's
	// getOrMaybeCreateStaticStreamsGroupMember).
	InstanceID string
	// RebalanceTimeoutMs is required on a join; RebalanceTimeoutNotSent
	// (-1) leaves it unchanged, 0 is a rebalance timeout of 0.
	RebalanceTimeoutMs int32
	Topology           *Topology
	Version            int16
	// ActiveTasks, StandbyTasks and WarmupTasks are the tasks the member
	// owns (KIP-1071's owned tasks); nil is Kafka's null. They acknowledge
	// a revocation only when all three are sent.
	ActiveTasks  []TaskIDs
	StandbyTasks []TaskIDs
	WarmupTasks  []TaskIDs
	// InitialRebalanceScheduled is Kafka's
	// timer.isScheduled(streamsInitialRebalanceKey(groupId)): whether the
	// group's initial rebalance delay timer is pending. The coordinator
	// sets it from its keyed timers (the shard owns no timers); it is not
	// on the wire.
	InitialRebalanceScheduled bool
	// UserEndpoint is the member's user endpoint for interactive queries
	// (application.server); nil leaves the member's as it is (Kafka's
	// maybeUpdateUserEndpoint). A change is a member metadata change.
	UserEndpoint *Endpoint
	// EndpointInformationEpoch is the endpoint information epoch the member
	// last heard; PartitionsByUserEndpoint comes back when the group's
	// differs (streams_endpoints.go).
	EndpointInformationEpoch int32
	// GroupEndpointInformationEpoch is the group's endpoint information
	// epoch, soft state the coordinator keeps (Kafka's
	// StreamsGroup.endpointInformationEpoch, 0 until a bump; not on the
	// log) and sets here; not on the wire.
	GroupEndpointInformationEpoch int32
	// ShutdownApplication is KIP-1071's request that every Streams client
	// of the group shut down (streams_shutdown.go).
	ShutdownApplication bool
	// TaskOffsets and TaskEndOffsets are the changelog offsets the member
	// reports for its tasks (KIP-1071's warm-up lag; nil: not sent). A
	// duplicate subtopology and partition is INVALID_REQUEST. The shard
	// keeps nothing of them: the response hands them back for the
	// coordinator's soft state (streams_task_offsets.go).
	TaskOffsets, TaskEndOffsets []TaskOffset
	// GroupTaskOffsets is that soft state: the task offsets the
	// coordinator keeps for the group's members (TaskOffsetsBook.Group).
	// A target this heartbeat computes reads them, the member's own
	// updated by this report, as Kafka's TargetAssignmentBuilder reads
	// StreamsGroup.taskOffsets. Not on the wire; the shard does not keep
	// or change it.
	GroupTaskOffsets map[string]MemberTaskOffsets
	// ShutdownRequestMemberID is Kafka's
	// StreamsGroup.getShutdownRequestMemberId: the member that first asked
	// the application to shut down, "" for none. The coordinator keeps it
	// as soft state and sets it here; it is not on the wire.
	ShutdownRequestMemberID string
}

// StreamsGroupHeartbeatResponse answers a streams heartbeat.
type StreamsGroupHeartbeatResponse struct {
	MemberID            string
	MemberEpoch         int32
	HeartbeatIntervalMs int32
	// TaskOffsetIntervalMs and AcceptableRecoveryLag are the group's
	// streams.task.offset.interval.ms and streams.acceptable.recovery.lag
	// (or the broker's); a leave answers the schema's defaults, 0 and -1.
	TaskOffsetIntervalMs  int32
	AcceptableRecoveryLag int64
	HasAssignment         bool
	ActiveTasks           []TaskIDs
	StandbyTasks          []TaskIDs
	WarmupTasks           []TaskIDs
	Status                []StreamsStatus
	// StatusDetails holds Kafka's StatusDetail text of each Status, aligned
	// with it.
	StatusDetails []string
	// InternalTopicsToCreate are the internal topics the group's topology
	// needs and the metadata image lacks (with MISSING_INTERNAL_TOPICS), by
	// name. Kafka's broker asks the controller to create them after the
	// heartbeat (StreamsGroupHeartbeatResult.creatableTopics); here the
	// caller creates them: the wire endpoint in its data plane, the
	// simulator in its topic image. Not on the wire.
	InternalTopicsToCreate []CreatableTopic
	// TopologyDescriptionRequired is KIP-1331's solicitation flag; the
	// coordinator sets it after the shard answers.
	TopologyDescriptionRequired bool
	// ShutdownRequestMemberID is the group's shutdown requester after this
	// heartbeat, for the coordinator to keep (streams_shutdown.go). Not on
	// the wire.
	ShutdownRequestMemberID string

	// The group's topology epoch (-1 without a topology) and its KIP-1331
	// stored and failed description epochs, which the coordinator's
	// solicitation gates read (docs/kip1331.md §1.6). Not on Kafka's wire.
	GroupTopologyEpoch             int32
	StoredDescriptionTopologyEpoch int32
	FailedDescriptionTopologyEpoch int32

	// EndpointInformationEpoch is the group's endpoint information epoch
	// (0 when the heartbeat created the group, as Kafka answers), and
	// PartitionsByUserEndpoint each endpoint's partitions, set when the
	// member's known epoch differs from the group's (streams_endpoints.go).
	EndpointInformationEpoch int32
	PartitionsByUserEndpoint []EndpointPartitions
	// GroupEndpointInformationEpoch is the group's endpoint information
	// epoch for the coordinator to keep (InitialEndpointInformationEpoch
	// for a group this heartbeat created). Not on the wire.
	GroupEndpointInformationEpoch int32
	// ConfiguredTopology is the group's configured topology after this
	// heartbeat, for the coordinator to keep (Kafka's
	// StreamsGroup.configuredTopology, soft state): every heartbeat
	// configures one, but a heartbeat that created the group configured
	// the transient group object Kafka's getOrCreateStreamsGroup returns,
	// which the replay of its records replaces, so such a group has none
	// (nil) until its next heartbeat, nor has a loaded group. Only the
	// initial rebalance delay and describes read it
	// (Task.StreamsConfigured, DescribedStreamsTopology). Not on the wire.
	ConfiguredTopology *ConfiguredTopology
	// Configured says the heartbeat configured the topology, so the
	// coordinator replaces what it keeps with ConfiguredTopology. A leave
	// (member epoch -1 or -2) configures nothing: Kafka's streamsGroupLeave
	// fences the member without looking at the topology, and the group
	// keeps the configured topology it had. Not on the wire.
	Configured bool
	// TaskOffsets and TaskEndOffsets are the member's task offsets as the
	// heartbeat reported them (nil: not sent), checked, for the
	// coordinator to fold into what it keeps (MemberTaskOffsets.Update);
	// KeepTaskOffsets says it should: not after a leave, nor after a
	// heartbeat that created the group (Kafka updated the transient group
	// object its replay replaces). Not on the wire.
	TaskOffsets, TaskEndOffsets []TaskOffset
	KeepTaskOffsets             bool
}

// configuredThenThrew is a streams heartbeat's error that Kafka throws
// after the heartbeat configured the group's topology
// (StreamsGroup.setConfiguredTopology comes before the owned-task and
// task-offset checks, the target assignment and the reconciliation). Its
// runtime reverts nothing when a write throws, so the group keeps that
// configured topology: StreamsGroupHeartbeat answers the error with
// Response.Configured and Response.ConfiguredTopology set, for the
// coordinator to keep.
type configuredThenThrew struct{ error }

func (e configuredThenThrew) Unwrap() error { return e.error }

// StreamsGroupHeartbeat runs a streams-group heartbeat. On an error Kafka
// throws after configuring the group's topology, the response still
// carries Configured and ConfiguredTopology (configuredThenThrew).
func (s *Shard) StreamsGroupHeartbeat(nowMs int64, req StreamsGroupHeartbeatRequest) (Result[StreamsGroupHeartbeatResponse], error) {
	var res Result[StreamsGroupHeartbeatResponse]
	h := &heartbeat{
		typ: Streams, groupID: req.GroupID, memberID: req.MemberID, memberEpoch: req.MemberEpoch,
		clientID: req.ClientID, clientHost: req.ClientHost, rackID: req.RackID, processID: req.ProcessID, rebalanceTimeoutMs: req.RebalanceTimeoutMs,
		instanceID: req.InstanceID, topology: req.Topology, taskOffsets: req.TaskOffsets, taskEndOffsets: req.TaskEndOffsets, groupTaskOffsets: req.GroupTaskOffsets,
		initialRebalanceScheduled: req.InitialRebalanceScheduled,
		userEndpoint:              req.UserEndpoint,
	}
	h.ownedTasks, h.ownedTasksSent = ownedTaskSets(req.ActiveTasks, req.StandbyTasks, req.WarmupTasks)
	if req.MemberEpoch == 0 && !h.ownedTasksSent {
		h.ownedTasks, h.ownedTasksSent = taskSets{}, true // a join owns nothing
	}
	out, err := s.doHeartbeat(nowMs, h)
	if err == nil && out.view != nil && out.view.assignErr != nil {
		err = configuredThenThrew{out.view.assignErr}
	}
	var late configuredThenThrew
	if errors.As(err, &late) {
		// Kafka configured the topology before it threw, and its runtime
		// reverts nothing when a write throws: the group keeps it.
		if v := out.view; v != nil && v.g != nil && v.g.typ == Streams && v.topo != nil && req.MemberEpoch >= 0 {
			res.Response.Configured, res.Response.ConfiguredTopology = true, s.configure(v.topo)
		}
		return res, late.error
	}
	if err != nil {
		return res, err
	}
	res.Records, res.Timers = out.view.records, out.view.timers
	active, standby, warmup := partitionsToTasks3(out.assignment, out.standby, out.warmup)
	res.Response = StreamsGroupHeartbeatResponse{
		MemberID: req.MemberID, MemberEpoch: out.memberEpoch,
		HeartbeatIntervalMs: s.answerIntervalMs(Streams, req.GroupID, req.MemberEpoch),
		HasAssignment:       out.sendAssignment, ActiveTasks: active,
		StandbyTasks: standby, WarmupTasks: warmup,
		GroupTopologyEpoch: -1, StoredDescriptionTopologyEpoch: EpochNone, FailedDescriptionTopologyEpoch: EpochNone,
	}
	res.Response.Configured = req.MemberEpoch >= 0
	res.Response.AcceptableRecoveryLag = -1
	if req.MemberEpoch >= 0 {
		res.Response.TaskOffsetIntervalMs = s.streamsTaskOffsetIntervalMs(req.GroupID)
		res.Response.AcceptableRecoveryLag = s.streamsAcceptableRecoveryLag(req.GroupID)
	}
	if req.MemberEpoch >= 0 && out.view != nil && out.view.g != nil && (req.TaskOffsets != nil || req.TaskEndOffsets != nil) {
		res.Response.TaskOffsets, res.Response.TaskEndOffsets, res.Response.KeepTaskOffsets = req.TaskOffsets, req.TaskEndOffsets, true
	}
	s.streamsEndpointInformation(&req, &out, &res.Response)
	if v := out.view; v != nil {
		if v.topo != nil {
			res.Response.GroupTopologyEpoch = v.topo.Epoch
		}
		if v.g != nil {
			res.Response.StoredDescriptionTopologyEpoch, res.Response.FailedDescriptionTopologyEpoch = v.g.storedEpoch, v.g.failedEpoch
			if v.g.typ == Streams && v.topo != nil && req.MemberEpoch >= 0 {
				res.Response.ConfiguredTopology = s.configure(v.topo)
			}
		}
	}
	status := func(code StreamsStatus, detail string) {
		res.Response.Status = append(res.Response.Status, code)
		res.Response.StatusDetails = append(res.Response.StatusDetails, detail)
	}
	// Kafka's order: the stale topology, the delay, then the topic
	// configuration's status.
	if out.staleTopology {
		status(StatusStaleTopology, fmt.Sprintf("The member's topology epoch %d is behind the group's topology epoch %d.",
			out.memberTopologyEpoch, res.Response.GroupTopologyEpoch))
	}
	if out.assignmentDelay != "" {
		status(StatusAssignmentDelayed, out.assignmentDelay)
	}
	if c := out.topicStatus; c != nil {
		status(c.status, c.detail)
		res.Response.InternalTopicsToCreate = c.internalTopicsToBeCreated
	}
	// Then SHUTDOWN_APPLICATION, on every answer but a leave's
	// (streamsGroupLeave answers no status).
	res.Response.ShutdownRequestMemberID = shutdownRequester(&req)
	if id := res.Response.ShutdownRequestMemberID; id != "" && req.MemberEpoch >= 0 {
		status(StatusShutdownApplication, shutdownApplicationDetail(id))
	}
	if v := out.view; v != nil && v.refined != nil && v.g != nil {
		// Soft state, set as Kafka's TimelineObject is: a write that fails
		// to append restores the shard, and with it the cache before.
		if g := s.mutableGroup(v.id); g != nil {
			g.refined = v.refined
		}
	}
	return res, nil
}

// OnLoaded returns the timers a freshly loaded shard needs (Kafka's
// onLoaded): the sweep, and a session timeout for every member, counted
// from now since the previous owner's heartbeats are unknown (a classic
// group's: classicGroupTimers).
func (s *Shard) OnLoaded(nowMs int64) []TimerOp {
	s.loaded, s.loadImageHash, s.loadImageVersion = true, s.imageHash, s.imageVersion
	s.forgetClassicRebalances()
	s.restampShareInitializations(nowMs)
	ops := []TimerOp{{Key: SweepTimerKey, DeadlineMs: nowMs + s.cfg.OffsetsRetentionCheckIntervalMs, Task: Task{Kind: TaskSweep}}}
	s.groups.Ascend(func(g *group) bool {
		ops = append(ops, s.classicGroupTimers(nowMs, g)...)
		if g.typ == Share && s.cfg.Mutants.LoadDropsShareTimers {
			return true
		}
		// Kafka's onLoaded arms them walking the group's TimelineHashMap
		// of members: timers that end together fire in that order.
		for _, id := range g.timelineMemberOrder() {
			ops = append(ops, TimerOp{
				Key:        SessionTimeoutKey(g.id, id),
				DeadlineMs: nowMs + int64(s.sessionTimeoutMs(g.typ, g.id)),
				Task:       Task{Kind: TaskSessionTimeout, Type: g.typ, GroupID: g.id, MemberID: id},
			})
			if op, ok := rebalanceTimer(nowMs, g, g.members[id]); ok {
				ops = append(ops, op)
			}
		}
		return true
	})
	return ops
}

// rebalanceTimer is the rebalance timeout a consumer member asked to revoke
// needs (Kafka's onLoaded re-arms it for members in UNREVOKED_PARTITIONS).
func rebalanceTimer(nowMs int64, g *group, m *member) (TimerOp, bool) {
	if g.typ != Consumer && g.typ != Streams || m.state != MemberUnrevokedPartitions {
		return TimerOp{}, false
	}
	return rebalanceTimeoutOp(nowMs, g.typ, g.id, m), true
}

// rebalanceTimeoutOp is the rebalance timer of a consumer or streams member
// whose current assignment was just written: armed at now + its rebalance
// timeout, for its new epoch, while it must revoke (Kafka's
// scheduleConsumerGroupRebalanceTimeout), cancelled once it owes nothing
// (cancelConsumerGroupRebalanceTimeout; streams has the same pair).
func rebalanceTimeoutOp(nowMs int64, typ GroupType, groupID string, m *member) TimerOp {
	t := Task{Kind: TaskRebalanceTimeout, Type: typ, GroupID: groupID, MemberID: m.id, MemberEpoch: m.memberEpoch}
	if m.state != MemberUnrevokedPartitions {
		return TimerOp{Key: t.Key(), Cancel: true}
	}
	return TimerOp{Key: t.Key(), DeadlineMs: nowMs + int64(m.rebalanceTimeoutMs), Task: t}
}

// SessionTimers returns the session timer every member of the shard needs,
// the rebalance timer of every consumer or streams member asked to revoke,
// and a classic group's heartbeat, join and sync timers
// (classicGroupTimers), keyed by timer key, with deadlines now + the
// timeout: every timer whose task FromState reports. The coordinator
// reconciles its timers with it after a rollback, which may have undone
// the writes that scheduled or cancelled them.
func (s *Shard) SessionTimers(nowMs int64) map[string]TimerOp {
	out := map[string]TimerOp{}
	s.groups.Ascend(func(g *group) bool {
		for _, op := range s.classicGroupTimers(nowMs, g) {
			out[op.Key] = op
		}
		for id, m := range g.members {
			key := SessionTimeoutKey(g.id, id)
			sessionMs := s.sessionTimeoutMs(g.typ, g.id)
			if m.classic != nil {
				sessionMs = m.classic.SessionTimeoutMs
			}
			out[key] = TimerOp{Key: key, DeadlineMs: nowMs + int64(sessionMs),
				Task: Task{Kind: TaskSessionTimeout, Type: g.typ, GroupID: g.id, MemberID: id}}
			if op, ok := rebalanceTimer(nowMs, g, m); ok {
				out[op.Key] = op
			}
		}
		return true
	})
	return out
}

// RunTimer runs a fired timer's task as a write operation.
func (s *Shard) RunTimer(nowMs int64, t Task) Result[struct{}] {
	if res, ok := s.runClassicTimer(nowMs, t); ok {
		return res
	}
	switch t.Kind {
	case TaskSweep:
		res := s.CleanupGroupMetadata(nowMs)
		res.Timers = append(res.Timers, TimerOp{Key: SweepTimerKey, DeadlineMs: nowMs + s.cfg.OffsetsRetentionCheckIntervalMs, Task: t})
		return Result[struct{}]{Records: res.Records, Timers: res.Timers}
	case TaskSessionTimeout:
		res, _ := s.fenceMember(nowMs, t.Type, t.GroupID, t.MemberID, -1)
		return res
	case TaskRebalanceTimeout:
		res, _ := s.fenceMember(nowMs, t.Type, t.GroupID, t.MemberID, t.MemberEpoch)
		return res
	case TaskStreamsInitialRebalance:
		return s.computeDelayedTargetAssignment(nowMs, t.GroupID, t.StreamsConfigured, t.StreamsTaskOffsets)
	case TaskRegexRefresh:
		return s.refreshRegularExpressions(nowMs, t)
	case TaskShareInitialize:
		return s.initializeShareState(nowMs, t.GroupID, t.Partitions)
	}
	return Result[struct{}]{}
}

// answerIntervalMs is the HeartbeatIntervalMs a heartbeat's answer carries:
// the group's interval, except on a leave (epoch -1, or -2 for a static
// member), whose answer Kafka builds with the member id and epoch only
// (GroupMetadataManager.consumerGroupLeave, consumerGroupStaticMemberGroupLeave,
// shareGroupLeave, streamsGroupLeave), so 0.
func (s *Shard) answerIntervalMs(typ GroupType, groupID string, memberEpoch int32) int32 {
	if memberEpoch < 0 {
		return 0
	}
	return s.heartbeatIntervalMs(typ, groupID)
}
