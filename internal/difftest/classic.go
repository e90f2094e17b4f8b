package difftest

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The classic group protocol's ops: JoinGroup, SyncGroup, Heartbeat,
// LeaveGroup and DescribeGroups, as a classic consumer (or one being
// migrated, KIP-848's online migration) sends them. A JoinGroup or
// SyncGroup may be parked by the coordinator (the delayed join, a follower
// waiting for the leader's assignment) and answered at a later op or
// timer: each carries a request number (Req) both sides answer it under,
// at the op itself or in a later op's Completed list (Kafka's response
// futures; coordsim's shard.Completion handles).

// ClassicProtocol is one protocol of a JoinGroup: its name and metadata
// (ConsumerProtocol subscription bytes for protocol type "consumer").
type ClassicProtocol struct {
	Name     string `json:"name"`
	Metadata []byte `json:"metadata"`
}

// ClassicJoin is a JoinGroup (v9). MemberID "" is a new member, who is
// sent back with MEMBER_ID_REQUIRED first (KIP-394).
type ClassicJoin struct {
	Req                int               `json:"req"`
	ClientID           string            `json:"clientId"`
	GroupID            string            `json:"groupId"`
	MemberID           string            `json:"memberId"`
	InstanceID         *string           `json:"instanceId,omitempty"`
	SessionTimeoutMs   int32             `json:"sessionTimeoutMs"`
	RebalanceTimeoutMs int32             `json:"rebalanceTimeoutMs"`
	ProtocolType       string            `json:"protocolType"`
	Protocols          []ClassicProtocol `json:"protocols"`
	Reason             *string           `json:"reason,omitempty"`
}

// ClassicAssignment is one member's assignment in the leader's SyncGroup.
type ClassicAssignment struct {
	MemberID   string `json:"memberId"`
	Assignment []byte `json:"assignment"`
}

// ClassicSync is a SyncGroup (v5).
type ClassicSync struct {
	Req          int                 `json:"req"`
	ClientID     string              `json:"clientId"`
	GroupID      string              `json:"groupId"`
	Generation   int32               `json:"generation"`
	MemberID     string              `json:"memberId"`
	InstanceID   *string             `json:"instanceId,omitempty"`
	ProtocolType string              `json:"protocolType"`
	ProtocolName string              `json:"protocolName"`
	Assignments  []ClassicAssignment `json:"assignments,omitempty"`
}

// ClassicHeartbeat is a Heartbeat (v4).
type ClassicHeartbeat struct {
	ClientID   string  `json:"clientId"`
	GroupID    string  `json:"groupId"`
	Generation int32   `json:"generation"`
	MemberID   string  `json:"memberId"`
	InstanceID *string `json:"instanceId,omitempty"`
}

// ClassicLeaveMember is one member of a batch LeaveGroup (KIP-345).
type ClassicLeaveMember struct {
	MemberID   string  `json:"memberId"`
	InstanceID *string `json:"instanceId,omitempty"`
}

// ClassicLeave is a LeaveGroup (v5).
type ClassicLeave struct {
	ClientID string               `json:"clientId"`
	GroupID  string               `json:"groupId"`
	Members  []ClassicLeaveMember `json:"members"`
}

// ClassicDescribe is a DescribeGroups (v6): classic groups are described,
// any other group id is GROUP_ID_NOT_FOUND.
type ClassicDescribe struct {
	Groups []string `json:"groups"`
}

func (ClassicJoin) Name() string      { return "classic_join" }
func (ClassicSync) Name() string      { return "classic_sync" }
func (ClassicHeartbeat) Name() string { return "classic_heartbeat" }
func (ClassicLeave) Name() string     { return "classic_leave" }
func (ClassicDescribe) Name() string  { return "classic_describe" }

func init() {
	decoders["classic_join"] = decodeAs[ClassicJoin]
	decoders["classic_sync"] = decodeAs[ClassicSync]
	decoders["classic_heartbeat"] = decodeAs[ClassicHeartbeat]
	decoders["classic_leave"] = decodeAs[ClassicLeave]
	decoders["classic_describe"] = decodeAs[ClassicDescribe]
}

// The oracle's lines: the request messages in Kafka's JSON.

func (o ClassicJoin) oracle(topicIDs) map[string]any {
	protocols := []any{}
	for _, p := range o.Protocols {
		protocols = append(protocols, map[string]any{"name": p.Name, "metadata": nonNil(p.Metadata)})
	}
	return map[string]any{"version": 9, "clientId": o.ClientID, "req": o.Req, "request": map[string]any{
		"groupId": o.GroupID, "sessionTimeoutMs": o.SessionTimeoutMs, "rebalanceTimeoutMs": o.RebalanceTimeoutMs,
		"memberId": o.MemberID, "groupInstanceId": nullable(o.InstanceID), "protocolType": o.ProtocolType,
		"protocols": protocols, "reason": nullable(o.Reason),
	}}
}

