package difftest

import (
	"slices"
	"strconv"
	"strings"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// Streams groups (KIP-1071) in the differential run: the StreamsGroupHeartbeat
// and StreamsGroupDescribe ops, their oracle lines, how the driver runs them
// on coordsim's shard, and their canonical outcomes.

// Tasks is one subtopology's task partitions (KIP-1071's TaskIds).
type Tasks struct {
	Subtopology string  `json:"subtopologyId"`
	Partitions  []int32 `json:"partitions"`
}

// StreamsSubtopology is a subtopology of a heartbeat's topology: the user
// topics it reads, the repartition topics it writes and reads, and the
// changelog topics of its state stores (partition counts left to the
// coordinator, as Kafka Streams sends them).
type StreamsSubtopology struct {
	ID                string   `json:"id"`
	SourceTopics      []string `json:"sourceTopics"`
	RepartitionSink   []string `json:"repartitionSink,omitempty"`
	RepartitionSource []string `json:"repartitionSource,omitempty"`
	Changelogs        []string `json:"changelogs,omitempty"`
}

// StreamsTopology is a heartbeat's topology.
type StreamsTopology struct {
	Epoch         int32                `json:"epoch"`
	Subtopologies []StreamsSubtopology `json:"subtopologies"`
}

// StreamsHeartbeat is a StreamsGroupHeartbeat (v0). Nil pointers are
// Kafka's null; the owned-task lists are sent when TasksSet (all three) or
// ActiveOnly (the active tasks alone, an invalid request), else null.
type StreamsHeartbeat struct {
	ClientID            string           `json:"clientId"`
	GroupID             string           `json:"groupId"`
	MemberID            string           `json:"memberId"`
	MemberEpoch         int32            `json:"memberEpoch"`
	EndpointEpoch       int32            `json:"endpointInformationEpoch"`
	InstanceID          *string          `json:"instanceId,omitempty"`
	RebalanceTimeoutMs  int32            `json:"rebalanceTimeoutMs"`
	Topology            *StreamsTopology `json:"topology,omitempty"`
	ActiveTasks         []Tasks          `json:"activeTasks,omitempty"`
	StandbyTasks        []Tasks          `json:"standbyTasks,omitempty"`
	WarmupTasks         []Tasks          `json:"warmupTasks,omitempty"`
	TasksSet            bool             `json:"tasksSet,omitempty"`
	ActiveOnly          bool             `json:"activeOnly,omitempty"`
	ProcessID           *string          `json:"processId,omitempty"`
	UserEndpoint        *string          `json:"userEndpoint,omitempty"` // host; the port is 9092
	ShutdownApplication bool             `json:"shutdownApplication,omitempty"`
	// TaskOffsets and TaskEndOffsets are sent when not nil (an empty list
	// is sent empty).
	TaskOffsets    []TaskOffset `json:"taskOffsets,omitzero"`
	TaskEndOffsets []TaskOffset `json:"taskEndOffsets,omitzero"`
}

// TaskOffset is one reported task offset.
type TaskOffset struct {
	Subtopology string `json:"subtopologyId"`
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
}

func taskOffsetsOracle(ts []TaskOffset) any {
	if ts == nil {
		return nil
	}
	out := []any{}
	for _, t := range ts {
		out = append(out, map[string]any{"subtopologyId": t.Subtopology, "partition": t.Partition, "offset": t.Offset})
	}
	return out
}

func taskOffsetsShard(ts []TaskOffset) []shard.TaskOffset {
	if ts == nil {
		return nil
	}
	out := make([]shard.TaskOffset, 0, len(ts))
	for _, t := range ts {
		out = append(out, shard.TaskOffset{SubtopologyID: t.Subtopology, Partition: t.Partition, Offset: t.Offset})
	}
	return out
}

func taskOffsetsJSON(ts []shard.TaskOffset) []any {
	out := []any{}
	for _, t := range ts {
		out = append(out, map[string]any{"subtopologyId": t.SubtopologyID, "partition": t.Partition, "offset": t.Offset})
	}
	return out
}

// StreamsDescribe is a StreamsGroupDescribe.
type StreamsDescribe struct {
	Groups []string `json:"groups"`
}

func (StreamsHeartbeat) Name() string { return "streams_heartbeat" }
func (StreamsDescribe) Name() string  { return "streams_describe" }

const userEndpointPort = 9092

// The oracle lines: Kafka's JSON of StreamsGroupHeartbeatRequest v0.

func topicInfos(names []string) []any {
	out := []any{}
	for _, n := range names {
		out = append(out, map[string]any{"name": n, "partitions": 0, "replicationFactor": 0, "topicConfigs": []any{}})
	}
	return out
}

func (t *StreamsTopology) oracle() any {
	if t == nil {
		return nil
	}
	subs := []any{}
	for _, st := range t.Subtopologies {
		subs = append(subs, map[string]any{
			"subtopologyId": st.ID, "sourceTopics": nonNil(st.SourceTopics), "sourceTopicRegex": []string{},
			"stateChangelogTopics": topicInfos(st.Changelogs), "repartitionSinkTopics": nonNil(st.RepartitionSink),
			"repartitionSourceTopics": topicInfos(st.RepartitionSource), "copartitionGroups": []any{},
		})
	}
	return map[string]any{"epoch": t.Epoch, "subtopologies": subs}
}

func tasksOracle(ts []Tasks, set bool) any {
	if !set {
		return nil
	}
	out := []any{}
	for _, t := range ts {
		out = append(out, map[string]any{"subtopologyId": t.Subtopology, "partitions": nonNil(t.Partitions)})
	}
	return out
}

func (o StreamsHeartbeat) oracle(topicIDs) map[string]any {
	var endpoint any
	if o.UserEndpoint != nil {
		endpoint = map[string]any{"host": *o.UserEndpoint, "port": userEndpointPort}
	}
	var tags any
	if o.MemberEpoch == 0 {
		tags = []any{}
	}
	return map[string]any{"version": 0, "clientId": o.ClientID, "request": map[string]any{
		"groupId": o.GroupID, "memberId": o.MemberID, "memberEpoch": o.MemberEpoch,
		"endpointInformationEpoch": o.EndpointEpoch, "instanceId": nullable(o.InstanceID), "rackId": nil,
		"rebalanceTimeoutMs": o.RebalanceTimeoutMs, "topology": o.Topology.oracle(),
		"activeTasks": tasksOracle(o.ActiveTasks, o.TasksSet || o.ActiveOnly), "standbyTasks": tasksOracle(o.StandbyTasks, o.TasksSet),
		"warmupTasks": tasksOracle(o.WarmupTasks, o.TasksSet), "processId": nullable(o.ProcessID),
		"userEndpoint": endpoint, "clientTags": tags, "taskOffsets": taskOffsetsOracle(o.TaskOffsets), "taskEndOffsets": taskOffsetsOracle(o.TaskEndOffsets),
		"shutdownApplication": o.ShutdownApplication,
	}}
}

func (o StreamsDescribe) oracle(topicIDs) map[string]any {
	return map[string]any{"groups": nonNil(o.Groups)}
}

// coordsim's side.

func (t *StreamsTopology) shard() *shard.Topology {
	if t == nil {
		return nil
	}
	infos := func(names []string) []shard.TopicInfo {
		var out []shard.TopicInfo
		for _, n := range names {
			out = append(out, shard.TopicInfo{Name: n})
		}
		return out
	}
	out := &shard.Topology{Epoch: t.Epoch}
	for _, st := range t.Subtopologies {
		out.Subtopologies = append(out.Subtopologies, shard.Subtopology{
			ID: st.ID, SourceTopics: slices.Clone(st.SourceTopics), RepartitionSinkTopics: slices.Clone(st.RepartitionSink),
			RepartitionSourceTopics: infos(st.RepartitionSource), StateChangelogTopics: infos(st.Changelogs),
		})
	}
	return out
}

func shardTasks(ts []Tasks, set bool) []shard.TaskIDs {
	if !set {
		return nil
	}
	out := make([]shard.TaskIDs, 0, len(ts))
	for _, t := range ts {
		out = append(out, shard.TaskIDs{SubtopologyID: t.Subtopology, Partitions: slices.Clone(t.Partitions)})
	}
	return out
}

// streamsSoft is the streams soft state package coordinator keeps beside a
// shard (Kafka keeps it on StreamsGroup, outside the timeline): each
// group's endpoint information epoch, its shutdown requester and whether
// it has a configured topology. A reload forgets them, as a coordinator
// that loads the partition starts without.
type streamsSoft struct {
	endpointEpochs map[string]int32
	shutdown       map[string]string
	configured     map[string]*shard.ConfiguredTopology
	// taskOffsets is each member's reported task offsets, kept as package
	// coordinator keeps them.
	taskOffsets shard.TaskOffsetsBook
	// undo remembers the configured topologies that writes without records
	// set since the last written offset: a read at the committed offset
	// sees the ones before them (committedConfigured). A write that throws
	// reverts nothing, as in Kafka's runtime.
	undo []configuredUndo
}

type configuredUndo struct {
	group string
	prev  *shard.ConfiguredTopology
}

// setConfigured keeps a group's configured topology after a heartbeat,
// remembering the old one if the heartbeat wrote no record.
func (st *streamsSoft) setConfigured(group string, c *shard.ConfiguredTopology, wrote bool) {
	if !wrote {
		st.undo = append(st.undo, configuredUndo{group, st.configured[group]})
	}
	st.configured[group] = c
}

// committedConfigured is a group's configured topology as a read at the
// committed offset sees it (Kafka's TimelineObject.get(committedOffset)):
// what it was before the writes without records since the last append.
func (st *streamsSoft) committedConfigured(group string) *shard.ConfiguredTopology {
	for _, u := range st.undo {
		if u.group == group {
			return u.prev
		}
	}
	return st.configured[group]
}

func newStreamsSoft() streamsSoft {
	return streamsSoft{endpointEpochs: map[string]int32{}, shutdown: map[string]string{}, configured: map[string]*shard.ConfiguredTopology{}}
}

func (o StreamsHeartbeat) run(d *driver) Outcome {
	req := shard.StreamsGroupHeartbeatRequest{
		GroupID: o.GroupID, MemberID: o.MemberID, MemberEpoch: o.MemberEpoch, ProcessID: str(o.ProcessID), InstanceID: str(o.InstanceID),
		ClientID: o.ClientID, RebalanceTimeoutMs: o.RebalanceTimeoutMs, Topology: o.Topology.shard(),
		ActiveTasks: shardTasks(o.ActiveTasks, o.TasksSet || o.ActiveOnly), StandbyTasks: shardTasks(o.StandbyTasks, o.TasksSet),
		WarmupTasks: shardTasks(o.WarmupTasks, o.TasksSet), EndpointInformationEpoch: o.EndpointEpoch,
		ShutdownApplication: o.ShutdownApplication,
		TaskOffsets:         taskOffsetsShard(o.TaskOffsets), TaskEndOffsets: taskOffsetsShard(o.TaskEndOffsets),
	}
	// The wire's request checks first, on the request with its nulls, as
	// the oracle runs GroupCoordinatorService's (wire/heartbeat_validation.go).
	if err := shard.CheckStreamsHeartbeat(shard.StreamsHeartbeatCheck{
		GroupID: req.GroupID, MemberID: req.MemberID, InstanceID: o.InstanceID, MemberEpoch: req.MemberEpoch,
		RebalanceTimeoutMs: req.RebalanceTimeoutMs, ActiveTasks: shard.ListOf(req.ActiveTasks),
		StandbyTasks: shard.ListOf(req.StandbyTasks), WarmupTasks: shard.ListOf(req.WarmupTasks), Topology: req.Topology != nil,
	}); err != nil {
		return errOutcome(err)
	}
	if o.UserEndpoint != nil {
		req.UserEndpoint = &shard.Endpoint{Host: *o.UserEndpoint, Port: userEndpointPort}
	}
	// What package coordinator hands the shard (coordinator/topology_ops.go).
	_, req.InitialRebalanceScheduled = d.timers[shard.StreamsInitialRebalanceKey(o.GroupID)]
	req.GroupEndpointInformationEpoch = shard.InitialEndpointInformationEpoch
	if e, ok := d.soft.endpointEpochs[o.GroupID]; ok {
		req.GroupEndpointInformationEpoch = e
	}
	req.ShutdownRequestMemberID = d.soft.shutdown[o.GroupID]
	req.GroupTaskOffsets = d.soft.taskOffsets.Group(o.GroupID)
	res, err := d.s.StreamsGroupHeartbeat(d.nowMs, req)
	d.noteShutdown(req, res.Response, err)
	if err != nil {
		if res.Response.Configured {
			// Configured before Kafka threw, and kept.
			d.soft.setConfigured(o.GroupID, res.Response.ConfiguredTopology, false)
		}
		return errOutcome(err)
	}
	r := res.Response
	d.soft.endpointEpochs[o.GroupID] = r.GroupEndpointInformationEpoch
	if r.Configured {
		d.soft.setConfigured(o.GroupID, r.ConfiguredTopology, len(res.Records) > 0)
	}
	d.soft.taskOffsets.Note(o.GroupID, o.MemberID, r)
	return Outcome{Response: streamsHeartbeatJSON(r), Records: d.commit(res.Records, res.Timers)}
}

// noteShutdown is coordinator.noteShutdownRequest: the requester the
// heartbeat leaves behind, kept even when the write fails, and a leave of
// an unknown member that asks for the shutdown.
func (d *driver) noteShutdown(req shard.StreamsGroupHeartbeatRequest, resp shard.StreamsGroupHeartbeatResponse, err error) {
	id := resp.ShutdownRequestMemberID
	if err != nil {
		if req.MemberEpoch >= 0 || !req.ShutdownApplication || kerr.As(err) != kerr.UnknownMemberID {
			return
		}
		id = req.ShutdownRequestMemberID
		if id == "" {
			id = req.MemberID
		}
	}
	if id != "" {
		d.soft.shutdown[req.GroupID] = id
	}
}

// forgetEmptyShutdowns is coordinator.forgetReplayedEmptyShutdownRequests:
// the groups records were replayed for that are left with no member.
func (d *driver) forgetEmptyShutdowns(records []shard.Record) {
	for _, r := range records {
		id := r.GroupID()
		if _, ok := d.soft.shutdown[id]; ok && shard.RederivesStreamsGroup(r) && !d.s.StreamsGroupHasMembers(id) {
			delete(d.soft.shutdown, id)
		}
	}
}

func (o StreamsDescribe) run(d *driver) Outcome {
	out := make([]any, 0, len(o.Groups))
	for _, id := range o.Groups {
		g, ok := d.s.DescribeGroup(id)
		if !ok || g.Type != shard.Streams {
			out = append(out, map[string]any{"groupId": id, "errorCode": kerr.GroupIDNotFound.Code})
			continue
		}
		d.soft.taskOffsets.Fill(id, g.Members)
		out = append(out, streamsDescribeJSON(g, d.s.DescribedStreamsTopology(id, d.soft.committedConfigured(id))))
	}
	return Outcome{Response: out, Records: []any{}}
}

// Canonical forms.

const missingInternalTopics = "Internal topics are missing: "

// canonicalDetail is a status detail with the topics of a
// MISSING_INTERNAL_TOPICS detail sorted: Kafka lists them in the order of
// a HashMap's key set (InternalTopicManager.missingInternalTopics), an
// order of representation, coordsim by name. A list cut short ("and N
// additional topics") is left as it is.
func canonicalDetail(d string) string {
	rest, ok := strings.CutPrefix(d, missingInternalTopics)
	if !ok || strings.Contains(rest, " and ") {
		return d
	}
	names := strings.Split(rest, ", ")
	slices.Sort(names)
	return missingInternalTopics + strings.Join(names, ", ")
}

// tasksJSON is a task list as Kafka's [{subtopologyId, partitions}],
// subtopologies in order, partitions sorted, empty entries left out.
func tasksJSON(ts []shard.TaskIDs) []any {
	sorted := slices.Clone(ts)
	slices.SortFunc(sorted, func(a, b shard.TaskIDs) int { return strings.Compare(a.SubtopologyID, b.SubtopologyID) })
	out := []any{}
	for _, t := range sorted {
		if len(t.Partitions) == 0 {
			continue
		}
		ps := slices.Clone(t.Partitions)
		slices.Sort(ps)
		out = append(out, map[string]any{"subtopologyId": t.SubtopologyID, "partitions": ps})
	}
	return out
}

func streamsHeartbeatJSON(r shard.StreamsGroupHeartbeatResponse) map[string]any {
	status := []any{}
	for i, s := range r.Status {
		status = append(status, map[string]any{"statusCode": int(s), "statusDetail": canonicalDetail(r.StatusDetails[i])})
	}
	creatable := []any{}
	for _, t := range r.InternalTopicsToCreate {
		creatable = append(creatable, map[string]any{"name": t.Name, "partitions": t.NumPartitions})
	}
	slices.SortFunc(creatable, func(a, b any) int { return strings.Compare(asMap(a)["name"].(string), asMap(b)["name"].(string)) })
	m := map[string]any{"memberId": r.MemberID, "memberEpoch": r.MemberEpoch, "heartbeatIntervalMs": r.HeartbeatIntervalMs,
		"status": status, "endpointInformationEpoch": r.EndpointInformationEpoch, "creatableTopics": creatable,
		"activeTasks": nil, "standbyTasks": nil, "warmupTasks": nil, "partitionsByUserEndpoint": nil}
	if r.HasAssignment {
		m["activeTasks"], m["standbyTasks"], m["warmupTasks"] = tasksJSON(r.ActiveTasks), tasksJSON(r.StandbyTasks), tasksJSON(r.WarmupTasks)
	}
	taskOffsetInterval(m, int64(r.TaskOffsetIntervalMs))
	if r.PartitionsByUserEndpoint != nil {
		eps := []any{}
		for _, e := range r.PartitionsByUserEndpoint {
			eps = append(eps, map[string]any{"userEndpoint": map[string]any{"host": e.UserEndpoint.Host, "port": int(e.UserEndpoint.Port)},
				"activePartitions": assignmentJSON(e.ActivePartitions), "standbyPartitions": assignmentJSON(e.StandbyPartitions)})
		}
		m["partitionsByUserEndpoint"] = sortedByJSON(eps)
	}
	return m
}

func sortedByJSON(xs []any) []any {
	slices.SortFunc(xs, func(a, b any) int { return strings.Compare(mustJSON(a), mustJSON(b)) })
	return xs
}

func endpointJSON(e *shard.Endpoint) any {
	if e == nil {
		return nil
	}
	return map[string]any{"host": e.Host, "port": int(e.Port)}
}

func topicInfosJSON(infos []shard.TopicInfo) []any {
	out := []any{}
	for _, ti := range infos {
		cfgs := []any{}
		for _, c := range ti.Configs {
			cfgs = append(cfgs, map[string]any{"key": c.Key, "value": c.Value})
		}
		out = append(out, map[string]any{"name": ti.Name, "partitions": ti.Partitions, "replicationFactor": ti.ReplicationFactor, "topicConfigs": cfgs})
	}
	return out
}

func streamsDescribeJSON(g shard.GroupDescription, topo *shard.Topology) map[string]any {
	members := []any{}
	for _, m := range g.Members {
		members = append(members, map[string]any{
			"memberId": m.MemberID, "memberEpoch": m.MemberEpoch, "instanceId": m.InstanceID, "rackId": m.RackID,
			"clientId": m.ClientID, "topologyEpoch": m.TopologyEpoch, "processId": m.ProcessID, "userEndpoint": endpointJSON(m.UserEndpoint),
			"assignment": map[string]any{"activeTasks": tasksJSON(m.ActiveTasks), "standbyTasks": tasksJSON(m.StandbyTasks), "warmupTasks": tasksJSON(m.WarmupTasks)},
			"targetAssignment": map[string]any{"activeTasks": tasksJSON(m.TargetActiveTasks), "standbyTasks": tasksJSON(m.TargetStandbyTasks),
				"warmupTasks": tasksJSON(m.TargetWarmupTasks)},
			"taskOffsets": taskOffsetsJSON(m.TaskOffsets), "taskEndOffsets": taskOffsetsJSON(m.TaskEndOffsets),
		})
	}
	var topology any
	if topo != nil {
		subs := []any{}
		for _, st := range topo.Subtopologies {
			subs = append(subs, map[string]any{"subtopologyId": st.ID, "sourceTopics": nonNil(st.SourceTopics),
				"repartitionSinkTopics": nonNil(st.RepartitionSinkTopics), "stateChangelogTopics": topicInfosJSON(st.StateChangelogTopics),
				"repartitionSourceTopics": topicInfosJSON(st.RepartitionSourceTopics)})
		}
		topology = map[string]any{"epoch": topo.Epoch, "subtopologies": subs}
	}
	return map[string]any{"groupId": g.GroupID, "errorCode": 0, "groupState": g.State.MetricLabel(), "groupEpoch": g.Epoch,
		"assignmentEpoch": g.AssignmentEpoch, "topology": topology, "members": members}
}

// streamsRecordJSON is a streams record in the canonical form, with
// Kafka's record field names; ok is false for a type that is not a streams
// record.
func streamsRecordJSON(r shard.Record) (key, value map[string]any, tomb, ok bool) {
	tagged := func(v map[string]any, name string, e int32) {
		if e != shard.EpochNone {
			v[name] = e
		}
	}
	switch r := r.(type) {
	case *shard.StreamsGroupMetadata:
		key = map[string]any{"groupId": r.Group}
		value = map[string]any{"epoch": r.Epoch, "lastAssignmentConfigs": []any{
			map[string]any{"key": "num.standby.replicas", "value": strconv.Itoa(int(r.LastNumStandbyReplicas))}}}
		tagged(value, "validatedTopologyEpoch", r.ValidatedTopologyEpoch)
		tagged(value, "storedDescriptionTopologyEpoch", r.StoredDescriptionTopologyEpoch)
		tagged(value, "failedDescriptionTopologyEpoch", r.FailedDescriptionTopologyEpoch)
		return key, value, r.Tombstone, true
	case *shard.StreamsGroupTopology:
		key = map[string]any{"groupId": r.Group}
		subs := []any{}
		for _, st := range r.Topology.Subtopologies {
			cgs := []any{}
			for _, cg := range st.CopartitionGroups {
				cgs = append(cgs, map[string]any{"sourceTopics": nonNil(cg.SourceTopics), "sourceTopicRegex": []int16{},
					"repartitionSourceTopics": nonNil(cg.RepartitionSourceTopics)})
			}
			subs = append(subs, map[string]any{"subtopologyId": st.ID, "sourceTopics": nonNil(st.SourceTopics), "sourceTopicRegex": []string{},
				"stateChangelogTopics": topicInfosJSON(st.StateChangelogTopics), "repartitionSinkTopics": nonNil(st.RepartitionSinkTopics),
				"repartitionSourceTopics": topicInfosJSON(st.RepartitionSourceTopics), "copartitionGroups": cgs})
		}
		value = map[string]any{"epoch": r.Topology.Epoch, "subtopologies": subs}
		return key, value, r.Tombstone, true
	case *shard.StreamsGroupMemberMetadata:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"instanceId": r.InstanceID, "rackId": r.RackID, "clientId": r.ClientID, "rebalanceTimeoutMs": r.RebalanceTimeoutMs,
			"topologyEpoch": r.TopologyEpoch, "processId": r.ProcessID, "userEndpoint": endpointJSON(r.UserEndpoint), "clientTags": []any{}}
		return key, value, r.Tombstone, true
	case *shard.StreamsGroupTargetAssignmentMetadata:
		key, value = targetEpochJSON(r.Group, r.AssignmentEpoch, r.AssignmentTimestampMs)
		return key, value, r.Tombstone, true
	case *shard.StreamsGroupTargetAssignmentMember:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"activeTasks": tasksJSON(r.ActiveTasks), "standbyTasks": tasksJSON(r.StandbyTasks), "warmupTasks": tasksJSON(r.WarmupTasks)}
		return key, value, r.Tombstone, true
	case *shard.StreamsGroupCurrentMemberAssignment:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"memberEpoch": r.MemberEpoch, "previousMemberEpoch": r.PreviousMemberEpoch, "state": int(r.State),
			"activeTasks": tasksJSON(r.ActiveTasks), "standbyTasks": tasksJSON(r.StandbyTasks), "warmupTasks": tasksJSON(r.WarmupTasks),
			"activeTasksPendingRevocation": tasksJSON(r.ActiveTasksPendingRevocation), "standbyTasksPendingRevocation": tasksJSON(r.StandbyTasksPendingRevocation),
			"warmupTasksPendingRevocation": tasksJSON(r.WarmupTasksPendingRevocation)}
		return key, value, r.Tombstone, true
	}
	return nil, nil, false, false
}

