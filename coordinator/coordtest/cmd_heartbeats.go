package coordtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/shard"
)

// The group heartbeats: each prints "member-epoch=N", then the assignment
// when the response carries one and what else its type answers.

// consumer-heartbeat group= member= epoch= [topics=(a,b)] [assignor=NAME]
// [regex=RE2|()] [rack=R] [instance=I] [rebalance-timeout-ms=MS]
// [owned=(foo-0,foo-1)|owned=()] [async] sends a ConsumerGroupHeartbeat. A
// join (epoch 0) sends a 300 s rebalance timeout unless given; regex=()
// clears the member's regex; owned= sends TopicPartitions (owned=() empty);
// async does not wait for the write, as commit's.
// rebalanceTimeout is a heartbeat's rebalance timeout argument: as given
// (0 is a timeout of 0, -1 sends none), else 300 s on a join (epoch 0 or
// absent), where it is required, and none otherwise, as a client sends it
// (Kafka Streams' heartbeat state sends -1 after its join).
func rebalanceTimeout(d *datadriven.TestData, key string) int32 {
	if num(d, "epoch", 0) == 0 {
		return int32(num(d, key, 300_000))
	}
	return int32(num(d, key, int64(shard.RebalanceTimeoutNotSent)))
}

func (s *scenario) consumerHeartbeat(d *datadriven.TestData) (string, error) {
	req := shard.ConsumerGroupHeartbeatRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
		MemberEpoch: int32(num(d, "epoch", 0)), RebalanceTimeoutMs: rebalanceTimeout(d, "rebalance-timeout-ms"),
		SubscribedTopicNames: list(d, "topics"), InstanceID: str(d, "instance"), RackID: str(d, "rack")}
	if a, ok := d.Arg("assignor"); ok && len(a.Vals) == 1 {
		req.ServerAssignor = &a.Vals[0]
	}
	if a, ok := d.Arg("regex"); ok && len(a.Vals) == 1 {
		req.SubscribedTopicRegex = &a.Vals[0] // regex=() clears it
	}
	if d.HasArg("owned") {
		owned, err := ownedPartitions(list(d, "owned"))
		if err != nil {
			return "", err
		}
		req.TopicPartitions = owned
	}
	f := s.h.Coordinator.ConsumerGroupHeartbeat(req)
	describe := func(r shard.ConsumerGroupHeartbeatResponse, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return heartbeatLine(r.MemberEpoch, r.HasAssignment, shard.FormatAssignment(r.Assignment), "")
	}
	if d.HasArg("async") {
		return awaitOrPark(s, "consumer-heartbeat "+req.MemberID, f, describe), nil
	}
	r, err := Await(s.h, f)
	if err != nil {
		return "", err
	}
	return describe(r, nil), nil
}

// share-heartbeat group= member= epoch= [topics=(a,b)] [rack=R] sends a
// ShareGroupHeartbeat.
func (s *scenario) shareHeartbeat(d *datadriven.TestData) (string, error) {
	req := shard.ShareGroupHeartbeatRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
		MemberEpoch: int32(num(d, "epoch", 0)), SubscribedTopicNames: list(d, "topics"), RackID: str(d, "rack")}
	r, err := Await(s.h, s.h.Coordinator.ShareGroupHeartbeat(req))
	if err != nil {
		return "", err
	}
	return heartbeatLine(r.MemberEpoch, r.HasAssignment, shard.FormatAssignment(r.Assignment), ""), nil
}

