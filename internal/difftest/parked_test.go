package difftest

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
)

// threeParkedJoins parks JoinGroups 1 and 3 in group g1 and 2 in g2 (static
// members, so no MEMBER_ID_REQUIRED round), then lets g2's initial delay
// end alone: member 3 joining g1 extends g1's delay (newMemberAdded), so
// the first advance completes request 2 only, the middle of three parked
// requests, and the second completes 1 and 3.
func threeParkedJoins() []Op {
	sub := []byte{0, 3, 0, 0, 0, 1, 0, 3, 'f', 'o', 'o', 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff}
	join := func(req int, group, instance string) ClassicJoin {
		return ClassicJoin{Req: req, ClientID: "c-" + instance, GroupID: group, InstanceID: ptr(instance),
			SessionTimeoutMs: 10000, RebalanceTimeoutMs: 30000, ProtocolType: "consumer",
			Protocols: []ClassicProtocol{{Name: "range", Metadata: sub}}}
	}
	return []Op{
		SetTopics{Topics: []Topic{{Name: "foo", Partitions: 1}}},
		join(1, "g1", "i1"),
		join(2, "g2", "i2"),
		join(3, "g1", "i3"),
		Advance{Ms: 3500},
		Advance{Ms: 3000},
	}
}

// TestParkedCompletionKeepsItsRequestNumber proves that the oracle reports
// a parked JoinGroup's answer under its own request number when it is the
// middle one of three parked: the oracle read the number from its TreeMap
// entry after removing it, and TreeMap moves the successor's key into a
// removed node with two children, so Kafka's answer to request 2 came out
// as request 3's (seed 94 of coordsim diff --share).
func TestParkedCompletionKeepsItsRequestNumber(t *testing.T) {
	o := startOracle(context.Background(), t)
	ops := threeParkedJoins()
	s, err := newSession(o)
	require.NoError(t, err)
	var completed [][]int
	for _, op := range ops {
		kafka, ours, err := s.step(op)
		require.NoError(t, err)
		require.Equal(t, kafka.canonical(), ours.canonical(), "op %s %s", op.Name(), EncodeOp(op))
		var reqs []int
		for _, c := range kafka.Completed {
			reqs = append(reqs, int(num(asMap(c)["req"])))
		}
		completed = append(completed, reqs)
	}
	require.Equal(t, [][]int{nil, nil, nil, nil, {2}, {1, 3}}, completed)
}
