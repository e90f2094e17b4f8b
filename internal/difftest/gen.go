package difftest

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// GenConfig says what the generator may produce. The zero value of each
// switch leaves out a behaviour whose divergence from Kafka is known and
// open (docs/fidelity.md), so a default run reports only what is new.
type GenConfig struct {
	// Share adds share groups: heartbeats, describes, and the share-state
	// initialisation that comes before a partition is assigned (KIP-932).
	Share bool
	// Regex adds regular-expression subscriptions, which Kafka resolves
	// asynchronously and coordsim inside the heartbeat.
	Regex bool
	// Streams adds a streams group (KIP-1071). Kafka 4.4's configured
	// topology lags the topic image (streams-configured-topology), so most
	// streams sequences end in a known divergence within a few ops; a
	// default run leaves them out to compare the rest to the end.
	Streams bool
	// NoClassic leaves out the classic group protocol (JoinGroup,
	// SyncGroup, Heartbeat, LeaveGroup, DescribeGroups) and with it the
	// online migration between classic and consumer groups.
	NoClassic bool
}

// memberState is what the generator believes of a member, learnt from the
// oracle's answers (the reference decides).
type memberState struct {
	group      string
	id         string
	instanceID *string
	share      bool
	joined     bool
	epoch      int32
	assignment []TopicPartitions
	subscribed []string
	// A streams member's process, tasks and the endpoint information
	// epoch it last heard.
	streams                 bool
	processID               string
	active, standby, warmup []Tasks
	endpointEpoch           int32
	// leftStatic: the static member's last op was a temporary leave (-2).
	leftStatic bool
}

// generator produces one sequence of ops from a seed, adapting to the
// answers it is shown (observe) so that most requests are valid: members
// heartbeat with their epochs and own what they were given. Every random
// choice comes from its own PCG, in a fixed order.
type generator struct {
	cfg     GenConfig
	rng     *rand.Rand
	topics  []Topic
	members []*memberState
	// txnGroup is the group each producer's open transaction commits to.
	txnGroup map[int64]string
	last     *memberState // the member the last op was for
	// streamsTopology is the topology streams members join with (an index
	// of streamsTopologies); pendingInternal the internal topics their
	// heartbeats asked the broker to create.
	streamsTopology int
	pendingInternal []Topic
	// classics are the classic members (gen_classic.go); lastClassic the
	// one the last op was for, left the others its LeaveGroup named;
	// reqs numbers JoinGroups and SyncGroups, reqOwner says whose each is.
	classics    []*classicMember
	lastClassic *classicMember
	left        []*classicMember
	reqs        int
	reqOwner    map[int]*classicMember
}

var topicNames = []string{"t0", "t1", "t2", "t3"}

func newGenerator(seed uint64, cfg GenConfig) *generator {
	g := &generator{cfg: cfg, rng: rand.New(rand.NewPCG(seed, 0x6f7261636c65)), txnGroup: map[int64]string{}}
	for gi, group := range []string{"cg0", "cg1"} {
		for mi := range 3 {
			m := &memberState{group: group, id: fmt.Sprintf("member-%d-%d-xxxxxxxxxxxxx", gi, mi)}
			if mi == 2 {
				inst := fmt.Sprintf("instance-%d", gi)
				m.instanceID = &inst
			}
			g.members = append(g.members, m)
		}
	}
	if cfg.Share {
		for mi := range 2 {
			g.members = append(g.members, &memberState{group: "sg0", id: fmt.Sprintf("share-member-%d-xxxxxxxxxxxx", mi), share: true})
		}
	}
	if cfg.Streams {
		g.addStreamsMembers()
	}
	if !cfg.NoClassic {
		g.addClassicMembers()
	}
	return g
}

func (g *generator) chance(p float64) bool { return g.rng.Float64() < p }

func (g *generator) pick(xs []string) string { return xs[g.rng.IntN(len(xs))] }

// first is the sequence's opening op: the topic image.
func (g *generator) first() Op {
	n := 2 + g.rng.IntN(2)
	g.topics = nil
	for _, name := range topicNames[:n] {
		g.topics = append(g.topics, Topic{Name: name, Partitions: int32(1 + g.rng.IntN(4))})
	}
	return SetTopics{Topics: slices.Clone(g.topics)}
}

