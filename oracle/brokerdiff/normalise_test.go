package brokerdiff

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestFlattenMapsIdsAndSkipsWhatLegitimatelyDiffers proves the
// normalisation: member ids become placeholders in order of first
// appearance, topic ids become their names, and throttle times are left out, so two clusters' equal answers flatten alike.
func TestFlattenMapsIdsAndSkipsWhatLegitimatelyDiffers(t *testing.T) {
	answer := func(member string, topicID [16]byte, throttle int32) *kmsg.ConsumerGroupHeartbeatResponse {
		r := kmsg.NewPtrConsumerGroupHeartbeatResponse()
		r.ThrottleMillis, r.MemberID, r.MemberEpoch = throttle, &member, 2
		a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
		at := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
		at.TopicID, at.Partitions = topicID, []int32{0, 1}
		a.Topics = append(a.Topics, at)
		r.Assignment = &a
		return r
	}
	ours, kafka := NewNames(), NewNames()
	ours.Topic([16]byte{1}, "orders")
	kafka.Topic([16]byte{9}, "orders")
	a := Flatten(answer("ours-member", [16]byte{1}, 0), ours)
	b := Flatten(answer("kafka-member", [16]byte{9}, 250), kafka)
	assert.Empty(t, Diff(a, b))
	assert.Contains(t, a, ".MemberID = member#1")
	assert.Contains(t, a, ".Assignment.Topics[0].TopicID = topic:orders")

	c := Flatten(answer("kafka-member", [16]byte{7}, 0), NewNames())
	assert.Equal(t, []Difference{{".Assignment.Topics[0].TopicID", "topic:orders", "unknown-uuid"}}, Diff(a, c))
}

// TestDiffReportsMissingAndExtraFields proves a longer list on either side
// shows as (absent) on the other.
func TestDiffReportsMissingAndExtraFields(t *testing.T) {
	d := Diff([]string{"a = 1", "b = 2"}, []string{"a = 1", "c = 3"})
	assert.Equal(t, []Difference{{"b", "2", "(absent)"}, {"c", "(absent)", "3"}}, d)
}

// TestExplainMatchesOnlyItsCaseStepAndField proves a Known entry explains
// a difference only in the case, step and field it names.
func TestExplainMatchesOnlyItsCaseStepAndField(t *testing.T) {
	reason := func(c, step string, d Difference) string { r, _ := Explain(c, step, d); return r }
	start := Difference{".Groups[0].Topics[0].Partitions[1].StartOffset", "-1", "0"}
	const c = "share/describe-and-offsets-admin"
	assert.Contains(t, reason(c, "describe-offsets", start), "share-state-start-offset")
	assert.Empty(t, reason(c, "join", start))
	assert.Empty(t, reason(c, "describe-offsets", Difference{".Groups[0].Topics[0].Partitions[0].StartOffset", "-1", "0"}))
	assert.Empty(t, reason("other/case", "describe-offsets", start), "known only in its case")
}