// streams-heartbeat sends a StreamsGroupHeartbeat:
//
//	streams-heartbeat group= member= epoch= [rack=R] [process=P] [shutdown]
//	                  [topology-epoch=N subtopologies=(s0:foo+bar,s1:baz)]
//	                  [rebalance-timeout=MS] [owned=(s0-0,s0-1) [standby=(s1-0)] [warmup=()] | no-owned]
//	                  [endpoint=host:port] [endpoint-epoch=N]
//
// shutdown is ShutdownApplication (KIP-1071's application shutdown). The
// owned tasks are by default (epoch > 0) a caught-up client's, the tasks
// its member holds; owned= sends these (standby and warm-up empty unless
// given); no-owned sends none (Kafka's null). A subtopology may add
// /repartition=rp@4+rq (repartition source topics, @N fixes the count),
// /sink=rp (repartition sink topics), /changelog=c1+c2 and
// /copartition=foo+rp (repeatable). endpoint and endpoint-epoch are the
// member's user endpoint and the endpoint information epoch it knows
// (default 0); with either, or when the response carries endpoints, the
// line adds endpoint-epoch= and endpoints=.
func (s *scenario) streamsHeartbeat(d *datadriven.TestData) (string, error) {
	req := shard.StreamsGroupHeartbeatRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
		MemberEpoch: int32(num(d, "epoch", 0)), ProcessID: str(d, "process"), RackID: str(d, "rack"),
		RebalanceTimeoutMs: rebalanceTimeout(d, "rebalance-timeout"), Version: 1, ShutdownApplication: d.HasArg("shutdown")}
	if d.HasArg("subtopologies") {
		req.Topology = &shard.Topology{Epoch: int32(num(d, "topology-epoch", 0))}
		for _, spec := range list(d, "subtopologies") {
			st, err := parseSubtopology(spec)
			if err != nil {
				return "", err
			}
			req.Topology.Subtopologies = append(req.Topology.Subtopologies, st)
		}
	}
	if err := streamsOwnedTasks(s.h, d, &req); err != nil {
		return "", err
	}
	if e := str(d, "endpoint"); e != "" {
		host, port, ok := strings.Cut(e, ":")
		n, err := strconv.ParseUint(port, 10, 16)
		if !ok || err != nil {
			return "", fmt.Errorf("endpoint %q is not host:port", e)
		}
		req.UserEndpoint = &shard.Endpoint{Host: host, Port: uint16(n)}
	}
	req.EndpointInformationEpoch = int32(num(d, "endpoint-epoch", 0))
	r, err := Await(s.h, s.h.Coordinator.StreamsGroupHeartbeat(req))
	if err != nil {
		return "", err
	}
	var status []string
	for _, st := range r.Status {
		status = append(status, st.String())
	}
	tasks := shard.FormatTasks(r.ActiveTasks)
	if len(r.StandbyTasks) > 0 {
		tasks += " standby=" + shard.FormatTasks(r.StandbyTasks)
	}
	if len(r.WarmupTasks) > 0 {
		tasks += " warmup=" + shard.FormatTasks(r.WarmupTasks)
	}
	line := heartbeatLine(r.MemberEpoch, r.HasAssignment, tasks, strings.Join(status, ","))
	if r.TopologyDescriptionRequired {
		line += " topology-description-required"
	}
	if d.HasArg("endpoint") || d.HasArg("endpoint-epoch") || len(r.PartitionsByUserEndpoint) > 0 {
		line += fmt.Sprintf(" endpoint-epoch=%d", r.EndpointInformationEpoch)
		if r.PartitionsByUserEndpoint != nil {
			line += " endpoints=" + formatEndpoints(r.PartitionsByUserEndpoint)
		}
	}
	if len(r.InternalTopicsToCreate) > 0 {
		var create []string
		for _, ct := range r.InternalTopicsToCreate {
			create = append(create, fmt.Sprintf("%s@%d", ct.Name, ct.NumPartitions))
		}
		line += " create=(" + strings.Join(create, ",") + ")"
	}
	return line, nil
}

// heartbeatLine is a heartbeat's answer: its epoch, the assignment when
// the response carries one, the streams status when there is one.
func heartbeatLine(epoch int32, has bool, assignment, status string) string {
	line := fmt.Sprintf("member-epoch=%d", epoch)
	if has {
		line += " assignment=" + assignment
	}
	if status != "" {
		line += " status=" + status
	}
	return line
}

