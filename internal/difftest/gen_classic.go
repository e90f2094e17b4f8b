package difftest

import (
	"encoding/base64"
	"fmt"
	"slices"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
)

// The generator's classic members: consumers of the classic protocol in
// the consumer groups cg0 and cg1 (whose KIP-848 members heartbeat beside
// them, so a group is upgraded when a consumer member joins a classic
// group and downgraded when the last consumer member leaves one with
// classic members) and in kg0, a group only classic members use. They join
// (MEMBER_ID_REQUIRED first), the leader syncs an assignment it computes,
// followers sync, all heartbeat and leave, with a wrong generation, an
// unknown member id, a bad session timeout or protocol now and then.

// classicGroups are the groups classic members join.
var classicGroups = []string{"cg0", "cg1", "kg0"}

// classicMember is what the generator believes of a classic member.
type classicMember struct {
	group      string
	clientID   string
	instanceID *string
	memberID   string // "" until the coordinator gave one
	generation int32
	protocol   string
	// joined: its last JoinGroup succeeded at generation; synced: its
	// SyncGroup too.
	joined, synced bool
	leader         bool
	// members are the group's members the leader's JoinGroup answer
	// listed: their ids and subscriptions.
	members []classicPeer
	// joinReq and syncReq are its parked requests' numbers, 0 for none.
	joinReq, syncReq int
	subscribed       []string
	sessionTimeoutMs int32
}

type classicPeer struct {
	id     string
	topics []string
}

func (g *generator) addClassicMembers() {
	for gi, group := range classicGroups {
		for mi := range 2 {
			m := &classicMember{group: group, clientID: fmt.Sprintf("classic-%d-%d", gi, mi)}
			if mi == 1 && group == "kg0" {
				inst := "classic-instance-kg0"
				m.instanceID = &inst
			}
			g.classics = append(g.classics, m)
		}
	}
}

// nextReq numbers a JoinGroup or SyncGroup: both sides answer it under
// this number, now or later.
func (g *generator) nextReq(m *classicMember) int {
	g.reqs++
	if g.reqOwner == nil {
		g.reqOwner = map[int]*classicMember{}
	}
	g.reqOwner[g.reqs] = m
	return g.reqs
}

// classic is a classic member's next request.
func (g *generator) classic() Op {
	if g.chance(0.08) {
		return ClassicDescribe{Groups: []string{g.pick(append(slices.Clone(classicGroups), "simple", "nope"))}}
	}
	m := g.classics[g.rng.IntN(len(g.classics))]
	g.lastClassic = m
	switch {
	case m.joinReq != 0 || m.syncReq != 0:
		// Waiting for an answer: the client's heartbeat thread goes on.
		return g.classicHeartbeat(m)
	case !m.joined || g.chance(0.04):
		return g.classicJoin(m)
	case !m.synced:
		return g.classicSync(m)
	}
	switch r := g.rng.IntN(100); {
	case r < 70:
		return g.classicHeartbeat(m)
	case r < 80:
		return g.classicLeave(m)
	case r < 90:
		return g.classicJoin(m)
	default:
		return g.classicSync(m)
	}
}

// subscriptionBytes is the member's ConsumerProtocol subscription (v3, as
// a Kafka 4 client sends it), which migration parses.
func (g *generator) subscriptionBytes(m *classicMember) []byte {
	s := kmsg.NewConsumerMemberMetadata()
	s.Version = 3
	s.Topics = slices.Clone(m.subscribed)
	s.Generation = -1
	if m.joined {
		s.Generation = m.generation
	}
	return s.AppendTo(nil)
}

