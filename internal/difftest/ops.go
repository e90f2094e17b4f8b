package difftest

import (
	"encoding/json"
	"fmt"
)

// Op is one operation of a sequence: a typed value (pebble's metamorphic
// ops), so a failing sequence can be reduced by dropping ops and written to
// a file. Each op knows its Kafka request (the oracle's JSON line, in the
// field names of Kafka's message schemas) and how coordsim's shard runs it.
type Op interface {
	// Name is the op's name in oracle lines and reproduction files.
	Name() string
	// oracle is the op's oracle line (without "op").
	oracle(ids topicIDs) map[string]any
	// run runs the op on coordsim's side.
	run(d *driver) Outcome
}

// Topic is one topic of the metadata image.
type Topic struct {
	Name       string `json:"name"`
	Partitions int32  `json:"partitions"`
}

// SetTopics replaces the topic image: topics not listed are deleted, new
// ones created, listed ones grown (never shrunk, as in Kafka).
type SetTopics struct {
	Topics []Topic `json:"topics"`
}

// TopicPartitions is a topic and some of its partitions.
type TopicPartitions struct {
	Topic      string  `json:"topic"`
	Partitions []int32 `json:"partitions"`
}

// ConsumerHeartbeat is a ConsumerGroupHeartbeat (v1). Nil slices and
// pointers are Kafka's null.
type ConsumerHeartbeat struct {
	ClientID           string            `json:"clientId"`
	GroupID            string            `json:"groupId"`
	MemberID           string            `json:"memberId"`
	MemberEpoch        int32             `json:"memberEpoch"`
	InstanceID         *string           `json:"instanceId,omitempty"`
	RackID             *string           `json:"rackId,omitempty"`
	RebalanceTimeoutMs int32             `json:"rebalanceTimeoutMs"`
	Subscribed         []string          `json:"subscribedTopicNames,omitempty"`
	Regex              *string           `json:"subscribedTopicRegex,omitempty"`
	ServerAssignor     *string           `json:"serverAssignor,omitempty"`
	Owned              []TopicPartitions `json:"topicPartitions,omitempty"`
	// OwnedSet tells an empty owned list from null (omitempty drops both).
	OwnedSet bool `json:"ownedSet,omitempty"`
}

// ShareHeartbeat is a ShareGroupHeartbeat (v1).
type ShareHeartbeat struct {
	ClientID    string   `json:"clientId"`
	GroupID     string   `json:"groupId"`
	MemberID    string   `json:"memberId"`
	MemberEpoch int32    `json:"memberEpoch"`
	RackID      *string  `json:"rackId,omitempty"`
	Subscribed  []string `json:"subscribedTopicNames,omitempty"`
}

// CommitPartition is one partition of a commit.
type CommitPartition struct {
	Partition   int32  `json:"partition"`
	Offset      int64  `json:"offset"`
	LeaderEpoch int32  `json:"leaderEpoch"`
	Metadata    string `json:"metadata"`
}

// CommitTopic is one topic of a commit.
type CommitTopic struct {
	Topic      string            `json:"topic"`
	Partitions []CommitPartition `json:"partitions"`
}

// OffsetCommit is an OffsetCommit (v9: topic names, member epochs).
type OffsetCommit struct {
	GroupID     string        `json:"groupId"`
	MemberID    string        `json:"memberId"`
	MemberEpoch int32         `json:"memberEpoch"`
	InstanceID  *string       `json:"instanceId,omitempty"`
	Topics      []CommitTopic `json:"topics"`
}

// TxnOffsetCommit is a TxnOffsetCommit (v5).
type TxnOffsetCommit struct {
	GroupID       string        `json:"groupId"`
	ProducerID    int64         `json:"producerId"`
	ProducerEpoch int16         `json:"producerEpoch"`
	MemberID      string        `json:"memberId"`
	MemberEpoch   int32         `json:"memberEpoch"`
	InstanceID    *string       `json:"instanceId,omitempty"`
	Topics        []CommitTopic `json:"topics"`
}

// EndTxn is the end-transaction marker of a producer (commit or abort).
type EndTxn struct {
	GroupID       string `json:"groupId"`
	ProducerID    int64  `json:"producerId"`
	ProducerEpoch int16  `json:"producerEpoch"`
	Commit        bool   `json:"commit"`
}

