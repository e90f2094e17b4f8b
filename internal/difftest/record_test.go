package difftest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRecordRepros rewrites the hand-written reproductions under testdata/repro/
// from the oracle. It runs only with DIFFTEST_RECORD=1 (it writes files);
// TestRepros checks them against coordsim on every run.
func TestRecordRepros(t *testing.T) {
	if os.Getenv("DIFFTEST_RECORD") != "1" {
		t.Skip("set DIFFTEST_RECORD=1 to rewrite testdata/ from the oracle")
	}
	o := startOracle(context.Background(), t)
	topics := SetTopics{Topics: []Topic{{Name: "foo", Partitions: 2}}}
	epoch := func(e int32) ConsumerHeartbeat {
		return ConsumerHeartbeat{ClientID: "c", GroupID: "g", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: e, RebalanceTimeoutMs: -1}
	}
	for _, r := range []struct {
		name, about string
		ops         []Op
	}{
		{"negative-offset-commit", "A commit of a negative offset and a leader epoch below -1 is stored as given\nand fetched back (coordsim refused it with INVALID_REQUEST).", []Op{
			topics,
			OffsetCommit{GroupID: "simple", MemberEpoch: -1, Topics: []CommitTopic{{Topic: "foo", Partitions: []CommitPartition{
				{Partition: 0, Offset: -5, LeaderEpoch: -7}, {Partition: 1, Offset: -1, LeaderEpoch: -1, Metadata: "reset"}}}}},
			OffsetFetch{GroupID: "simple", MemberEpoch: -1},
			Reload{},
			OffsetFetch{GroupID: "simple", MemberEpoch: -1},
		}},
		{"leave-unknown-group", "A leave (-1, -2) of a group that does not exist names no group type;\na heartbeat at a positive epoch does.", []Op{
			epoch(-1),
			ConsumerHeartbeat{ClientID: "c", GroupID: "g", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: -2, InstanceID: ptr("i"), RebalanceTimeoutMs: -1},
			ShareHeartbeat{ClientID: "c", GroupID: "s", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: -1},
			epoch(3),
		}},
		{"invalid-member-epoch-message", "An invalid member epoch is refused with GroupCoordinatorService's words.", []Op{
			epoch(-3),
			ShareHeartbeat{ClientID: "c", GroupID: "s", MemberID: "member-a-xxxxxxxxxxxxxxx", MemberEpoch: -2},
		}},
		{"parked-join-request-numbers", "Three parked JoinGroups in two groups; g2's initial delay ends first, so\nthe middle request (2) is answered alone, then 1 and 3 together.", threeParkedJoins()},
	} {
		path, err := RecordRepro(o, filepath.Join("testdata", "repro"), r.name, r.about, r.ops)
		require.NoError(t, err)
		t.Log("wrote", path)
	}
}

func ptr(s string) *string { return &s }
