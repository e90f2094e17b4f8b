package difftest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The known divergences of the classic protocol's ops (known.go's table
// holds their rows; docs/fidelity.md their reproductions).

// classicJoinDropsEmptyConsumerGroup matches Kafka 4.4's classic JoinGroup
// with a member id to an empty consumer group: classicGroupJoinToClassicGroup
// removes the group from memory (maybeDeleteEmptyConsumerGroup) before
// getOrMaybeCreateClassicGroup refuses a known member id for a group it
// does not find, and answers UNKNOWN_MEMBER_ID with EMPTY_RESULT, dropping
// the tombstones: later writes find no group (GROUP_ID_NOT_FOUND, nothing
// to tombstone or fetch), a reload brings it back. coordsim leaves the
// group alone. It replays the ops on coordsim's side to find such a join
// (and no reload after it) on the group the diverging op names.
func classicJoinDropsEmptyConsumerGroup(d Divergence) bool {
	groups := map[string]bool{}
	switch op := d.Ops[d.Step].(type) {
	case DeleteGroups:
		for _, g := range op.Groups {
			groups[g] = true
		}
	case DescribeGroups:
		// A describe of the dropped group: GROUP_ID_NOT_FOUND in Kafka.
		for _, g := range op.Groups {
			groups[g] = true
		}
	case ClassicDescribe:
		for _, g := range op.Groups {
			groups[g] = true
		}
	default:
		groups[opGroup(op)] = true
	}
	// An op of no group (a time advance's sweep) names the groups its
	// records are for (group records key "groupId", offsets "group"), and
	// ListGroups the groups either side lists ("cg0 consumer Empty").
	for _, r := range append(slices.Clone(d.Kafka.Records), d.Ours.Records...) {
		key := asMap(asMap(r)["key"])
		for _, field := range []string{"groupId", "group"} {
			if g, ok := key[field].(string); ok {
				groups[g] = true
			}
		}
	}
	if _, ok := d.Ops[d.Step].(ListGroups); ok {
		for _, resp := range []any{d.Kafka.Response, d.Ours.Response} {
			listed, _ := resp.([]any)
			for _, l := range listed {
				if s, ok := l.(string); ok {
					groups[strings.Fields(s + " ")[0]] = true
				}
			}
		}
	}
	s, err := newOursOnly()
	if err != nil {
		return false
	}
	dropped := map[string]bool{}
	for _, op := range d.Ops[:d.Step] {
		switch op := op.(type) {
		case Reload:
			clear(dropped)
		case ClassicJoin:
			if t, ok := s.d.s.GroupType(op.GroupID); ok && t == shard.Consumer && op.MemberID != "" && !s.d.hasMembers(op.GroupID) {
				dropped[op.GroupID] = true
			}
		}
		s.step(op)
	}
	for g := range groups {
		if dropped[g] {
			return true
		}
	}
	return false
}

// opGroup is the group an op names, "" for none or several.
func opGroup(op Op) string {
	switch op := op.(type) {
	case ConsumerHeartbeat:
		return op.GroupID
	case OffsetCommit:
		return op.GroupID
	case TxnOffsetCommit:
		return op.GroupID
	case OffsetFetch:
		return op.GroupID
	case OffsetDelete:
		return op.GroupID
	case ClassicJoin:
		return op.GroupID
	case ClassicSync:
		return op.GroupID
	case ClassicHeartbeat:
		return op.GroupID
	case ClassicLeave:
		return op.GroupID
	}
	return ""
}

// classicMemberIDOrder matches a divergence in which only assignments
// differ, in a consumer group with a member whose id the coordinator
// generated (a classic member's, "@m<n>"): Kafka's server assignors visit
// members in the order of a hash map keyed by member id, and Kafka draws
// those ids at random where coordsim hashes the request, so the two deal
// partitions in different orders. Compared without the assignment
// records and with every partition list of the answer blurred.
//
// When the two sides' targets differ, the heartbeating member reconciles
// against different targets, so its epoch in the answer is blurred too
// (--share seed 870: the member keeps its partition and moves to the new
// epoch in Kafka, revokes it and stays at its epoch here).
func classicMemberIDOrder(d Divergence) bool {
	if d.Kafka.Error != "" || d.Ours.Error != "" {
		return false
	}
	fields := assignmentFields
	if targetRecords(d.Kafka) != targetRecords(d.Ours) {
		fields = assignmentAndEpochFields
	}
	if withoutAssignments(d.Kafka, fields) != withoutAssignments(d.Ours, fields) {
		return false
	}
	if strings.Contains(d.Kafka.canonical(), "@m") {
		return true
	}
	// A consumer member's assignment moved in a group a classic member
	// joined (the classic member's id orders the others too).
	groups := map[string]bool{opGroup(d.Ops[d.Step]): true}
	for _, r := range append(slices.Clone(d.Kafka.Records), d.Ours.Records...) {
		if g, ok := asMap(asMap(r)["key"])["groupId"].(string); ok {
			groups[g] = true
		}
	}
	return slices.ContainsFunc(d.Ops[:d.Step], func(op Op) bool { j, ok := op.(ClassicJoin); return ok && groups[j.GroupID] })
}

