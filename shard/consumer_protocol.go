package shard

import (
	"fmt"
	"slices"
	"strings"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// The consumer protocol embedded in classic groups (Kafka's
// ConsumerProtocol): the Subscription a member sends as JoinGroup
// protocol metadata and the Assignment its leader sends in SyncGroup. A
// classic group stores them as opaque bytes; online migration reads them
// (the members' topics, owned partitions and racks on an upgrade) and
// writes assignments (a downgrade, and SyncGroup answers to classic
// members of a consumer group). kmsg is the codec.

// ConsumerProtocolType is ConsumerProtocol.PROTOCOL_TYPE.
const ConsumerProtocolType = "consumer"

// consumerProtocolMaxVersion is the newest Subscription and Assignment
// version (ConsumerProtocolSubscription and ConsumerProtocolAssignment v3).
const consumerProtocolMaxVersion = 3

// consumerSubscription is a decoded ConsumerProtocolSubscription.
type consumerSubscription struct {
	version    int16
	topics     []string // sorted, deduplicated
	owned      []TopicPartitions
	generation int32 // -1 when not sent (v < 2)
	rackID     string
}

// decodeSubscription is ConsumerProtocol.deserializeConsumerProtocolSubscription.
func decodeSubscription(b []byte) (consumerSubscription, error) {
	var m kmsg.ConsumerMemberMetadata
	m.Default()
	if err := m.ReadFrom(b); err != nil {
		return consumerSubscription{}, err
	}
	out := consumerSubscription{version: m.Version, topics: sortedTopics(m.Topics), generation: m.Generation}
	if m.Rack != nil {
		out.rackID = *m.Rack
	}
	for _, op := range m.OwnedPartitions {
		out.owned = append(out.owned, TopicPartitions{Topic: op.Topic, Partitions: op.Partitions})
	}
	out.owned = normalizePartitions(out.owned)
	return out, nil
}

// decodeAssignment is ConsumerProtocol.deserializeConsumerProtocolAssignment;
// an empty byte string is the empty assignment (a member that never
// synced). userData reports a non-empty user data, which a conversion
// would lose.
func decodeAssignment(b []byte) (parts []TopicPartitions, userData bool, err error) {
	if len(b) == 0 {
		return nil, false, nil
	}
	var a kmsg.ConsumerMemberAssignment
	if err := a.ReadFrom(b); err != nil {
		return nil, false, err
	}
	for _, t := range a.Topics {
		parts = append(parts, TopicPartitions{Topic: t.Topic, Partitions: t.Partitions})
	}
	return normalizePartitions(parts), len(a.UserData) > 0, nil
}

// encodeAssignment is ConsumerProtocol.serializeAssignment at the version
// of the member's subscription (capped at the newest), topics by name.
func encodeAssignment(parts []TopicPartitions, version int16) []byte {
	a := kmsg.ConsumerMemberAssignment{Version: min(max(version, 0), consumerProtocolMaxVersion)}
	for _, tp := range parts {
		a.Topics = append(a.Topics, kmsg.ConsumerMemberAssignmentTopic{Topic: tp.Topic, Partitions: tp.Partitions})
	}
	return a.AppendTo(nil)
}

// subscriptionVersion is ConsumerProtocol.deserializeVersion: the leading
// int16 of the metadata, 0 when it is too short to hold one.
func subscriptionVersion(b []byte) int16 {
	if len(b) < 2 {
		return 0
	}
	return int16(uint16(b[0])<<8 | uint16(b[1]))
}

// normalizePartitions sorts topics by name and partitions by number,
// merging repeated topics and dropping empty ones, so that decoded
// assignments compare as the shard's own do.
func normalizePartitions(in []TopicPartitions) []TopicPartitions {
	if len(in) == 0 {
		return nil
	}
	byTopic := map[string][]int32{}
	var topics []string
	for _, tp := range in {
		if _, ok := byTopic[tp.Topic]; !ok {
			topics = append(topics, tp.Topic)
		}
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partitions...)
	}
	slices.SortFunc(topics, strings.Compare)
	var out []TopicPartitions
	for _, t := range topics {
		ps := slices.Clone(byTopic[t])
		slices.Sort(ps)
		ps = slices.Compact(ps)
		if len(ps) > 0 {
			out = append(out, TopicPartitions{Topic: t, Partitions: ps})
		}
	}
	return out
}

// formatSubscriptionBytes prints protocol metadata: a consumer-protocol
// Subscription decoded ("{v3 topics=[foo] owned=foo:0 gen=1}"), any other
// bytes quoted.
func formatSubscriptionBytes(b []byte) string {
	var m kmsg.ConsumerMemberMetadata
	m.Default()
	if len(b) < 6 || subscriptionVersion(b) > consumerProtocolMaxVersion || subscriptionVersion(b) < 0 || m.ReadFrom(b) != nil {
		return fmt.Sprintf("%q", b)
	}
	sub, _ := decodeSubscription(b)
	out := fmt.Sprintf("{v%d topics=[%s]", sub.version, strings.Join(sub.topics, ","))
	if len(sub.owned) > 0 {
		out += " owned=" + FormatAssignment(sub.owned)
	}
	if sub.generation >= 0 {
		out += fmt.Sprintf(" gen=%d", sub.generation)
	}
	return out + "}"
}

// formatAssignmentBytes prints a consumer-protocol Assignment decoded
// ("{foo:0,1}"), any other bytes quoted.
func formatAssignmentBytes(b []byte) string {
	if len(b) < 6 || subscriptionVersion(b) > consumerProtocolMaxVersion || subscriptionVersion(b) < 0 {
		return fmt.Sprintf("%q", b)
	}
	parts, _, err := decodeAssignment(b)
	if err != nil {
		return fmt.Sprintf("%q", b)
	}
	return "{" + FormatAssignment(parts) + "}"
}

// formatClassicMember prints a consumer group member's classic metadata.
func formatClassicMember(b *strings.Builder, c *ClassicMemberMetadata) {
	if c == nil {
		return
	}
	names := make([]string, len(c.SupportedProtocols))
	for i, p := range c.SupportedProtocols {
		names[i] = p.Name
	}
	fmt.Fprintf(b, " classic(session=%d protocols=[%s])", c.SessionTimeoutMs, strings.Join(names, ","))
}