func (o ClassicSync) oracle(topicIDs) map[string]any {
	as := []any{}
	for _, a := range o.Assignments {
		as = append(as, map[string]any{"memberId": a.MemberID, "assignment": nonNil(a.Assignment)})
	}
	return map[string]any{"version": 5, "clientId": o.ClientID, "req": o.Req, "request": map[string]any{
		"groupId": o.GroupID, "generationId": o.Generation, "memberId": o.MemberID, "groupInstanceId": nullable(o.InstanceID),
		"protocolType": o.ProtocolType, "protocolName": o.ProtocolName, "assignments": as,
	}}
}

func (o ClassicHeartbeat) oracle(topicIDs) map[string]any {
	return map[string]any{"version": 4, "clientId": o.ClientID, "request": map[string]any{
		"groupId": o.GroupID, "generationId": o.Generation, "memberId": o.MemberID, "groupInstanceId": nullable(o.InstanceID),
	}}
}

func (o ClassicLeave) oracle(topicIDs) map[string]any {
	ms := []any{}
	for _, m := range o.Members {
		ms = append(ms, map[string]any{"memberId": m.MemberID, "groupInstanceId": nullable(m.InstanceID), "reason": nil})
	}
	return map[string]any{"version": 5, "clientId": o.ClientID, "request": map[string]any{"groupId": o.GroupID, "members": ms}}
}

func (o ClassicDescribe) oracle(topicIDs) map[string]any {
	return map[string]any{"version": 6, "groups": nonNil(o.Groups)}
}

// Coordsim's side: the shard's classic API, driven as package coordinator
// drives it, with the request number as the parked request's handle.

func (o ClassicJoin) run(d *driver) Outcome {
	req := shard.JoinGroupRequest{
		GroupID: o.GroupID, MemberID: o.MemberID, InstanceID: str(o.InstanceID), ClientID: o.ClientID,
		SessionTimeoutMs: o.SessionTimeoutMs, RebalanceTimeoutMs: o.RebalanceTimeoutMs, ProtocolType: o.ProtocolType,
		RequireKnownMemberID: true, Reason: str(o.Reason), Handle: uint64(o.Req),
	}
	for _, p := range o.Protocols {
		req.Protocols = append(req.Protocols, shard.ClassicProtocol{Name: p.Name, Metadata: p.Metadata})
	}
	res, err := d.s.JoinGroup(d.nowMs, req)
	if err != nil {
		return errOutcome(err)
	}
	return parkable(d, o.Req, o.GroupID, res, res.Response.Pending, func() any {
		return joinJSON(res.Response)
	})
}

func (o ClassicSync) run(d *driver) Outcome {
	req := shard.SyncGroupRequest{
		GroupID: o.GroupID, MemberID: o.MemberID, InstanceID: str(o.InstanceID), GenerationID: o.Generation,
		ProtocolType: o.ProtocolType, ProtocolName: o.ProtocolName, Handle: uint64(o.Req),
	}
	for _, a := range o.Assignments {
		req.Assignments = append(req.Assignments, shard.SyncGroupAssignment{MemberID: a.MemberID, Assignment: a.Assignment})
	}
	res, err := d.s.SyncGroup(d.nowMs, req)
	if err != nil {
		return errOutcome(err)
	}
	return parkable(d, o.Req, o.GroupID, res, res.Response.Pending, func() any { return syncJSON(res.Response) })
}

func (o ClassicHeartbeat) run(d *driver) Outcome {
	res, err := d.s.Heartbeat(d.nowMs, shard.HeartbeatRequest{GroupID: o.GroupID, MemberID: o.MemberID,
		InstanceID: str(o.InstanceID), GenerationID: o.Generation})
	if err != nil {
		return Outcome{Response: map[string]any{"errorCode": int64(kerr.Code(err))}, Records: []any{}}
	}
	out := Outcome{Response: map[string]any{"errorCode": int64(kerr.Code(res.Response.Err))}, Records: d.commit(res.Records, res.Timers)}
	d.deliver(res.Completions)
	return out
}

