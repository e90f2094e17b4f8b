package coordtest

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/cockroachdb/datadriven"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// The classic protocol's scenario commands: join, sync, classic-heartbeat,
// leave and classic-encoding.
//
// A member id is named by the alias of the join that got it (as=A, then
// member=@A); the scenario prints aliases, not the generated ids. A parked
// JoinGroup or SyncGroup prints "pending" and is reported ("completed A:
// ...") by the command that releases it.

// classicIDs maps aliases to member ids, and back for printing.
type classicIDs struct {
	byAlias map[string]string
	// opaque are the aliases whose ids generatedID does not match (a
	// consumer group's, Kafka's Uuid form), in the order they were got.
	opaque []string
	// consumerProtocol: "classic-encoding consumer" made the scenario's
	// protocol metadata and assignments consumer-protocol bytes.
	consumerProtocol bool
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
	out := generatedID.ReplaceAllString(id, "@$1")
	for _, alias := range c.opaque {
		out = strings.ReplaceAll(out, c.byAlias[alias], "@"+alias)
	}
	return out
}

// remember names id by alias.
func (c *classicIDs) remember(alias, id string) {
	if c.byAlias[alias] == id {
		return
	}
	c.byAlias[alias] = id
	if !generatedID.MatchString(id) {
		c.opaque = append(c.opaque, alias)
	}
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
		bytes := []byte(meta)
		if ids.consumerProtocol {
			var err error
			if bytes, err = consumerSubscription(d, meta); err != nil {
				return "", err
			}
		}
		req.Protocols = append(req.Protocols, shard.ClassicProtocol{Name: name, Metadata: bytes})
	}
	f := h.Coordinator.JoinGroup(req)
	h.Poll()
	return awaitOrPark(s, alias, f, func(r shard.JoinGroupResponse, err error) string {
		if err == nil && r.MemberID != "" && r.MemberID != req.MemberID {
			ids.remember(alias, r.MemberID)
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
		m, spec, _ := strings.Cut(a, ":")
		bytes := []byte(spec)
		if ids.consumerProtocol {
			var err error
			if bytes, err = consumerAssignment(spec); err != nil {
				return "", err
			}
		}
		req.Assignments = append(req.Assignments, shard.SyncGroupAssignment{MemberID: ids.resolve(m), Assignment: bytes})
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
		if ids.consumerProtocol {
			return fmt.Sprintf("assignment=%s protocol=%s", decodedAssignment(r.Assignment), r.ProtocolName)
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

// classic-encoding consumer|opaque switches the scenario's classic bytes.
// After "classic-encoding consumer" (online migration scenarios) a join's
// protocol metadata is a consumer-protocol Subscription v3 of its topics
// (range:foo+bar), owning the join's owned=(foo-0,...) at generation gen=N
// (-1 by default), and a SyncGroup assignment (@A:foo-0+foo-1) a
// consumer-protocol Assignment v3; both print decoded.
func (s *scenario) classicEncoding(d *datadriven.TestData) (string, error) {
	s.classic.consumerProtocol = len(d.CmdArgs) > 0 && d.CmdArgs[0].Key == "consumer"
	return "ok", nil
}

// leave group=G members=(@A,instance:I,...) [async] sends a LeaveGroup,
// one line per member: "ok" or its error. async does not wait for the
// write, as commit's.
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
	describe := func(r shard.LeaveGroupResponse, err error) string {
		if err != nil {
			return "error: " + err.Error()
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
		return strings.TrimSuffix(b.String(), "\n")
	}
	f := s.h.Coordinator.LeaveGroup(req)
	if d.HasArg("async") {
		return awaitOrPark(s, "leave "+strings.Join(list(d, "members"), ","), f, describe), nil
	}
	return describe(Await(s.h, f)), nil
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
			meta := string(m.Metadata)
			if ids.consumerProtocol {
				meta = decodedSubscription(m.Metadata)
			}
			ms = append(ms, ids.name(m.MemberID)+":"+meta)
		}
		fmt.Fprintf(&b, " members=[%s]", strings.Join(ms, " "))
	}
	return b.String()
}

// consumerSubscription encodes a join's topics ("foo+bar") as a
// consumer-protocol Subscription v3, with the command's owned partitions
// and generation.
func consumerSubscription(d *datadriven.TestData, topics string) ([]byte, error) {
	m := kmsg.NewConsumerMemberMetadata()
	m.Version = 3
	if topics != "" {
		m.Topics = strings.Split(topics, "+")
	}
	m.Generation = int32(num(d, "gen", -1))
	owned, err := topicPartitions(list(d, "owned"))
	if err != nil {
		return nil, err
	}
	for _, tp := range owned {
		m.OwnedPartitions = append(m.OwnedPartitions, kmsg.ConsumerMemberMetadataOwnedPartition{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return m.AppendTo(nil), nil
}

// consumerAssignment encodes "foo-0+foo-1" as a consumer-protocol
// Assignment v3 ("" is the empty assignment).
func consumerAssignment(spec string) ([]byte, error) {
	a := kmsg.NewConsumerMemberAssignment()
	a.Version = 3
	var specs []string
	if spec != "" {
		specs = strings.Split(spec, "+")
	}
	parts, err := topicPartitions(specs)
	if err != nil {
		return nil, err
	}
	for _, tp := range parts {
		a.Topics = append(a.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return a.AppendTo(nil), nil
}

// decodedSubscription prints a consumer-protocol Subscription's topics.
func decodedSubscription(b []byte) string {
	m := kmsg.NewConsumerMemberMetadata()
	if err := m.ReadFrom(b); err != nil {
		return fmt.Sprintf("%q", b)
	}
	return strings.Join(m.Topics, "+")
}

// decodedAssignment prints a consumer-protocol Assignment ("{foo:0,1}").
func decodedAssignment(b []byte) string {
	if len(b) == 0 {
		return "{}"
	}
	a := kmsg.NewConsumerMemberAssignment()
	if err := a.ReadFrom(b); err != nil {
		return fmt.Sprintf("%q", b)
	}
	var parts []shard.TopicPartitions
	for _, t := range a.Topics {
		parts = append(parts, shard.TopicPartitions{Topic: t.Topic, Partitions: t.Partitions})
	}
	return "{" + shard.FormatAssignment(parts) + "}"
}