// The oracle's streams answers in the canonical form.

func (n normaliser) streamsHeartbeat(m map[string]any) any {
	status := []any{}
	for _, s := range asList(field(m, "status")) {
		sm := asMap(s)
		detail, _ := sm["statusDetail"].(string)
		status = append(status, map[string]any{"statusCode": num(sm["statusCode"]), "statusDetail": canonicalDetail(detail)})
	}
	creatable := []any{}
	for _, t := range asList(field(m, "oracleCreatableTopics")) {
		tm := asMap(t)
		creatable = append(creatable, map[string]any{"name": tm["name"], "partitions": num(tm["partitions"])})
	}
	out := map[string]any{"memberId": field(m, "memberId"), "memberEpoch": num(field(m, "memberEpoch")),
		"heartbeatIntervalMs": num(field(m, "heartbeatIntervalMs")), "status": status,
		"endpointInformationEpoch": num(field(m, "endpointInformationEpoch")), "creatableTopics": creatable,
		"activeTasks": nil, "standbyTasks": nil, "warmupTasks": nil, "partitionsByUserEndpoint": nil}
	for _, k := range []string{"activeTasks", "standbyTasks", "warmupTasks"} {
		if l, ok := field(m, k).([]any); ok {
			out[k] = nonNil(asList(n.value(l)))
		}
	}
	taskOffsetInterval(out, num(field(m, "taskOffsetIntervalMs")))
	if eps, ok := field(m, "partitionsByUserEndpoint").([]any); ok {
		list := []any{}
		for _, e := range eps {
			em := asMap(e)
			ep := asMap(em["userEndpoint"])
			list = append(list, map[string]any{"userEndpoint": map[string]any{"host": ep["host"], "port": num(ep["port"])},
				"activePartitions": nonNil(asList(n.value(em["activePartitions"]))), "standbyPartitions": nonNil(asList(n.value(em["standbyPartitions"])))})
		}
		out["partitionsByUserEndpoint"] = sortedByJSON(list)
	}
	return out
}

