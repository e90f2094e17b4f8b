package shard

import (
	"testing"

	"github.com/coordsim/coordsim/offsets"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLoadForgetsClassicRebalances: a load rebuilds each classic group from
// its last GroupMetadata record, as Kafka's ClassicGroup.fromRecord: the
// rebalance a later ClassicGroupState recorded is gone, the member supports
// the group's protocol only; a group an offset commit made is the empty
// simple group; one that only ever lived in memory is gone. The groups it
// changed are listed until a record rewrites them, and a replay forgets the
// same when told (ForgetAsLoaded).
func TestLoadForgetsClassicRebalances(t *testing.T) {
	stable := ClassicMember{MemberID: "a", ClientID: "c", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 30000,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: []byte{1}}, {Name: "roundrobin", Metadata: []byte{2}}}}
	joining := ClassicMember{MemberID: "b", ClientID: "c", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 30000,
		Protocols: []ClassicProtocol{{Name: "range", Metadata: []byte{1}}}}
	log := []Record{
		&GroupMetadata{Group: "g", ProtocolType: "consumer", Protocol: "range", Generation: 1, Leader: "a",
			Members: []GroupMetadataMember{{MemberID: "a", ClientID: "c", SessionTimeoutMs: 10000, RebalanceTimeoutMs: 30000, Subscription: []byte{1}}}},
		&ClassicGroupState{Group: "g", State: StatePreparingRebalance, PreviousState: StateStable, ProtocolType: "consumer",
			ProtocolName: "range", Generation: 1, Leader: "a", Members: []ClassicMember{stable, joining}},
		&ClassicGroupState{Group: "mem", State: StatePreparingRebalance, PreviousState: StateEmpty, ProtocolType: "consumer",
			Members: []ClassicMember{joining}},
		&ClassicGroupState{Group: "simple", State: StatePreparingRebalance, PreviousState: StateEmpty, ProtocolType: "consumer",
			Members: []ClassicMember{joining}},
		&OffsetCommit{Group: "simple", Topic: "foo", Partition: 0, Value: offsets.OffsetAndMetadata{Offset: 7}, ProducerID: NoProducerID},
	}
	s, err := New(0, DefaultConfig())
	require.NoError(t, err)
	require.NoError(t, s.ReplayAll(0, log))
	replay := s.Clone()
	d, _ := s.DescribeGroup("g")
	require.Len(t, d.Classic.Members, 2, "replay keeps the rebalance")

	s.OnLoaded(0)
	d, ok := s.DescribeGroup("g")
	require.True(t, ok)
	assert.Equal(t, StateStable, d.Classic.State)
	require.Len(t, d.Classic.Members, 1)
	assert.Equal(t, []ClassicProtocol{{Name: "range", Metadata: []byte{1}}}, d.Classic.Members[0].Protocols)
	_, ok = s.DescribeGroup("mem")
	assert.False(t, ok, "a group only ever in memory is gone")
	d, ok = s.DescribeGroup("simple")
	require.True(t, ok, "an offset commit made the simple group")
	assert.Nil(t, d.Classic)
	assert.Equal(t, []string{"g", "mem", "simple"}, s.ForgottenAtLoad())

	replay.ForgetAsLoaded(s.ForgottenAtLoad())
	require.NoError(t, s.Snapshot().Diff(replay.Snapshot()))

	// A record that rewrites a group takes it off the list.
	require.NoError(t, s.Replay(5, &ClassicGroupState{Group: "g", State: StateStable, ProtocolType: "consumer", ProtocolName: "range",
		Generation: 1, Leader: "a", Members: []ClassicMember{stable}}))
	assert.Equal(t, []string{"mem", "simple"}, s.ForgottenAtLoad())
}