func (o ClassicLeave) run(d *driver) Outcome {
	req := shard.LeaveGroupRequest{GroupID: o.GroupID}
	for _, m := range o.Members {
		req.Members = append(req.Members, shard.LeaveGroupMember{MemberID: m.MemberID, InstanceID: str(m.InstanceID)})
	}
	res, err := d.s.LeaveGroup(d.nowMs, req)
	if err != nil {
		return Outcome{Response: map[string]any{"errorCode": int64(kerr.Code(err)), "members": []any{}}, Records: []any{}}
	}
	members := []any{}
	for _, m := range res.Response.Members {
		members = append(members, map[string]any{"memberId": m.MemberID, "groupInstanceId": m.InstanceID, "errorCode": int64(kerr.Code(m.Err))})
	}
	out := Outcome{Response: map[string]any{"errorCode": int64(0), "members": members}, Records: d.commit(res.Records, res.Timers)}
	d.deliver(res.Completions)
	return out
}

func (o ClassicDescribe) run(d *driver) Outcome {
	out := []any{}
	for _, id := range o.Groups {
		g, ok := d.s.DescribeGroup(id)
		if !ok || g.Type != shard.Classic {
			out = append(out, map[string]any{"groupId": id, "errorCode": int64(kerr.GroupIDNotFound.Code), "groupState": "Dead"})
			continue
		}
		// A simple group (offsets only) is an Empty classic group with
		// no members.
		st := g.Classic
		if st == nil {
			st = &shard.ClassicGroupState{}
		}
		protocol := ""
		if g.State == shard.StateStable {
			// Only a Stable group shows its protocol, as Kafka's
			// describeGroups.
			protocol = st.ProtocolName
		}
		members := []any{}
		for _, m := range st.Members {
			// Every state shows the member's assignment, only Stable its
			// metadata (ClassicGroupMember.describe, describeNoMetadata).
			md := map[string]any{"memberId": m.MemberID, "groupInstanceId": m.InstanceID, "clientId": m.ClientID,
				"memberMetadata": "", "memberAssignment": assignmentBytesJSON(m.Assignment)}
			if g.State == shard.StateStable {
				for _, p := range m.Protocols {
					if p.Name == st.ProtocolName {
						md["memberMetadata"] = b64(p.Metadata)
					}
				}
			}
			members = append(members, md)
		}
		sortByMemberID(members)
		out = append(out, map[string]any{"groupId": id, "errorCode": int64(0), "groupState": g.State.MetricLabel(),
			"protocolType": g.ProtocolType, "protocolData": protocol, "members": members})
	}
	return Outcome{Response: out, Records: []any{}}
}

// The driver's parked classic requests.

// park notes that request req, of group, waits for a later answer.
// parkable commits a JoinGroup's or SyncGroup's result and answers it: at
// once, or "pending" with the request parked under its number until a
// later completion answers it; the completions the result releases are
// delivered either way.
func parkable[T any](d *driver, req int, group string, res shard.Result[T], pending bool, answer func() any) Outcome {
	out := Outcome{Records: d.commit(res.Records, res.Timers)}
	if pending {
		d.park(req, group)
		out.Response = pendingJSON()
	} else {
		out.Response = answer()
	}
	d.deliver(res.Completions)
	return d.ownAnswer(req, out)
}

func (d *driver) park(req int, group string) {
	if d.parked == nil {
		d.parked = map[int]string{}
	}
	d.parked[req] = group
}

// deliver takes the completions of a result: those of requests this
// driver parked (a handle a reload left in the replayed state names none)
// become answers, reported with the op that released them.
func (d *driver) deliver(cs []shard.Completion) {
	for _, c := range cs {
		req := int(c.Handle)
		if _, ok := d.parked[req]; !ok {
			continue
		}
		var resp any
		switch {
		case c.Join != nil:
			resp = joinJSON(*c.Join)
		case c.Sync != nil:
			resp = syncJSON(*c.Sync)
		}
		delete(d.parked, req)
		d.completed = append(d.completed, completedJSON(req, resp))
	}
}

// ownAnswer moves a request's own completion, released by the op that
// parked it, into its response.
func (d *driver) ownAnswer(req int, out Outcome) Outcome {
	for i, c := range d.completed {
		if int(num(asMap(c)["req"])) == req {
			out.Response = asMap(c)["response"]
			d.completed = slices.Delete(d.completed, i, i+1)
			break
		}
	}
	return out
}