// next is the sequence's next op.
func (g *generator) next() Op {
	g.last = nil
	if len(g.pendingInternal) > 0 && g.chance(0.3) {
		return g.createInternalTopics()
	}
	if len(g.classics) > 0 && g.chance(0.25) {
		return g.classic()
	}
	switch r := g.rng.IntN(100); {
	case r < 40:
		return g.heartbeat()
	case r < 55:
		return g.commit()
	case r < 59:
		return g.txnCommit()
	case r < 62:
		return g.endTxn()
	case r < 67:
		return g.fetch()
	case r < 70:
		return g.offsetDelete()
	case r < 72:
		return DeleteGroups{Groups: []string{g.pick([]string{"cg0", "cg1", "sg0", g.streamsOr("simple"), "simple", "nope"})}}
	case r < 74:
		return ListGroups{}
	case r < 77:
		if g.cfg.Streams && g.chance(0.3) {
			return StreamsDescribe{Groups: []string{g.pick([]string{streamsGroup, "cg0"})}}
		}
		return DescribeGroups{Share: g.cfg.Share && g.chance(0.3), Groups: []string{g.pick([]string{"cg0", "cg1", "sg0", "simple"})}}
	case r < 93:
		return g.advance()
	case r < 96:
		if g.chance(0.25) {
			return g.groupConfig()
		}
		return g.changeTopics()
	default:
		return Reload{}
	}
}

func (g *generator) advance() Op {
	switch r := g.rng.IntN(20); {
	case r < 14:
		return Advance{Ms: int64(1 + g.rng.IntN(6000))}
	case r < 19:
		return Advance{Ms: int64(30_000 + g.rng.IntN(30_000))}
	default:
		// Past the offsets retention and a sweep.
		return Advance{Ms: 7*24*3600*1000 + 600_000}
	}
}

func (g *generator) changeTopics() Op {
	next := slices.Clone(g.topics)
	switch r := g.rng.IntN(3); {
	case r == 0 && len(next) > 1:
		i := g.rng.IntN(len(next))
		next = slices.Delete(next, i, i+1)
	case r == 1:
		i := g.rng.IntN(len(next))
		next[i].Partitions += int32(1 + g.rng.IntN(2))
	default:
		for _, name := range topicNames {
			if !slices.ContainsFunc(next, func(t Topic) bool { return t.Name == name }) {
				next = append(next, Topic{Name: name, Partitions: int32(1 + g.rng.IntN(3))})
				break
			}
		}
	}
	g.topics = next
	return SetTopics{Topics: slices.Clone(next)}
}

// subscription is a random non-empty subset of the topic names (a deleted
// or never created name now and then).
func (g *generator) subscription() []string {
	var out []string
	for _, name := range topicNames {
		if g.chance(0.4) {
			out = append(out, name)
		}
	}
	if len(out) == 0 {
		out = []string{g.pick(topicNames)}
	}
	return out
}

func (g *generator) heartbeat() Op {
	m := g.members[g.rng.IntN(len(g.members))]
	g.last = m
	clientID := "client-" + m.id[:8]
	if g.chance(0.1) {
		// A client id change outside a join: Kafka writes the member
		// record without an epoch bump (closed divergence client-id-change).
		clientID = fmt.Sprintf("client-%d", g.rng.IntN(3))
	}
	if m.share {
		return g.shareHeartbeat(m, clientID)
	}
	if m.streams {
		return g.streamsHeartbeat(m, clientID)
	}
	h := ConsumerHeartbeat{ClientID: clientID, GroupID: m.group, MemberID: m.id, InstanceID: m.instanceID, RebalanceTimeoutMs: -1}
	if !m.joined || g.chance(0.03) {
		// A join (or a rejoin of a member that still exists).
		h.MemberEpoch = 0
		h.RebalanceTimeoutMs = g.rebalanceTimeout(5_000)
		m.subscribed = g.subscription()
		h.Subscribed = slices.Clone(m.subscribed)
		h.OwnedSet = true
		if g.cfg.Regex && g.chance(0.2) {
			re := g.pick([]string{"t[01]", "t.*", "x.*"})
			h.Regex = &re
		}
		if g.chance(0.2) {
			a := g.pick([]string{"range", "uniform"})
			h.ServerAssignor = &a
		}
		g.invalid(&h)
		return h
	}
	h.MemberEpoch = m.epoch
	switch r := g.rng.IntN(100); {
	case r < 8:
		// A leave; a static member leaves temporarily with -2.
		h.MemberEpoch = -1
		if m.instanceID != nil && g.chance(0.5) {
			h.MemberEpoch = -2
		}
		return h
	case r < 12:
		h.MemberEpoch = m.epoch + 1 + int32(g.rng.IntN(2)) // fenced
	case r < 16:
		h.MemberEpoch = max(m.epoch-1, 2) // maybe the previous epoch (no Kafka member has epoch 1)
	case r < 24:
		m.subscribed = g.subscription()
		h.Subscribed = slices.Clone(m.subscribed)
	}
	// A KIP-848 client reports what it owns: all it was given, or (while
	// revoking) part of it; now and then nothing at all.
	switch r := g.rng.IntN(10); {
	case r < 6:
		h.Owned = slices.Clone(m.assignment)
		h.OwnedSet = true
	case r < 8:
		if len(m.assignment) > 0 {
			h.Owned = slices.Clone(m.assignment[:len(m.assignment)-1])
		}
		h.OwnedSet = true
	}
	if g.chance(0.1) {
		h.RebalanceTimeoutMs = g.rebalanceTimeout(10_000)
	}
	g.invalid(&h)
	return h
}