// assignmentFields are the answer fields holding dealt partitions.
var assignmentFields = map[string]bool{"assignment": true, "targetAssignment": true, "assignedPartitions": true,
	"partitionsPendingRevocation": true, "topicPartitions": true}

// assignmentAndEpochFields adds the member epoch, which follows from the
// target a member reconciles against.
var assignmentAndEpochFields = map[string]bool{"assignment": true, "targetAssignment": true, "assignedPartitions": true,
	"partitionsPendingRevocation": true, "topicPartitions": true, "memberEpoch": true}

// targetRecords is o's consumer target assignment member records,
// canonical.
func targetRecords(o Outcome) string {
	var recs []any
	for _, r := range o.Records {
		if t, _ := asMap(r)["type"].(string); t == "ConsumerGroupTargetAssignmentMember" {
			recs = append(recs, r)
		}
	}
	return Outcome{Records: recs}.canonical()
}

func withoutAssignments(o Outcome, fields map[string]bool) string {
	c := o
	c.Response = blurFields(o.Response, fields)
	c.Completed = asList(blurFields(anyList(o.Completed), fields))
	c.Records = nil
	for _, r := range o.Records {
		t, _ := asMap(r)["type"].(string)
		if strings.HasSuffix(t, "TargetAssignmentMember") || strings.HasSuffix(t, "CurrentMemberAssignment") {
			continue
		}
		c.Records = append(c.Records, r)
	}
	return c.canonical()
}

func blurFields(v any, fields map[string]bool) any {
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			if fields[k] {
				out[k] = "?"
				continue
			}
			out[k] = blurFields(x, fields)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = blurFields(x, fields)
		}
		return out
	}
	return v
}

// classicUpgradeWithoutProtocol matches Kafka's crash upgrading a classic
// group whose first rebalance has not chosen a protocol: a consumer
// heartbeat to a group classic members joined, answered
// UNKNOWN_SERVER_ERROR (NoSuchElementException) by Kafka alone.
func classicUpgradeWithoutProtocol(d Divergence) bool {
	h, ok := d.Ops[d.Step].(ConsumerHeartbeat)
	if !ok || d.Kafka.Error != "UNKNOWN_SERVER_ERROR" || !strings.Contains(d.Kafka.Message, "NoSuchElementException") || d.Ours.Error != "" {
		return false
	}
	return slices.ContainsFunc(d.Ops[:d.Step], func(op Op) bool { j, ok := op.(ClassicJoin); return ok && j.GroupID == h.GroupID })
}

// classicUpgradeMemberLacksProtocol matches a consumer heartbeat that
// upgrades a classic group where Kafka throws because a member does not
// support the group's protocol (ClassicGroupMember.metadata's
// IllegalArgumentException, which ConsumerGroup.fromClassicGroup lets
// through) and coordsim refuses the upgrade as malformed, neither writing
// anything; an earlier JoinGroup to the group must have offered protocols
// without the one Kafka names.
func classicUpgradeMemberLacksProtocol(d Divergence) bool {
	const thrown = "IllegalArgumentException: Member does not support protocol "
	h, ok := d.Ops[d.Step].(ConsumerHeartbeat)
	if !ok || d.Kafka.Error != "UNKNOWN_SERVER_ERROR" || d.Ours.Error != "GROUP_ID_NOT_FOUND" ||
		!strings.Contains(d.Ours.Message, "embedded consumer protocol is malformed") || len(d.Kafka.Records) > 0 || len(d.Ours.Records) > 0 {
		return false
	}
	_, protocol, found := strings.Cut(d.Kafka.Message, thrown)
	if !found {
		return false
	}
	return slices.ContainsFunc(d.Ops[:d.Step], func(op Op) bool {
		j, ok := op.(ClassicJoin)
		return ok && j.GroupID == h.GroupID &&
			!slices.ContainsFunc(j.Protocols, func(p ClassicProtocol) bool { return p.Name == protocol })
	})
}