// OffsetFetch is one group of an OffsetFetch (v9). Topics nil fetches all.
type OffsetFetch struct {
	GroupID       string            `json:"groupId"`
	MemberID      *string           `json:"memberId,omitempty"`
	MemberEpoch   int32             `json:"memberEpoch"`
	Topics        []TopicPartitions `json:"topics,omitempty"`
	RequireStable bool              `json:"requireStable,omitempty"`
}

// OffsetDelete is an OffsetDelete.
type OffsetDelete struct {
	GroupID string            `json:"groupId"`
	Topics  []TopicPartitions `json:"topics"`
}

// DeleteGroups is a DeleteGroups of groups on this shard.
type DeleteGroups struct {
	Groups []string `json:"groups"`
}

// ListGroups lists every group of the shard.
type ListGroups struct{}

// DescribeGroups is a ConsumerGroupDescribe or ShareGroupDescribe.
type DescribeGroups struct {
	Share  bool     `json:"share,omitempty"`
	Groups []string `json:"groups"`
}

// Advance moves time forward; background work and due timers run.
type Advance struct {
	Ms int64 `json:"ms"`
}

// Reload unloads the shard and loads it again from its log.
type Reload struct{}

// Names of ops, in reproduction files and oracle lines.
func (SetTopics) Name() string         { return "topics" }
func (ConsumerHeartbeat) Name() string { return "consumer_heartbeat" }
func (ShareHeartbeat) Name() string    { return "share_heartbeat" }
func (OffsetCommit) Name() string      { return "offset_commit" }
func (TxnOffsetCommit) Name() string   { return "txn_offset_commit" }
func (EndTxn) Name() string            { return "end_txn" }
func (OffsetFetch) Name() string       { return "offset_fetch" }
func (OffsetDelete) Name() string      { return "offset_delete" }
func (DeleteGroups) Name() string      { return "delete_groups" }
func (ListGroups) Name() string        { return "list_groups" }
func (o DescribeGroups) Name() string {
	if o.Share {
		return "share_describe"
	}
	return "consumer_describe"
}
func (Advance) Name() string { return "advance" }
func (Reload) Name() string  { return "reload" }

// decoders maps an op name to a decoder of its JSON.
var decoders = map[string]func([]byte) (Op, error){
	"topics":             decodeAs[SetTopics],
	"consumer_heartbeat": decodeAs[ConsumerHeartbeat],
	"share_heartbeat":    decodeAs[ShareHeartbeat],
	"offset_commit":      decodeAs[OffsetCommit],
	"txn_offset_commit":  decodeAs[TxnOffsetCommit],
	"end_txn":            decodeAs[EndTxn],
	"offset_fetch":       decodeAs[OffsetFetch],
	"offset_delete":      decodeAs[OffsetDelete],
	"delete_groups":      decodeAs[DeleteGroups],
	"list_groups":        decodeAs[ListGroups],
	"consumer_describe":  decodeAs[DescribeGroups],
	"share_describe":     decodeDescribeShare,
	"streams_heartbeat":  decodeAs[StreamsHeartbeat],
	"streams_describe":   decodeAs[StreamsDescribe],
	"advance":            decodeAs[Advance],
	"reload":             decodeAs[Reload],
	"group_config":       decodeAs[SetGroupConfig],
}

func decodeAs[T Op](b []byte) (Op, error) {
	var v T
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	return v, nil
}

func decodeDescribeShare(b []byte) (Op, error) {
	var v DescribeGroups
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, err
	}
	v.Share = true
	return v, nil
}

// DecodeOp reads an op written by EncodeOp.
func DecodeOp(name string, body []byte) (Op, error) {
	dec, ok := decoders[name]
	if !ok {
		return nil, fmt.Errorf("difftest: unknown op %q", name)
	}
	return dec(body)
}

// EncodeOp is an op's body in reproduction files.
func EncodeOp(op Op) string {
	b, err := json.Marshal(op)
	if err != nil {
		panic(err) // ops are plain data
	}
	return string(b)
}