// unloaded answers every parked request NOT_COORDINATOR, as Kafka's
// onUnloaded completes a classic group's futures when the shard moves
// (completeAllJoinFutures gives a JoinGroup its member's id).
func (d *driver) unloaded() {
	reqs := make([]int, 0, len(d.parked))
	for r := range d.parked {
		reqs = append(reqs, r)
	}
	slices.Sort(reqs)
	for _, r := range reqs {
		resp := map[string]any{"errorCode": int64(kerr.NotCoordinator.Code)}
		if g, ok := d.s.DescribeGroup(d.parked[r]); ok && g.Classic != nil {
			for _, m := range g.Classic.Members {
				if m.JoinHandle == uint64(r) {
					resp["memberId"] = m.MemberID
				}
			}
		}
		d.completed = append(d.completed, completedJSON(r, resp))
	}
	d.parked = nil
}

// takeCompleted returns the answers released since the last call, by
// request number.
func (d *driver) takeCompleted() []any {
	out := d.completed
	d.completed = nil
	sortCompleted(out)
	return out
}

// The canonical answers. A failed JoinGroup or SyncGroup is compared by its
// code (and a JoinGroup's member id), as a client reads nothing else of
// it; assignments are compared decoded (ConsumerProtocol), so the order a
// coordinator encodes partitions in does not count.

func pendingJSON() map[string]any { return map[string]any{"pending": true} }

func completedJSON(req int, resp any) map[string]any {
	return map[string]any{"req": int64(req), "response": resp}
}

func sortCompleted(cs []any) {
	slices.SortFunc(cs, func(a, b any) int { return int(num(asMap(a)["req"]) - num(asMap(b)["req"])) })
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func joinJSON(r shard.JoinGroupResponse) map[string]any {
	code := int64(kerr.Code(r.Err))
	if code != 0 {
		return map[string]any{"errorCode": code, "memberId": r.MemberID}
	}
	members := []any{}
	for _, m := range r.Members {
		members = append(members, map[string]any{"memberId": m.MemberID, "groupInstanceId": m.InstanceID, "metadata": b64(m.Metadata)})
	}
	sortByMemberID(members)
	return map[string]any{"errorCode": code, "memberId": r.MemberID, "generationId": int64(r.GenerationID),
		"protocolType": r.ProtocolType, "protocolName": r.ProtocolName, "leader": r.Leader,
		"skipAssignment": r.SkipAssignment, "members": members}
}

func syncJSON(r shard.SyncGroupResponse) map[string]any {
	code := int64(kerr.Code(r.Err))
	if code != 0 {
		return map[string]any{"errorCode": code}
	}
	return map[string]any{"errorCode": code, "protocolType": r.ProtocolType, "protocolName": r.ProtocolName,
		"assignment": assignmentBytesJSON(r.Assignment)}
}

// assignmentBytesJSON is ConsumerProtocol assignment bytes decoded to
// sorted topic partitions (with the version and whether user data is
// set), or the bytes in base64 when they do not decode.
func assignmentBytesJSON(b []byte) any {
	if len(b) == 0 {
		return ""
	}
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil {
		return b64(b)
	}
	var tps []shard.TopicPartitions
	for _, t := range a.Topics {
		tps = append(tps, shard.TopicPartitions{Topic: t.Topic, Partitions: t.Partitions})
	}
	return map[string]any{"version": int64(a.Version), "userData": len(a.UserData) > 0, "partitions": assignmentJSON(tps)}
}

func sortByMemberID(members []any) {
	slices.SortFunc(members, func(a, b any) int {
		return strings.Compare(fmt.Sprint(asMap(a)["memberId"]), fmt.Sprint(asMap(b)["memberId"]))
	})
}

// The oracle's answers in the canonical form.

func (n normaliser) classicResponse(op Op, m map[string]any, resp any) any {
	switch op.(type) {
	case ClassicJoin, ClassicSync:
		return n.parkedResponse(m)
	case ClassicHeartbeat:
		return map[string]any{"errorCode": num(field(m, "errorCode"))}
	case ClassicLeave:
		members := []any{}
		for _, x := range asList(field(m, "members")) {
			xm := asMap(x)
			members = append(members, map[string]any{"memberId": xm["memberId"], "groupInstanceId": strOrEmpty(xm["groupInstanceId"]),
				"errorCode": num(xm["errorCode"])})
		}
		return map[string]any{"errorCode": num(field(m, "errorCode")), "members": members}
	case ClassicDescribe:
		out := []any{}
		for _, g := range asList(resp) {
			gm := asMap(g)
			if code := num(gm["errorCode"]); code != 0 {
				out = append(out, map[string]any{"groupId": gm["groupId"], "errorCode": code, "groupState": gm["groupState"]})
				continue
			}
			members := []any{}
			for _, x := range asList(gm["members"]) {
				xm := asMap(x)
				meta, _ := xm["memberMetadata"].(string)
				members = append(members, map[string]any{"memberId": xm["memberId"], "groupInstanceId": strOrEmpty(xm["groupInstanceId"]),
					"clientId": xm["clientId"], "memberMetadata": meta, "memberAssignment": assignmentB64JSON(xm["memberAssignment"])})
			}
			sortByMemberID(members)
			out = append(out, map[string]any{"groupId": gm["groupId"], "errorCode": int64(0), "groupState": gm["groupState"],
				"protocolType": gm["protocolType"], "protocolData": gm["protocolData"], "members": members})
		}
		return out
	}
	return nil
}

// parkedResponse is a JoinGroup's or SyncGroup's answer (told apart by
// generationId, which only a JoinGroup answer has), or pending.
func (n normaliser) parkedResponse(m map[string]any) any {
	if p, _ := m["pending"].(bool); p {
		return pendingJSON()
	}
	code := num(field(m, "errorCode"))
	if _, join := m["generationId"]; join {
		if code != 0 {
			return map[string]any{"errorCode": code, "memberId": m["memberId"]}
		}
		members := []any{}
		for _, x := range asList(m["members"]) {
			xm := asMap(x)
			meta, _ := xm["metadata"].(string)
			members = append(members, map[string]any{"memberId": xm["memberId"], "groupInstanceId": strOrEmpty(xm["groupInstanceId"]), "metadata": meta})
		}
		sortByMemberID(members)
		return map[string]any{"errorCode": code, "memberId": m["memberId"], "generationId": num(m["generationId"]),
			"protocolType": strOrEmpty(m["protocolType"]), "protocolName": strOrEmpty(m["protocolName"]), "leader": m["leader"],
			"skipAssignment": m["skipAssignment"] == true, "members": members}
	}
	if code != 0 {
		return map[string]any{"errorCode": code}
	}
	return map[string]any{"errorCode": code, "protocolType": strOrEmpty(m["protocolType"]), "protocolName": strOrEmpty(m["protocolName"]),
		"assignment": assignmentB64JSON(m["assignment"])}
}

// completed normalises the oracle's list of answers to parked requests.
func (n normaliser) completed(raw []any) []any {
	out := []any{}
	for _, c := range raw {
		cm := asMap(c)
		out = append(out, completedJSON(int(num(cm["req"])), n.parkedResponse(asMap(cm["response"]))))
	}
	sortCompleted(out)
	return out
}

func assignmentB64JSON(v any) any {
	s, _ := v.(string)
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return s
	}
	return assignmentBytesJSON(b)
}