func (g *generator) classicJoin(m *classicMember) Op {
	if m.subscribed == nil || g.chance(0.2) {
		m.subscribed = g.subscription()
	}
	if m.sessionTimeoutMs == 0 {
		m.sessionTimeoutMs = int32(g.pick2(45_000, 10_000))
	}
	j := ClassicJoin{ClientID: m.clientID, GroupID: m.group, MemberID: m.memberID, InstanceID: m.instanceID,
		SessionTimeoutMs: m.sessionTimeoutMs, RebalanceTimeoutMs: int32(g.pick2(30_000, 5_000)), ProtocolType: "consumer"}
	protocols := []string{"range"}
	if g.chance(0.5) {
		protocols = []string{"cooperative-sticky", "range"}
	}
	meta := g.subscriptionBytes(m)
	for _, p := range protocols {
		j.Protocols = append(j.Protocols, ClassicProtocol{Name: p, Metadata: meta})
	}
	if g.chance(0.3) {
		reason := "rebalance"
		j.Reason = &reason
	}
	switch c := g.invalidCase(5); c {
	case 0:
		j.MemberID = "unknown-member"
	case 1:
		j.SessionTimeoutMs = 1_000 // below group.classic.min.session.timeout.ms
	case 2:
		j.GroupID = ""
	case 3:
		j.ProtocolType = "connect"
	case 4:
		j.Protocols = []ClassicProtocol{{Name: "roundrobin", Metadata: meta}}
	}
	j.Req = g.nextReq(m)
	return j
}

func (g *generator) classicSync(m *classicMember) Op {
	s := ClassicSync{ClientID: m.clientID, GroupID: m.group, Generation: m.generation, MemberID: m.memberID, InstanceID: m.instanceID,
		ProtocolType: "consumer", ProtocolName: m.protocol}
	if s.ProtocolName == "" {
		s.ProtocolName = "range"
	}
	if m.leader {
		s.Assignments = g.assign(m.members)
	}
	switch c := g.invalidCase(3); c {
	case 0:
		s.Generation++
	case 1:
		s.ProtocolName = "roundrobin"
	case 2:
		s.MemberID = "unknown-member"
	}
	s.Req = g.nextReq(m)
	return s
}

// assign is the leader's assignment: the partitions of the topics its
// members subscribe to, dealt round robin among the subscribers in member
// id order, as ConsumerProtocol assignment bytes.
func (g *generator) assign(peers []classicPeer) []ClassicAssignment {
	byMember := map[string]map[string][]int32{}
	for _, t := range g.topics {
		var subs []string
		for _, p := range peers {
			if slices.Contains(p.topics, t.Name) {
				subs = append(subs, p.id)
			}
		}
		if len(subs) == 0 {
			continue
		}
		for p := range t.Partitions {
			id := subs[int(p)%len(subs)]
			if byMember[id] == nil {
				byMember[id] = map[string][]int32{}
			}
			byMember[id][t.Name] = append(byMember[id][t.Name], p)
		}
	}
	var out []ClassicAssignment
	for _, p := range peers {
		a := kmsg.NewConsumerMemberAssignment()
		a.Version = 3
		for _, t := range g.topics {
			if ps := byMember[p.id][t.Name]; len(ps) > 0 {
				a.Topics = append(a.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: t.Name, Partitions: ps})
			}
		}
		out = append(out, ClassicAssignment{MemberID: p.id, Assignment: a.AppendTo(nil)})
	}
	return out
}

func (g *generator) classicHeartbeat(m *classicMember) Op {
	h := ClassicHeartbeat{ClientID: m.clientID, GroupID: m.group, Generation: m.generation, MemberID: m.memberID, InstanceID: m.instanceID}
	switch c := g.invalidCase(3); c {
	case 0:
		h.Generation++
	case 1:
		h.MemberID = "unknown-member"
	case 2:
		h.GroupID = ""
	}
	return h
}

// classicLeave is the member's LeaveGroup; now and then another member of
// the group leaves in the same batch, or a member nobody knows.
func (g *generator) classicLeave(m *classicMember) Op {
	l := ClassicLeave{ClientID: m.clientID, GroupID: m.group, Members: []ClassicLeaveMember{{MemberID: m.memberID, InstanceID: m.instanceID}}}
	if m.instanceID != nil && g.chance(0.3) {
		l.Members[0].MemberID = "" // a static member leaves by its instance id
	}
	if g.chance(0.2) {
		for _, o := range g.classics {
			if o != m && o.group == m.group && o.memberID != "" {
				l.Members = append(l.Members, ClassicLeaveMember{MemberID: o.memberID, InstanceID: o.instanceID})
				g.left = append(g.left, o)
				break
			}
		}
	}
	if g.chance(0.1) {
		l.Members = append(l.Members, ClassicLeaveMember{MemberID: "unknown-member"})
	}
	return l
}