// parseSubtopology reads "id:src1+src2[/repartition=rp@4+rq][/sink=rp]
// [/changelog=c][/copartition=src1+rp]...": an empty source list is
// allowed ("s1:/repartition=rp").
func parseSubtopology(spec string) (shard.Subtopology, error) {
	segs := strings.Split(spec, "/")
	id, sources, ok := strings.Cut(segs[0], ":")
	if !ok {
		return shard.Subtopology{}, fmt.Errorf("subtopology %q: want id:topics", spec)
	}
	st := shard.Subtopology{ID: id}
	if sources != "" {
		st.SourceTopics = strings.Split(sources, "+")
	}
	var copartitions [][]string
	for _, seg := range segs[1:] {
		key, val, _ := strings.Cut(seg, "=")
		names := strings.Split(val, "+")
		switch key {
		case "repartition":
			for _, n := range names {
				name, parts, fixed := strings.Cut(n, "@")
				ti := shard.TopicInfo{Name: name}
				if fixed {
					p, err := strconv.Atoi(parts)
					if err != nil {
						return st, fmt.Errorf("subtopology %q: partitions of %q: %w", spec, n, err)
					}
					ti.Partitions = int32(p)
				}
				st.RepartitionSourceTopics = append(st.RepartitionSourceTopics, ti)
			}
		case "sink":
			st.RepartitionSinkTopics = append(st.RepartitionSinkTopics, names...)
		case "changelog":
			for _, n := range names {
				st.StateChangelogTopics = append(st.StateChangelogTopics, shard.TopicInfo{Name: n})
			}
		case "copartition":
			copartitions = append(copartitions, names)
		default:
			return st, fmt.Errorf("subtopology %q: unknown part %q", spec, key)
		}
	}
	// Copartition groups name topics; the model holds indexes.
	for _, names := range copartitions {
		var cg shard.CopartitionGroup
		for _, n := range names {
			if i := slices.Index(st.SourceTopics, n); i >= 0 {
				cg.SourceTopics = append(cg.SourceTopics, int16(i))
			} else if i := slices.Index(st.RepartitionSourceTopicNames(), n); i >= 0 {
				cg.RepartitionSourceTopics = append(cg.RepartitionSourceTopics, int16(i))
			} else {
				return st, fmt.Errorf("subtopology %q: copartitioned topic %q is not read", spec, n)
			}
		}
		st.CopartitionGroups = append(st.CopartitionGroups, cg)
	}
	return st, nil
}

// streamsOwnedTasks fills a streams heartbeat's owned tasks (see
// streamsHeartbeat's usage).
func streamsOwnedTasks(h *Harness, d *datadriven.TestData, req *shard.StreamsGroupHeartbeatRequest) error {
	if d.HasArg("no-owned") {
		return nil
	}
	if d.HasArg("owned") {
		var sets [3][]shard.TaskIDs
		for i, key := range [3]string{"owned", "standby", "warmup"} {
			sets[i] = []shard.TaskIDs{}
			if !d.HasArg(key) {
				continue
			}
			tps, err := ownedPartitions(list(d, key))
			if err != nil {
				return err
			}
			for _, tp := range tps {
				sets[i] = append(sets[i], shard.TaskIDs{SubtopologyID: tp.Topic, Partitions: tp.Partitions})
			}
		}
		req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = sets[0], sets[1], sets[2]
		return nil
	}
	if req.MemberEpoch <= 0 {
		return nil
	}
	req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []shard.TaskIDs{}, []shard.TaskIDs{}, []shard.TaskIDs{}
	g, err := h.Group(req.GroupID)
	if err != nil {
		return nil // the heartbeat answers for a missing group
	}
	for _, m := range g.Members {
		if m.MemberID == req.MemberID {
			req.ActiveTasks = append(req.ActiveTasks, m.ActiveTasks...)
			req.StandbyTasks = append(req.StandbyTasks, m.StandbyTasks...)
			req.WarmupTasks = append(req.WarmupTasks, m.WarmupTasks...)
		}
	}
	return nil
}

// formatEndpoints prints PartitionsByUserEndpoint as
// (host:port{foo:0,1|standby foo:2},...).
func formatEndpoints(eps []shard.EndpointPartitions) string {
	var parts []string
	for _, e := range eps {
		p := e.UserEndpoint.String() + "{" + shard.FormatAssignment(e.ActivePartitions)
		if len(e.StandbyPartitions) > 0 {
			p += "|standby " + shard.FormatAssignment(e.StandbyPartitions)
		}
		parts = append(parts, p+"}")
	}
	return "(" + strings.Join(parts, ",") + ")"
}
