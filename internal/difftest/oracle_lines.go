package difftest

import (
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"slices"
)

// The oracle's request lines: each op as Kafka's request message in the
// JSON of Kafka's generated JsonConverter classes (every field present,
// null where Kafka's null is meant), with the request version and header
// client id beside it.

// topicIDs gives every topic a fixed Kafka topic id, so runs repeat
// without a broker to assign them. A topic deleted and created again gets
// a new id, as in Kafka; a request naming a deleted topic (a member still
// owning its partitions) carries the id it had.
type topicIDs struct {
	cur   map[string]string // name → its latest id
	names map[string]string // every id handed out → name
	inc   map[string]int    // name → incarnations so far
	live  map[string]bool   // names in the current image
	was   map[string]bool   // names in an image once
}

func newTopicIDs() topicIDs {
	return topicIDs{cur: map[string]string{}, names: map[string]string{}, inc: map[string]int{}, live: map[string]bool{}, was: map[string]bool{}}
}

// TopicID is the id of incarnation n of a topic name: the first 16 bytes
// of a SHA-256, in Kafka's Uuid text form (URL-safe base64, no padding).
func TopicID(name string, n int) string {
	id := topicIDBytes(name, n)
	return base64.RawURLEncoding.EncodeToString(id[:])
}

// topicIDBytes is TopicID's 16 bytes, as coordsim's topic image takes
// them.
func topicIDBytes(name string, n int) [16]byte {
	sum := sha256.Sum256([]byte(fmt.Sprintf("coordsim-topic:%s#%d", name, n)))
	return [16]byte(sum[:16])
}

// bytes is the latest id of every name in the current image, for
// coordsim's topic image: the ids the oracle hands Kafka.
func (ids topicIDs) bytes() map[string][16]byte {
	out := make(map[string][16]byte, len(ids.live))
	for name := range ids.live {
		out[name] = topicIDBytes(name, ids.inc[name]-1)
	}
	return out
}

// id is name's latest id, handing out the first when it has none.
func (ids topicIDs) id(name string) string {
	if id, ok := ids.cur[name]; ok {
		return id
	}
	return ids.create(name)
}

// create hands out name's next incarnation.
func (ids topicIDs) create(name string) string {
	id := TopicID(name, ids.inc[name])
	ids.inc[name]++
	ids.cur[name], ids.names[id] = id, name
	return id
}

// image records the topic image's names: a name new to it is a created
// topic, with a new id, unless it was never in an image and an op named
// it already (a commit to a topic not yet created), whose id it takes:
// so coordsim's driver, which sees only the images, numbers the
// incarnations as the oracle's lines do.
func (ids topicIDs) image(topics []Topic) {
	next := map[string]bool{}
	for _, t := range topics {
		if !ids.live[t.Name] && (ids.was[t.Name] || ids.inc[t.Name] == 0) {
			ids.create(t.Name)
		}
		next[t.Name], ids.was[t.Name] = true, true
	}
	clear(ids.live)
	for n := range next {
		ids.live[n] = true
	}
}

