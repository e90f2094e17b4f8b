package coordtest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/shard"
)

// The classic protocol's scenario commands: join, sync, classic-heartbeat
// and leave.
//
// A member id is named by the alias of the join that got it (as=A, then
// member=@A); the scenario prints aliases, not the generated ids. A parked
// JoinGroup or SyncGroup prints "pending" and is reported ("completed A:
// ...") by the command that releases it.

// classicIDs maps aliases to member ids, and back for printing.
type classicIDs struct {
	byAlias map[string]string
}

func (c *classicIDs) resolve(v string) string {
	if strings.HasPrefix(v, "@") {
		if id, ok := c.byAlias[v[1:]]; ok {
			return id
		}
		return v[1:]
	}
	return v
}

func (c *classicIDs) name(id string) string {
	return generatedID.ReplaceAllString(id, "@$1")
}

// generatedID matches a member id the coordinator generated: the client
// id (the join's alias here) or instance id, and a UUID.
var generatedID = regexp.MustCompile(`\b([A-Za-z0-9_.]+)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b`)

// join group=G as=A [member=@A] [instance=I] [protocols=(range:t1+t2,...)]
// [protocol-type=T] [session-ms=N] [rebalance-ms=N] [v=N] sends a
// JoinGroup as client A; the member id it gets is named @A from then on.
func (s *scenario) join(d *datadriven.TestData) (string, error) {
	h, ids := s.h, &s.classic
	alias := str(d, "as")
	req := shard.JoinGroupRequest{GroupID: str(d, "group"), MemberID: ids.resolve(str(d, "member")), InstanceID: str(d, "instance"),
		ClientID: alias, ClientHost: "/127.0.0.1", SessionTimeoutMs: int32(num(d, "session-ms", 10_000)),
		RebalanceTimeoutMs: int32(num(d, "rebalance-ms", 30_000)), ProtocolType: "consumer",
		RequireKnownMemberID: num(d, "v", 9) >= 4}
	if d.HasArg("protocol-type") {
		req.ProtocolType = str(d, "protocol-type")
	}
	protocols := list(d, "protocols")
	if protocols == nil {
		protocols = []string{"range:foo"}
	}
	for _, p := range protocols {
		name, meta, _ := strings.Cut(p, ":")
		req.Protocols = append(req.Protocols, shard.ClassicProtocol{Name: name, Metadata: []byte(meta)})
	}
	f := h.Coordinator.JoinGroup(req)
	h.Poll()
	return awaitOrPark(s, alias, f, func(r shard.JoinGroupResponse, err error) string {
		if err == nil && r.MemberID != "" {
			ids.byAlias[alias] = r.MemberID
		}
		return joinLine(ids, r, err)
	}), nil
}

// sync group=G member=@A generation=N [assign=(@A:bytes,...)] [protocol=P]
// [protocol-type=T] [instance=I] sends a SyncGroup; the leader's carries
// the assignments.
func (s *scenario) sync(d *datadriven.TestData) (string, error) {
	h, ids := s.h, &s.classic
	req := shard.SyncGroupRequest{GroupID: str(d, "group"), MemberID: ids.resolve(str(d, "member")), InstanceID: str(d, "instance"),
		GenerationID: int32(num(d, "generation", 0)), ProtocolType: str(d, "protocol-type"), ProtocolName: str(d, "protocol")}
	for _, a := range list(d, "assign") {
		m, bytes, _ := strings.Cut(a, ":")
		req.Assignments = append(req.Assignments, shard.SyncGroupAssignment{MemberID: ids.resolve(m), Assignment: []byte(bytes)})
	}
	label := "sync " + str(d, "member")
	f := h.Coordinator.SyncGroup(req)
	h.Poll()
	return awaitOrPark(s, label, f, func(r shard.SyncGroupResponse, err error) string {
		if err == nil {
			err = r.Err
		}
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("assignment=%q protocol=%s", r.Assignment, r.ProtocolName)
	}), nil
}

// classic-heartbeat group=G member=@A generation=N [instance=I] sends a
// classic Heartbeat.
func (s *scenario) classicHeartbeat(d *datadriven.TestData) (string, error) {
	req := shard.HeartbeatRequest{GroupID: str(d, "group"), MemberID: s.classic.resolve(str(d, "member")), InstanceID: str(d, "instance"),
		GenerationID: int32(num(d, "generation", 0))}
	_, err := Await(s.h, s.h.Coordinator.Heartbeat(req))
	if err != nil {
		return "error: " + err.Error(), nil
	}
	return "ok", nil
}

// leave group=G members=(@A,instance:I,...) sends a LeaveGroup, one line
// per member: "ok" or its error.
func (s *scenario) leave(d *datadriven.TestData) (string, error) {
	ids := &s.classic
	req := shard.LeaveGroupRequest{GroupID: str(d, "group")}
	for _, m := range list(d, "members") {
		if inst, ok := strings.CutPrefix(m, "instance:"); ok {
			req.Members = append(req.Members, shard.LeaveGroupMember{InstanceID: inst})
			continue
		}
		req.Members = append(req.Members, shard.LeaveGroupMember{MemberID: ids.resolve(m)})
	}
	r, err := Await(s.h, s.h.Coordinator.LeaveGroup(req))
	if err != nil {
		return "error: " + err.Error(), nil
	}
	var b strings.Builder
	for _, m := range r.Members {
		who := ids.name(m.MemberID)
		if m.MemberID == "" {
			who = "instance:" + m.InstanceID
		}
		if m.Err != nil {
			fmt.Fprintf(&b, "%s: error: %v\n", who, m.Err)
		} else {
			fmt.Fprintf(&b, "%s: ok\n", who)
		}
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// joinLine prints a JoinGroup answer with aliases for member ids.
func joinLine(ids *classicIDs, r shard.JoinGroupResponse, err error) string {
	if err == nil {
		err = r.Err
	}
	if err != nil {
		who := ""
		if r.MemberID != "" {
			who = " member=" + ids.name(r.MemberID)
		}
		return "error: " + err.Error() + who
	}
	var b strings.Builder
	fmt.Fprintf(&b, "member=%s generation=%d protocol=%s leader=%s", ids.name(r.MemberID), r.GenerationID, r.ProtocolName, ids.name(r.Leader))
	if r.SkipAssignment {
		b.WriteString(" skip-assignment")
	}
	if len(r.Members) > 0 {
		var ms []string
		for _, m := range r.Members {
			ms = append(ms, ids.name(m.MemberID)+":"+string(m.Metadata))
		}
		fmt.Fprintf(&b, " members=[%s]", strings.Join(ms, " "))
	}
	return b.String()
}