// rebalanceTimeout is a heartbeat's rebalance timeout when it sends one:
// 30 s or short, and now and then 0, which Kafka takes as a timeout of 0
// (only -1 is "not sent"), so a member asked to revoke is fenced at once.
func (g *generator) rebalanceTimeout(short int) int32 {
	if g.chance(0.1) {
		return 0
	}
	return int32(g.pick2(30_000, short))
}

func (g *generator) pick2(a, b int) int {
	if g.chance(0.5) {
		return a
	}
	return b
}

// invalidCase picks, now and then, which field makes a heartbeat invalid:
// cases 0 to 2 are every type's (invalidIDs), the others n-3 the type's
// own; -1 leaves it valid.
func (g *generator) invalidCase(n int) int {
	if !g.chance(0.04) {
		return -1
	}
	return g.rng.IntN(n)
}

// invalidIDs applies cases 0 to 2: an empty member id, an epoch below -2,
// an empty group id.
func invalidIDs(c int, memberID, groupID *string, epoch *int32) {
	switch c {
	case 0:
		*memberID = ""
	case 1:
		*epoch = -3
	case 2:
		*groupID = ""
	}
}

// invalid turns a heartbeat into an invalid one now and then.
func (g *generator) invalid(h *ConsumerHeartbeat) {
	c := g.invalidCase(5)
	invalidIDs(c, &h.MemberID, &h.GroupID, &h.MemberEpoch)
	switch c {
	case -1, 0, 1, 2:
	case 3:
		h.Subscribed = nil
		h.MemberEpoch = 0
	default:
		bad := "nope"
		h.ServerAssignor = &bad
	}
}

func (g *generator) shareHeartbeat(m *memberState, clientID string) Op {
	h := ShareHeartbeat{ClientID: clientID, GroupID: m.group, MemberID: m.id}
	if !m.joined {
		m.subscribed = g.subscription()
		h.Subscribed = slices.Clone(m.subscribed)
		return h
	}
	h.MemberEpoch = m.epoch
	switch r := g.rng.IntN(10); {
	case r == 0:
		h.MemberEpoch = -1
	case r == 1:
		h.MemberEpoch = m.epoch + 1
	case r == 2:
		m.subscribed = g.subscription()
		h.Subscribed = slices.Clone(m.subscribed)
	}
	return h
}

func (g *generator) commitTopics() []CommitTopic {
	var out []CommitTopic
	for _, name := range topicNames {
		if !g.chance(0.35) {
			continue
		}
		t := CommitTopic{Topic: name}
		for p := range int32(1 + g.rng.IntN(3)) {
			off := int64(g.rng.IntN(1000))
			if g.chance(0.05) {
				off = -int64(1 + g.rng.IntN(3))
			}
			epoch := int32(-1)
			if g.chance(0.3) {
				epoch = int32(g.rng.IntN(5))
			}
			meta := ""
			if g.chance(0.1) {
				meta = "m"
			}
			t.Partitions = append(t.Partitions, CommitPartition{Partition: p + int32(g.rng.IntN(2)), Offset: off, LeaderEpoch: epoch, Metadata: meta})
		}
		out = append(out, t)
	}
	if out == nil {
		out = []CommitTopic{{Topic: g.pick(topicNames), Partitions: []CommitPartition{{Offset: int64(g.rng.IntN(100)), LeaderEpoch: -1}}}}
	}
	return out
}

