package difftest

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// topic-recreated explains a divergence only in a group that named the
// re-created topic: one in another group stays unexplained.
func TestTopicRecreatedNamesTheGroup(t *testing.T) {
	ops := []Op{
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 2}, {Name: "t1", Partitions: 1}}},
		ConsumerHeartbeat{GroupID: "cg0", MemberID: "a", Subscribed: []string{"t0"}},
		ConsumerHeartbeat{GroupID: "cg1", MemberID: "b", Subscribed: []string{"t1"}},
		SetTopics{Topics: []Topic{{Name: "t1", Partitions: 1}}},
		SetTopics{Topics: []Topic{{Name: "t0", Partitions: 1}, {Name: "t1", Partitions: 1}}},
	}
	diverge := func(op Op) Divergence {
		all := append(append([]Op(nil), ops...), op)
		return Divergence{Step: len(all) - 1, Ops: all}
	}
	assert.True(t, topicRecreated(diverge(ConsumerHeartbeat{GroupID: "cg0", MemberID: "a", MemberEpoch: 2})))
	assert.False(t, topicRecreated(diverge(ConsumerHeartbeat{GroupID: "cg1", MemberID: "b", MemberEpoch: 2})), "cg1 never named t0")
	assert.False(t, topicRecreated(Divergence{Step: 2, Ops: ops[:3]}), "nothing re-created yet")
}