func (n normaliser) streamsDescribe(resp any) any {
	tasks := func(a any) map[string]any {
		am := asMap(a)
		return map[string]any{"activeTasks": nonNil(asList(n.value(am["activeTasks"]))),
			"standbyTasks": nonNil(asList(n.value(am["standbyTasks"]))), "warmupTasks": nonNil(asList(n.value(am["warmupTasks"])))}
	}
	return describeGroups(resp, func(gm map[string]any) map[string]any {
		return map[string]any{"topology": n.value(gm["topology"])}
	}, func(mm map[string]any) map[string]any {
		var endpoint any
		if ep := asMap(mm["userEndpoint"]); ep != nil {
			endpoint = map[string]any{"host": ep["host"], "port": num(ep["port"])}
		}
		md := asMap(n.value(map[string]any{"instanceId": mm["instanceId"], "rackId": mm["rackId"]}))
		md["memberId"], md["memberEpoch"], md["clientId"] = mm["memberId"], num(mm["memberEpoch"]), mm["clientId"]
		md["topologyEpoch"], md["processId"], md["userEndpoint"] = num(mm["topologyEpoch"]), mm["processId"], endpoint
		md["assignment"], md["targetAssignment"] = tasks(mm["assignment"]), tasks(mm["targetAssignment"])
		md["taskOffsets"], md["taskEndOffsets"] = nonNil(asList(n.value(mm["taskOffsets"]))), nonNil(asList(n.value(mm["taskEndOffsets"])))
		return md
	})
}

// taskOffsetInterval sets an answer's taskOffsetIntervalMs when a group
// config set it: neither the broker's default (60000) nor a leave's (0).
// Answers recorded before it was compared leave it out; the recovery lag,
// a v1 field the oracle's v0 answers do not carry, is left to wire tests.
func taskOffsetInterval(m map[string]any, ms int64) {
	if ms != 0 && ms != 60_000 {
		m["taskOffsetIntervalMs"] = ms
	}
}