func strOrEmpty(v any) string {
	s, _ := v.(string)
	return s
}

// countClassic adds what an op both sides agreed on did for the classic
// protocol to counts: JoinGroups and SyncGroups sent and answered without
// error (now or when released: a successful SyncGroup is a completed
// rebalance), and the groups converted, told by the records of one op: a
// classic group's tombstone with a consumer group's epoch is an upgrade, a
// consumer group's tombstone with a classic generation past 0 a downgrade.
func countClassic(op Op, out Outcome, counts map[string]int) {
	switch op.(type) {
	case ClassicJoin:
		counts["joins"]++
	case ClassicSync:
		counts["syncs"]++
	}
	answers := []any{}
	if _, ok := op.(ClassicJoin); ok {
		answers = append(answers, out.Response)
	}
	if _, ok := op.(ClassicSync); ok {
		answers = append(answers, out.Response)
	}
	for _, c := range out.Completed {
		answers = append(answers, asMap(c)["response"])
	}
	for _, a := range answers {
		m := asMap(a)
		if m == nil || m["pending"] != nil || num(m["errorCode"]) != 0 {
			continue
		}
		if _, join := m["memberId"]; join {
			counts["joined"]++
		} else {
			counts["synced"]++
		}
	}
	classicGone, consumerGone, classicNew, consumerNew := map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
	for _, r := range out.Records {
		rm := asMap(r)
		key, value := asMap(rm["key"]), asMap(rm["value"])
		switch rm["type"] {
		case "GroupMetadata":
			g, _ := key["group"].(string)
			if value == nil {
				classicGone[g] = true
			} else if num(value["generation"]) > 0 {
				classicNew[g] = true
			}
		case "ConsumerGroupMetadata":
			g, _ := key["groupId"].(string)
			if value == nil {
				consumerGone[g] = true
			} else {
				consumerNew[g] = true
			}
		}
	}
	for g := range classicGone {
		if consumerNew[g] {
			counts["upgrades"]++
		}
	}
	for g := range consumerGone {
		if classicNew[g] {
			counts["downgrades"]++
		}
	}
}
