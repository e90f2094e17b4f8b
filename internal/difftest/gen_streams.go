package difftest

import (
	"fmt"
	"slices"
	"strings"
)

// The generator's streams group: members that join with one of a few
// topologies (source topics only, a state store, a repartition step), now
// and then a different one (a topology change, which Kafka 4.4 refuses),
// heartbeat with the tasks they were given, leave, get fenced, ask for the
// application's shutdown, name a user endpoint; and the broker's side of
// KIP-1071: the internal topics a heartbeat asks for are created by a later
// topic image, as KafkaApis has the controller create them.

const streamsGroup = "st0"

// streamsTopologies are the topologies members join with; the first three
// at epoch 0, the last a new epoch of the first.
var streamsTopologies = []StreamsTopology{
	{Epoch: 0, Subtopologies: []StreamsSubtopology{{ID: "0", SourceTopics: []string{"t0"}}}},
	{Epoch: 0, Subtopologies: []StreamsSubtopology{{ID: "0", SourceTopics: []string{"t0", "t1"}, Changelogs: []string{"st0-store-changelog"}}}},
	{Epoch: 0, Subtopologies: []StreamsSubtopology{
		{ID: "0", SourceTopics: []string{"t1"}, RepartitionSink: []string{"st0-rep"}},
		{ID: "1", RepartitionSource: []string{"st0-rep"}, Changelogs: []string{"st0-agg-changelog"}},
	}},
	{Epoch: 1, Subtopologies: []StreamsSubtopology{{ID: "0", SourceTopics: []string{"t0", "t2"}}}},
}

func (g *generator) addStreamsMembers() {
	for mi := range 3 {
		m := &memberState{group: streamsGroup, id: fmt.Sprintf("streams-member-%d-xxxxxxxxxx", mi),
			streams: true, processID: fmt.Sprintf("process-%d", mi%2)}
		if mi == 2 {
			// A static member: it leaves temporarily (-2) now and then, and
			// may come back under another member id, replacing itself.
			inst := "instance-streams"
			m.instanceID = &inst
		}
		g.members = append(g.members, m)
	}
	g.streamsTopology = g.rng.IntN(3)
}

// otherStaticID is the member id a static streams member rejoins under
// when it comes back as a new member: its two ids alternate.
func otherStaticID(id string) string {
	if strings.HasSuffix(id, "xxxxxxxxxx") {
		return strings.TrimSuffix(id, "xxxxxxxxxx") + "yyyyyyyyyy"
	}
	return strings.TrimSuffix(id, "yyyyyyyyyy") + "xxxxxxxxxx"
}

// streamsOr is the streams group's id in a run with streams, else alt (so
// a run without streams draws the same ops as before they existed).
func (g *generator) streamsOr(alt string) string {
	if g.cfg.Streams {
		return streamsGroup
	}
	return alt
}

func cloneTasks(ts []Tasks) []Tasks {
	out := make([]Tasks, 0, len(ts))
	for _, t := range ts {
		out = append(out, Tasks{Subtopology: t.Subtopology, Partitions: slices.Clone(t.Partitions)})
	}
	return out
}

func (g *generator) streamsHeartbeat(m *memberState, clientID string) Op {
	if m.instanceID != nil && m.leftStatic && g.chance(0.5) {
		m.id = otherStaticID(m.id)
	}
	m.leftStatic = false
	h := StreamsHeartbeat{ClientID: clientID, GroupID: m.group, MemberID: m.id, InstanceID: m.instanceID, RebalanceTimeoutMs: -1, EndpointEpoch: m.endpointEpoch}
	if !m.joined || g.chance(0.03) {
		// A join (or a rejoin of a member that still exists), now and then
		// with another topology than the group's.
		t := g.streamsTopology
		if g.chance(0.08) {
			t = g.rng.IntN(len(streamsTopologies))
		}
		h.MemberEpoch = 0
		h.RebalanceTimeoutMs = int32(g.pick2(30_000, 5_000))
		h.Topology = &streamsTopologies[t]
		h.TasksSet = true
		pid := m.processID
		h.ProcessID = &pid
		if g.chance(0.15) {
			host := "host-" + m.processID
			h.UserEndpoint = &host
		}
		g.invalidStreams(&h)
		return h
	}
	h.MemberEpoch = m.epoch
	switch r := g.rng.IntN(100); {
	case r < 8:
		h.MemberEpoch = -1 // a leave; a static member leaves temporarily with -2
		if m.instanceID != nil && g.chance(0.5) {
			h.MemberEpoch = -2
			m.leftStatic = true
		}
		h.ShutdownApplication = g.chance(0.1)
		return h
	case r < 11:
		h.MemberEpoch = m.epoch + 1 + int32(g.rng.IntN(2)) // fenced
	case r < 14:
		h.MemberEpoch = max(m.epoch-1, 1)
	case r < 16:
		h.ShutdownApplication = true
	}
	// A Streams client reports its tasks: all it was given, or (while
	// revoking) part of its active tasks, or nothing.
	switch r := g.rng.IntN(10); {
	case r < 6:
		h.ActiveTasks, h.StandbyTasks, h.WarmupTasks, h.TasksSet = cloneTasks(m.active), cloneTasks(m.standby), cloneTasks(m.warmup), true
	case r < 8:
		active := cloneTasks(m.active)
		if len(active) > 0 {
			active = active[:len(active)-1]
		}
		h.ActiveTasks, h.StandbyTasks, h.WarmupTasks, h.TasksSet = active, cloneTasks(m.standby), cloneTasks(m.warmup), true
	}
	if g.chance(0.15) {
		h.TaskOffsets, h.TaskEndOffsets = g.taskOffsets(m)
	}
	g.invalidStreams(&h)
	return h
}

