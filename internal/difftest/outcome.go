package difftest

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
)

// Outcome is what a client and the log observe of one operation, in a
// canonical form both sides are brought to: an operation that failed as a
// whole has Error (Kafka's error name) and Message; otherwise Response is
// the answer's canonical JSON. Records are the records written, each
// {"type", "key", "value"} with Kafka's record field names, topic ids
// replaced by names, and value null for a tombstone. Bad is set when the
// op could not be run at all (malformed input to the oracle or the driver),
// which is a harness error, never a divergence to explain.
type Outcome struct {
	Error    string `json:"error,omitempty"`
	Message  string `json:"message,omitempty"`
	Response any    `json:"response,omitempty"`
	Records  []any  `json:"records"`
	// Completed are the answers to earlier parked classic requests
	// (JoinGroup, SyncGroup) this operation released, by request number.
	Completed []any  `json:"completed,omitempty"`
	Bad       string `json:"bad,omitempty"`
}

// canonical is the outcome as one line of JSON: map keys sorted, records in
// a fixed order. Two outcomes are equal when their canonical lines are.
func (o Outcome) canonical() string {
	recs := make([]string, 0, len(o.Records))
	for _, r := range o.Records {
		if emptyTarget(r) {
			continue
		}
		recs = append(recs, mustJSON(r))
	}
	// The records of one operation are one atomic batch; their order inside
	// it decides nothing a client sees, and the two coordinators build
	// batches in different orders (Kafka writes a member's metadata before
	// the group epoch, tombstones in reverse), so they are compared as a
	// set.
	slices.Sort(recs)
	// An identical record twice in one batch replays to the same state as
	// once (Kafka's OffsetDelete writes a tombstone per requested
	// partition, duplicates included; coordsim one per key).
	recs = slices.Compact(recs)
	c := o
	c.Records = nil
	head := mustJSON(c)
	return head + " records=[" + strings.Join(recs, ",") + "]"
}