// classicDowngradeLeader matches outcomes that are equal but for the
// leader of a GroupMetadata record written by a downgrade (with its
// consumer group's ConsumerGroupMetadata tombstone) of two members or
// more, each side's leader one of them.
func classicDowngradeLeader(d Divergence) bool {
	if d.Kafka.Error != "" || d.Ours.Error != "" {
		return false
	}
	downgraded := map[string]bool{}
	for _, r := range d.Kafka.Records {
		if m := asMap(r); m["type"] == "ConsumerGroupMetadata" && m["value"] == nil {
			downgraded[recordGroup(r)] = true
		}
	}
	differs := false
	blur := func(o Outcome) Outcome {
		c := o
		c.Records = make([]any, 0, len(o.Records))
		for _, r := range o.Records {
			m := asMap(r)
			v := asMap(m["value"])
			if m["type"] != "GroupMetadata" || v == nil || !downgraded[recordGroup(r)] {
				c.Records = append(c.Records, r)
				continue
			}
			members := asList(v["members"])
			leaderIsMember := slices.ContainsFunc(members, func(x any) bool { return asMap(x)["memberId"] == v["leader"] })
			if len(members) < 2 || !leaderIsMember {
				c.Records = append(c.Records, r)
				continue
			}
			differs = true
			nv := map[string]any{}
			for k, x := range v {
				nv[k] = x
			}
			nv["leader"] = ""
			c.Records = append(c.Records, map[string]any{"type": m["type"], "key": m["key"], "value": nv})
		}
		return c
	}
	k, o := blur(d.Kafka), blur(d.Ours)
	return differs && k.canonical() == o.canonical()
}

// recordGroup is a canonical record's group id (GroupMetadata's and
// OffsetCommit's key names it "group", the others "groupId").
func recordGroup(r any) string {
	k := asMap(asMap(r)["key"])
	if g, ok := k["groupId"].(string); ok {
		return g
	}
	g, _ := k["group"].(string)
	return g
}

// classicReplacedJoinUnanswered matches a ClassicJoin of a member whose
// earlier JoinGroup is parked: coordsim answers the parked one
// REBALANCE_IN_PROGRESS, Kafka leaves it unanswered, and the outcomes are
// otherwise the same.
func classicReplacedJoinUnanswered(d Divergence) bool {
	j, ok := d.Ops[d.Step].(ClassicJoin)
	if !ok || j.MemberID == "" || len(d.Ours.Completed) == 0 {
		return false
	}
	var rest []any
	answered := false
	for _, c := range d.Ours.Completed {
		resp := asMap(asMap(c)["response"])
		if id, _ := resp["memberId"].(string); id == j.MemberID && fmt.Sprint(resp["errorCode"]) == fmt.Sprint(kerr.RebalanceInProgress.Code) {
			answered = true
			continue
		}
		rest = append(rest, c)
	}
	if !answered {
		return false
	}
	ours := d.Ours
	ours.Completed = rest
	return ours.canonical() == d.Kafka.canonical()
}

// classicLeaderIDOrder matches outcomes that differ only in the leader a
// completed classic rebalance names and the member list the leader alone
// receives, among members whose ids the coordinator generated.
func classicLeaderIDOrder(d Divergence) bool {
	if len(d.Kafka.Completed) == 0 || !strings.Contains(d.Kafka.canonical(), "@m") {
		return false
	}
	fields := map[string]bool{"leader": true, "members": true}
	blur := func(o Outcome) string {
		c := o
		c.Response = blurFields(o.Response, fields)
		c.Completed = asList(blurFields(anyList(o.Completed), fields))
		return c.canonical()
	}
	return blur(d.Kafka) == blur(d.Ours)
}

// loadExpiryOrderGeneratedID matches an Advance after a reload in which
// the same consumer members, two or more and one of them with a
// generated id, expire on both sides: only the order they expired in
// differs, which is the order of ids Kafka drew at random.
func loadExpiryOrderGeneratedID(d Divergence) bool {
	if _, ok := d.Ops[d.Step].(Advance); !ok || d.Kafka.Error != "" || d.Ours.Error != "" {
		return false
	}
	if !slices.ContainsFunc(d.Ops[:d.Step], func(op Op) bool { _, ok := op.(Reload); return ok }) {
		return false
	}
	kafka, ours := removedConsumerMembers(d.Kafka), removedConsumerMembers(d.Ours)
	// A generated id is "@m<n>" after the group id (a classic member a
	// consumer group made) or after the client id (one a classic group
	// made, then upgraded with the group).
	return len(kafka) >= 2 && slices.Equal(kafka, ours) && slices.ContainsFunc(kafka, memberLabel.MatchString)
}

// removedConsumerMembers is the group and member ids of o's
// ConsumerGroupMemberMetadata tombstones, sorted.
func removedConsumerMembers(o Outcome) []string {
	var out []string
	for _, r := range o.Records {
		m := asMap(r)
		if t, _ := m["type"].(string); t != "ConsumerGroupMemberMetadata" || m["value"] != nil {
			continue
		}
		key := asMap(m["key"])
		g, _ := key["groupId"].(string)
		id, _ := key["memberId"].(string)
		out = append(out, g+"/"+id)
	}
	slices.Sort(out)
	return out
}