// taskOffsets is a report of the changelog offsets of the member's tasks
// and their end offsets: either list now and then not sent or empty, and
// now and then with a task twice (INVALID_REQUEST).
func (g *generator) taskOffsets(m *memberState) (offsets, end []TaskOffset) {
	offsets, end = []TaskOffset{}, []TaskOffset{}
	for _, ts := range [][]Tasks{m.active, m.standby, m.warmup} {
		for _, t := range ts {
			for _, p := range t.Partitions {
				o := int64(g.rng.IntN(1000))
				offsets = append(offsets, TaskOffset{Subtopology: t.Subtopology, Partition: p, Offset: o})
				end = append(end, TaskOffset{Subtopology: t.Subtopology, Partition: p, Offset: o + int64(g.rng.IntN(100))})
			}
		}
	}
	switch r := g.rng.IntN(10); {
	case r == 0:
		offsets = nil
	case r == 1:
		end = nil
	case r == 2 && len(offsets) > 0:
		offsets = append(offsets, offsets[0])
	case r == 3 && len(end) > 0:
		end = append(end, end[len(end)-1])
	}
	return offsets, end
}

// invalidStreams turns a streams heartbeat into an invalid one now and then.
func (g *generator) invalidStreams(h *StreamsHeartbeat) {
	c := g.invalidCase(6)
	invalidIDs(c, &h.MemberID, &h.GroupID, &h.MemberEpoch)
	switch c {
	case -1, 0, 1, 2:
	case 3:
		h.MemberEpoch = -2 // a static leave without an instance id
	case 4:
		if h.MemberEpoch != 0 {
			h.Topology = &streamsTopologies[g.streamsTopology] // a topology outside a join
		} else {
			h.RebalanceTimeoutMs = -1
		}
	default:
		h.StandbyTasks, h.WarmupTasks, h.TasksSet, h.ActiveOnly = nil, nil, false, true
	}
}

// createInternalTopics is the topic image with the internal topics the
// group's heartbeats asked for.
func (g *generator) createInternalTopics() Op {
	for _, t := range g.pendingInternal {
		if !slices.ContainsFunc(g.topics, func(x Topic) bool { return x.Name == t.Name }) {
			g.topics = append(g.topics, t)
		}
	}
	g.pendingInternal = nil
	return SetTopics{Topics: slices.Clone(g.topics)}
}

// observeStreams updates a streams member from the reference's answer.
func (g *generator) observeStreams(m *memberState, h StreamsHeartbeat, out Outcome) {
	if out.Error != "" {
		switch out.Error {
		case "FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID":
			m.joined, m.epoch, m.active, m.standby, m.warmup = false, 0, nil, nil, nil
		}
		return
	}
	if h.MemberEpoch < 0 {
		m.joined, m.epoch, m.active, m.standby, m.warmup = false, 0, nil, nil, nil
		return
	}
	resp := asMap(out.Response)
	m.joined = true
	m.epoch = int32(num(resp["memberEpoch"]))
	m.endpointEpoch = int32(num(resp["endpointInformationEpoch"]))
	if _, ok := resp["activeTasks"].([]any); ok {
		m.active, m.standby, m.warmup = tasksOf(resp["activeTasks"]), tasksOf(resp["standbyTasks"]), tasksOf(resp["warmupTasks"])
	}
	for _, t := range asList(resp["creatableTopics"]) {
		tm := asMap(t)
		name, _ := tm["name"].(string)
		if !slices.ContainsFunc(g.pendingInternal, func(x Topic) bool { return x.Name == name }) {
			g.pendingInternal = append(g.pendingInternal, Topic{Name: name, Partitions: int32(num(tm["partitions"]))})
		}
	}
}

func tasksOf(v any) []Tasks {
	var out []Tasks
	for _, t := range asList(v) {
		tm := asMap(t)
		id, _ := tm["subtopologyId"].(string)
		ts := Tasks{Subtopology: id}
		for _, p := range asList(tm["partitions"]) {
			ts.Partitions = append(ts.Partitions, int32(num(p)))
		}
		out = append(out, ts)
	}
	return out
}