func nullable(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

func stringsOrNull(s []string) any {
	if s == nil {
		return nil
	}
	return s
}

func (o SetTopics) oracle(ids topicIDs) map[string]any {
	ids.image(o.Topics)
	ts := make([]any, 0, len(o.Topics))
	for _, t := range o.Topics {
		ts = append(ts, map[string]any{"name": t.Name, "id": ids.id(t.Name), "partitions": t.Partitions})
	}
	return map[string]any{"topics": ts}
}

func (o ConsumerHeartbeat) oracle(ids topicIDs) map[string]any {
	var owned any
	if o.Owned != nil || o.OwnedSet {
		tps := []any{}
		for _, tp := range o.Owned {
			tps = append(tps, map[string]any{"topicId": ids.id(tp.Topic), "partitions": nonNil(tp.Partitions)})
		}
		owned = tps
	}
	return map[string]any{"version": 1, "clientId": o.ClientID, "request": map[string]any{
		"groupId": o.GroupID, "memberId": o.MemberID, "memberEpoch": o.MemberEpoch,
		"instanceId": nullable(o.InstanceID), "rackId": nullable(o.RackID),
		"rebalanceTimeoutMs": o.RebalanceTimeoutMs, "subscribedTopicNames": stringsOrNull(o.Subscribed),
		"subscribedTopicRegex": nullable(o.Regex), "serverAssignor": nullable(o.ServerAssignor),
		"topicPartitions": owned,
	}}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func (o ShareHeartbeat) oracle(topicIDs) map[string]any {
	return map[string]any{"version": 1, "clientId": o.ClientID, "request": map[string]any{
		"groupId": o.GroupID, "memberId": o.MemberID, "memberEpoch": o.MemberEpoch,
		"rackId": nullable(o.RackID), "subscribedTopicNames": stringsOrNull(o.Subscribed),
	}}
}

func commitTopics(topics []CommitTopic, ids topicIDs) []any {
	out := []any{}
	for _, t := range topics {
		ps := []any{}
		for _, p := range t.Partitions {
			ps = append(ps, map[string]any{"partitionIndex": p.Partition, "committedOffset": p.Offset,
				"committedLeaderEpoch": p.LeaderEpoch, "committedMetadata": p.Metadata})
		}
		tm := map[string]any{"name": t.Topic, "partitions": ps}
		if ids.cur != nil {
			tm["topicId"] = ids.id(t.Topic)
		}
		out = append(out, tm)
	}
	return out
}

// OffsetCommit goes as v10, with topic ids, as Kafka 4's clients send it:
// the offsets then carry the topic id Kafka's onTopicsDeleted matches.
func (o OffsetCommit) oracle(ids topicIDs) map[string]any {
	return map[string]any{"version": 10, "request": map[string]any{
		"groupId": o.GroupID, "generationIdOrMemberEpoch": o.MemberEpoch, "memberId": o.MemberID,
		"groupInstanceId": nullable(o.InstanceID), "topics": commitTopics(o.Topics, ids),
	}}
}

func (o TxnOffsetCommit) oracle(topicIDs) map[string]any {
	return map[string]any{"version": 5, "request": map[string]any{
		"transactionalId": "txn", "groupId": o.GroupID, "producerId": o.ProducerID, "producerEpoch": o.ProducerEpoch,
		"generationIdOrMemberEpoch": o.MemberEpoch, "memberId": o.MemberID,
		"groupInstanceId": nullable(o.InstanceID), "topics": commitTopics(o.Topics, topicIDs{}),
	}}
}

func (o EndTxn) oracle(topicIDs) map[string]any {
	return map[string]any{"groupId": o.GroupID, "producerId": o.ProducerID, "producerEpoch": o.ProducerEpoch, "commit": o.Commit}
}

func (o OffsetFetch) oracle(topicIDs) map[string]any {
	var topics any
	if o.Topics != nil {
		ts := []any{}
		for _, t := range o.Topics {
			ts = append(ts, map[string]any{"name": t.Topic, "partitionIndexes": nonNil(t.Partitions)})
		}
		topics = ts
	}
	return map[string]any{"version": 9, "requireStable": o.RequireStable, "request": map[string]any{
		"groupId": o.GroupID, "memberId": nullable(o.MemberID), "memberEpoch": o.MemberEpoch, "topics": topics,
	}}
}

func (o OffsetDelete) oracle(topicIDs) map[string]any {
	ts := []any{}
	for _, t := range o.Topics {
		ps := []any{}
		for _, p := range t.Partitions {
			ps = append(ps, map[string]any{"partitionIndex": p})
		}
		ts = append(ts, map[string]any{"name": t.Topic, "partitions": ps})
	}
	return map[string]any{"version": 0, "request": map[string]any{"groupId": o.GroupID, "topics": ts}}
}

func (o DeleteGroups) oracle(topicIDs) map[string]any {
	return map[string]any{"groups": slices.Clone(nonNil(o.Groups))}
}

func (ListGroups) oracle(topicIDs) map[string]any { return map[string]any{} }

func (o DescribeGroups) oracle(topicIDs) map[string]any {
	return map[string]any{"groups": nonNil(o.Groups)}
}

func (o Advance) oracle(topicIDs) map[string]any { return map[string]any{"ms": o.Ms} }

func (Reload) oracle(topicIDs) map[string]any { return map[string]any{} }