// emptyTarget reports whether r is a target-assignment member record with
// no partitions. Kafka's TargetAssignmentBuilder writes one for a new
// member whose target is empty (its old target is null, so "changed");
// coordsim writes none, and an absent target is the same state as an empty
// one on replay. A target that becomes empty from non-empty is written by
// both, and any difference then shows in the member's next assignment.
func emptyTarget(r any) bool {
	m, ok := r.(map[string]any)
	if !ok {
		return false
	}
	t, _ := m["type"].(string)
	v, _ := m["value"].(map[string]any)
	if !strings.HasSuffix(t, "TargetAssignmentMember") || v == nil {
		return false
	}
	// A streams target has three task lists, the others one partition list.
	for _, k := range []string{"topicPartitions", "activeTasks", "standbyTasks", "warmupTasks"} {
		if l, _ := v[k].([]any); len(l) > 0 {
			return false
		}
	}
	return true
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

func asMessage(err error, me **kerr.MessageError) bool { return errors.As(err, me) }

func compareStrings(a, b string) int { return strings.Compare(a, b) }

// assignmentJSON is a list of topic partitions in canonical form: topics by
// name in order, partitions sorted.
func assignmentJSON(tps []shard.TopicPartitions) []any {
	out := make([]any, 0, len(tps))
	sorted := slices.Clone(tps)
	slices.SortFunc(sorted, func(a, b shard.TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
	for _, tp := range sorted {
		ps := slices.Clone(tp.Partitions)
		slices.Sort(ps)
		if len(ps) == 0 {
			continue
		}
		out = append(out, map[string]any{"topic": tp.Topic, "partitions": ps})
	}
	return out
}

func heartbeatJSON(memberID string, epoch, intervalMs int32, hasAssignment bool, a []shard.TopicPartitions) map[string]any {
	m := map[string]any{"memberId": memberID, "memberEpoch": epoch, "heartbeatIntervalMs": intervalMs, "assignment": nil}
	if hasAssignment {
		m["assignment"] = assignmentJSON(a)
	}
	return m
}

// partitionResultsJSON is a per-partition answer as sorted "topic-p: code"
// lines; Kafka's order of topics in an answer (KafkaApis' own answers
// first, then the coordinator's) is not something clients rely on.
func partitionResultsJSON(errorCode int16, topics []shard.TopicResults) map[string]any {
	lines := []string{}
	for _, t := range topics {
		for _, p := range t.Partitions {
			lines = append(lines, fmt.Sprintf("%s-%d: %d", t.Topic, p.Partition, kerr.Code(p.Err)))
		}
	}
	slices.Sort(lines)
	return map[string]any{"errorCode": errorCode, "partitions": lines}
}

func fetchJSON(got []shard.FetchedOffset) map[string]any {
	lines := []string{}
	for _, f := range got {
		lines = append(lines, fmt.Sprintf("%s-%d: offset=%d epoch=%d metadata=%q error=%d", f.Topic, f.Partition, f.Offset, f.LeaderEpoch, f.Metadata, kerr.Code(f.Err)))
	}
	slices.Sort(lines)
	return map[string]any{"errorCode": 0, "offsets": lines}
}

// describeJSON is a consumer or share group's describe answer; exists
// tells the topics of the metadata image (shard.DescribedPartitions).
func describeJSON(g shard.GroupDescription, exists func(string) bool) map[string]any {
	members := []any{}
	for _, m := range g.Members {
		md := map[string]any{
			"memberId": m.MemberID, "memberEpoch": m.MemberEpoch, "clientId": m.ClientID,
			"rackId": m.RackID, "subscribedTopicNames": sortedStrings(m.SubscribedTopics),
			"assignment": assignmentJSON(m.DescribedAssignment(exists)),
		}
		if g.Type == shard.Consumer {
			md["instanceId"] = m.InstanceID
			md["subscribedTopicRegex"] = m.SubscribedTopicRegex
			md["targetAssignment"] = assignmentJSON(shard.DescribedPartitions(m.TargetAssignment, exists))
		}
		members = append(members, md)
	}
	return map[string]any{
		"groupId": g.GroupID, "errorCode": 0, "groupState": g.State.MetricLabel(),
		"groupEpoch": g.Epoch, "assignmentEpoch": g.AssignmentEpoch, "members": members,
	}
}

func sortedStrings(s []string) []string {
	out := slices.Clone(s)
	if out == nil {
		out = []string{}
	}
	slices.Sort(out)
	return out
}

// classicMemberJSON is a consumer group member's ClassicMemberMetadata as
// Kafka's JsonConverter writes it: null for a consumer-protocol member,
// the protocols' metadata as base64 (encoding/json's []byte, Jackson's
// BinaryNode): a classic member of a consumer group has one, a
// consumer-protocol member null.
func classicMemberJSON(c *shard.ClassicMemberMetadata) any {
	if c == nil {
		return nil
	}
	protocols := make([]any, 0, len(c.SupportedProtocols))
	for _, p := range c.SupportedProtocols {
		metadata := p.Metadata
		if metadata == nil {
			metadata = []byte{} // "", not null: the field is not nullable
		}
		protocols = append(protocols, map[string]any{"name": p.Name, "metadata": metadata})
	}
	return map[string]any{"sessionTimeoutMs": c.SessionTimeoutMs, "supportedProtocols": protocols}
}

// recordJSON is a coordsim record in the canonical form.
func recordJSON(r shard.Record) map[string]any {
	out := map[string]any{"type": r.Type().String()}
	var key, value map[string]any
	tomb := false
	switch r := r.(type) {
	case *shard.OffsetCommit:
		key = map[string]any{"group": r.Group, "topic": r.Topic, "partition": r.Partition}
		value = map[string]any{"offset": r.Value.Offset, "leaderEpoch": r.Value.LeaderEpoch, "metadata": r.Value.Metadata,
			"commitTimestamp": r.Value.CommitTimestampMs}
		if r.Value.ExpireTimestampMs != offsets.NoExpireTimestamp {
			value["expireTimestamp"] = r.Value.ExpireTimestampMs
		}
		tomb = r.Tombstone
	case *shard.GroupMetadata:
		key = map[string]any{"group": r.Group}
		members := []any{}
		for _, m := range r.Members {
			// clientHost is not compared (normalise.go's dropFields).
			members = append(members, map[string]any{"memberId": m.MemberID, "groupInstanceId": m.InstanceID, "clientId": m.ClientID,
				"rebalanceTimeout": m.RebalanceTimeoutMs, "sessionTimeout": m.SessionTimeoutMs,
				"subscription": base64.StdEncoding.EncodeToString(m.Subscription), "assignment": assignmentBytesJSON(m.Assignment)})
		}
		value = map[string]any{"protocolType": r.ProtocolType, "generation": r.Generation, "currentStateTimestamp": r.CurrentStateTimestampMs,
			"protocol": r.Protocol, "leader": r.Leader, "members": members}
		tomb = r.Tombstone
	case *shard.ConsumerGroupRegularExpression:
		// The version is not compared (normalise.go).
		key = map[string]any{"groupId": r.Group, "regularExpression": r.Regex}
		topics := r.Topics
		if topics == nil {
			topics = []string{}
		}
		value = map[string]any{"topics": topics, "timestamp": r.TimestampMs}
		tomb = r.Tombstone
	case *shard.ConsumerGroupMetadata:
		key, value = groupEpochJSON(r.Group, r.Epoch)
		tomb = r.Tombstone
	case *shard.ConsumerGroupMemberMetadata:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"instanceId": r.InstanceID, "rackId": r.RackID, "clientId": r.ClientID,
			"subscribedTopicNames": sortedStrings(r.SubscribedTopics), "subscribedTopicRegex": r.SubscribedTopicRegex,
			"rebalanceTimeoutMs": r.RebalanceTimeoutMs, "serverAssignor": r.ServerAssignor,
			"classicMemberMetadata": classicMemberJSON(r.Classic)}
		tomb = r.Tombstone
	case *shard.ConsumerGroupTargetAssignmentMetadata:
		key, value = targetEpochJSON(r.Group, r.AssignmentEpoch, r.AssignmentTimestampMs)
		tomb = r.Tombstone
	case *shard.ConsumerGroupTargetAssignmentMember:
		key, value = targetMemberJSON(r.Group, r.MemberID, r.Partitions)
		tomb = r.Tombstone
	case *shard.ConsumerGroupCurrentMemberAssignment:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"memberEpoch": r.MemberEpoch, "previousMemberEpoch": r.PreviousMemberEpoch, "state": int(r.State),
			"assignedPartitions": assignmentJSON(r.Partitions), "partitionsPendingRevocation": assignmentJSON(r.PartitionsPendingRevocation)}
		tomb = r.Tombstone
	case *shard.ShareGroupMetadata:
		key, value = groupEpochJSON(r.Group, r.Epoch)
		tomb = r.Tombstone
	case *shard.ShareGroupMemberMetadata:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"rackId": r.RackID, "clientId": r.ClientID, "subscribedTopicNames": sortedStrings(r.SubscribedTopics)}
		tomb = r.Tombstone
	case *shard.ShareGroupTargetAssignmentMetadata:
		key, value = targetEpochJSON(r.Group, r.AssignmentEpoch, r.AssignmentTimestampMs)
		tomb = r.Tombstone
	case *shard.ShareGroupTargetAssignmentMember:
		key, value = targetMemberJSON(r.Group, r.MemberID, r.Partitions)
		tomb = r.Tombstone
	case *shard.ShareGroupCurrentMemberAssignment:
		key = map[string]any{"groupId": r.Group, "memberId": r.MemberID}
		value = map[string]any{"memberEpoch": r.MemberEpoch, "previousMemberEpoch": r.PreviousMemberEpoch, "state": 0,
			"assignedPartitions": assignmentJSON(r.Partitions)}
		tomb = r.Tombstone
	case *shard.ShareGroupStatePartitionMetadata:
		key = map[string]any{"groupId": r.Group}
		deleting := make([]any, 0, len(r.Deleting))
		for range r.Deleting {
			deleting = append(deleting, map[string]any{}) // Kafka's TopicInfo is an id and a name, both normalised away
		}
		value = map[string]any{"initializingTopics": assignmentJSON(r.Initializing), "initializedTopics": assignmentJSON(r.Initialized),
			"deletingTopics": deleting}
		tomb = r.Tombstone
	default:
		var ok bool
		if key, value, tomb, ok = streamsRecordJSON(r); !ok {
			// Types the generator does not reach yet (regular
			// expressions): compared by coordsim's own text form.
			key = map[string]any{"groupId": r.GroupID()}
			value = map[string]any{"coordsim": shard.Format(r)}
		}
	}
	out["key"] = key
	if tomb {
		out["value"] = nil
	} else {
		out["value"] = value
	}
	return out
}

// Consumer, share and streams groups write some records of one schema
// under types of their own; these build each such schema once.

// groupEpochJSON is a group's epoch record ({Consumer,Share}GroupMetadata).
func groupEpochJSON(group string, epoch int32) (key, value map[string]any) {
	return map[string]any{"groupId": group}, map[string]any{"epoch": epoch}
}

// targetEpochJSON is the epoch of a group's target assignment
// ({Consumer,Share,Streams}GroupTargetAssignmentMetadata).
func targetEpochJSON(group string, epoch int32, timestampMs int64) (key, value map[string]any) {
	value = map[string]any{"assignmentEpoch": epoch}
	if timestampMs != 0 {
		// A tagged field: Kafka's JSON leaves out its default, 0.
		value["assignmentTimestamp"] = timestampMs
	}
	return map[string]any{"groupId": group}, value
}

// targetMemberJSON is one member's target partitions
// ({Consumer,Share}GroupTargetAssignmentMember).
func targetMemberJSON(group, member string, partitions []shard.TopicPartitions) (key, value map[string]any) {
	return map[string]any{"groupId": group, "memberId": member}, map[string]any{"topicPartitions": assignmentJSON(partitions)}
}