// observeClassic updates the generator's beliefs from Kafka's answer: the
// member's own, and those of parked requests the op released.
func (g *generator) observeClassic(op Op, out Outcome) {
	for _, c := range out.Completed {
		cm := asMap(c)
		req := int(num(cm["req"]))
		if m := g.reqOwner[req]; m != nil {
			g.classicAnswer(m, req, asMap(cm["response"]))
			delete(g.reqOwner, req)
		}
	}
	m := g.lastClassic
	g.lastClassic = nil
	left := g.left
	g.left = nil
	if m == nil {
		return
	}
	resp := asMap(out.Response)
	switch op := op.(type) {
	case ClassicJoin:
		g.classicReply(m, &m.joinReq, op.Req, resp)
	case ClassicSync:
		g.classicReply(m, &m.syncReq, op.Req, resp)
	case ClassicHeartbeat:
		g.classicError(m, num(resp["errorCode"]))
	case ClassicLeave:
		if num(resp["errorCode"]) == 0 {
			for _, x := range append(left, m) {
				x.memberID, x.joined, x.synced, x.leader = "", false, false, false
			}
		}
	}
}

// classicReply takes Kafka's direct reply to m's JoinGroup or SyncGroup
// req: a parked request is kept in *parked (m.joinReq or m.syncReq) until
// a later op's Completed releases it; any other reply is the answer.
func (g *generator) classicReply(m *classicMember, parked *int, req int, resp map[string]any) {
	if _, pending := resp["pending"]; pending {
		*parked = req
		return
	}
	delete(g.reqOwner, req)
	g.classicAnswer(m, req, resp)
}

// classicAnswer applies the answer to m's JoinGroup or SyncGroup req.
func (g *generator) classicAnswer(m *classicMember, req int, resp map[string]any) {
	code := num(resp["errorCode"])
	if m.joinReq == req {
		m.joinReq = 0
	}
	if m.syncReq == req {
		m.syncReq = 0
	}
	if _, join := resp["memberId"]; join {
		id, _ := resp["memberId"].(string)
		switch {
		case code == int64(kerr.MemberIDRequired.Code):
			m.memberID = id
			return
		case code != 0:
			g.classicError(m, code)
			return
		}
		m.memberID, m.generation, m.joined, m.synced = id, int32(num(resp["generationId"])), true, false
		m.protocol, _ = resp["protocolName"].(string)
		leader, _ := resp["leader"].(string)
		m.leader = leader == id
		m.members = nil
		for _, x := range asList(resp["members"]) {
			xm := asMap(x)
			mid, _ := xm["memberId"].(string)
			m.members = append(m.members, classicPeer{id: mid, topics: subscribedTopics(xm["metadata"])})
		}
		return
	}
	if code != 0 {
		g.classicError(m, code)
		return
	}
	m.synced = true
}

// classicError is what a classic client does on an error: rejoin, or
// start over without its member id.
func (g *generator) classicError(m *classicMember, code int64) {
	switch int16(code) {
	case 0:
	case kerr.UnknownMemberID.Code, kerr.FencedInstanceID.Code, kerr.NotCoordinator.Code:
		m.memberID, m.joined, m.synced, m.leader = "", false, false, false
	case kerr.RebalanceInProgress.Code, kerr.IllegalGeneration.Code:
		m.joined, m.synced = false, false
	}
}

func subscribedTopics(meta any) []string {
	s, _ := meta.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil
	}
	var md kmsg.ConsumerMemberMetadata
	if err := md.ReadFrom(b); err != nil {
		return nil
	}
	return md.Topics
}