// committer is who commits: a consumer member with its epoch (or a stale
// one), or nobody (a simple group's admin-style commit).
func (g *generator) committer() (group, member string, epoch int32, inst *string) {
	if g.chance(0.5) {
		m := g.members[g.rng.IntN(len(g.members))]
		if !m.share {
			epoch = m.epoch
			if g.chance(0.15) && epoch > 2 {
				epoch-- // stale (no Kafka member has epoch 1)
			}
			return m.group, m.id, epoch, m.instanceID
		}
	}
	return g.pick([]string{"simple", "cg0"}), "", -1, nil
}

func (g *generator) commit() Op {
	group, member, epoch, inst := g.committer()
	return OffsetCommit{GroupID: group, MemberID: member, MemberEpoch: epoch, InstanceID: inst, Topics: g.commitTopics()}
}

func (g *generator) txnCommit() Op {
	group, member, epoch, inst := g.committer()
	pid := int64(1 + g.rng.IntN(3))
	g.txnGroup[pid] = group // a transaction may span groups
	return TxnOffsetCommit{GroupID: group, ProducerID: pid, MemberID: member, MemberEpoch: epoch, InstanceID: inst, Topics: g.commitTopics()}
}

// endTxn ends a producer's transaction. Its marker names the group the
// producer last committed to, as a transaction coordinator's marker reaches
// the partition of the group it added; now and then another group: the
// marker completes the producer's offsets of every group either way.
func (g *generator) endTxn() Op {
	pid := int64(1 + g.rng.IntN(3))
	group, ok := g.txnGroup[pid]
	if !ok || g.chance(0.2) {
		group = g.pick([]string{"simple", "cg0", "cg1"})
	}
	delete(g.txnGroup, pid)
	return EndTxn{GroupID: group, ProducerID: pid, Commit: g.chance(0.6)}
}

func (g *generator) fetch() Op {
	group, member, epoch, _ := g.committer()
	f := OffsetFetch{GroupID: group, MemberEpoch: epoch, RequireStable: g.chance(0.3)}
	if member != "" {
		f.MemberID = &member
	}
	if g.chance(0.6) {
		for _, name := range topicNames[:2+g.rng.IntN(2)] {
			f.Topics = append(f.Topics, TopicPartitions{Topic: name, Partitions: []int32{0, int32(g.rng.IntN(3))}})
		}
	}
	return f
}

func (g *generator) offsetDelete() Op {
	return OffsetDelete{GroupID: g.pick([]string{"simple", "cg0", "cg1"}),
		Topics: []TopicPartitions{{Topic: g.pick(topicNames), Partitions: []int32{0, int32(g.rng.IntN(3))}}}}
}

// observe updates the generator's beliefs from the reference's answer.
func (g *generator) observe(op Op, out Outcome) {
	g.observeClassic(op, out)
	m := g.last
	if m == nil {
		return
	}
	switch op := op.(type) {
	case StreamsHeartbeat:
		g.observeStreams(m, op, out)
	case ConsumerHeartbeat, ShareHeartbeat:
		epoch := int32(0)
		if h, ok := op.(ConsumerHeartbeat); ok {
			epoch = h.MemberEpoch
		} else {
			epoch = op.(ShareHeartbeat).MemberEpoch
		}
		if out.Error != "" {
			switch out.Error {
			case "FENCED_MEMBER_EPOCH", "UNKNOWN_MEMBER_ID", "FENCED_INSTANCE_ID":
				m.joined, m.epoch, m.assignment = false, 0, nil
			}
			return
		}
		if epoch < 0 {
			m.joined, m.epoch, m.assignment = false, 0, nil
			return
		}
		resp, _ := out.Response.(map[string]any)
		m.joined = true
		m.epoch = int32(num(resp["memberEpoch"]))
		if a, ok := resp["assignment"].([]any); ok {
			m.assignment = nil
			for _, t := range a {
				tm := asMap(t)
				name, _ := tm["topic"].(string)
				tp := TopicPartitions{Topic: name}
				for _, p := range asList(tm["partitions"]) {
					tp.Partitions = append(tp.Partitions, int32(num(p)))
				}
				m.assignment = append(m.assignment, tp)
			}
		}
	}
}
