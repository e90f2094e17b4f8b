package wire_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// TestOnlineUpgradeAnswersParkedJoinGroup proves, over raw requests, that a
// JoinGroup parked in a classic group's rebalance is answered
// REBALANCE_IN_PROGRESS, with its member id, as soon as a KIP-848 member's
// ConsumerGroupHeartbeat upgrades the group (Kafka's convertToConsumerGroup,
// completeAllJoinFutures), not when the join phase would have ended. And
// that it is answered the same when the upgrade then fails, here because
// the classic member's metadata is not the consumer protocol: Kafka
// answers the parked requests before it can fail, and the heartbeat gets
// GROUP_ID_NOT_FOUND.
func TestOnlineUpgradeAnswersParkedJoinGroup(t *testing.T) {
	t.Parallel()
	sub := kmsg.NewConsumerMemberMetadata()
	sub.Version, sub.Topics = 3, []string{"foo"}
	for _, tc := range []struct {
		name     string
		metadata []byte
		wantBeat int16
	}{
		{name: "upgraded", metadata: sub.AppendTo(nil)},
		{name: "upgrade fails", metadata: []byte{0, 1}, wantBeat: kerr.GroupIDNotFound.Code},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cl := startCluster(t, func(c *wire.Config) {
				c.Brokers = 1
				// The join phase would last a minute: an answer before it
				// is the upgrade's.
				c.Coordinator.Classic.InitialRebalanceDelayMs = 60_000
			})
			const group = "parked-upgrade"
			join := kmsg.NewPtrJoinGroupRequest()
			join.Version = 9
			join.Group, join.SessionTimeoutMillis, join.RebalanceTimeoutMillis, join.ProtocolType = group, 30_000, 60_000, "consumer"
			p := kmsg.NewJoinGroupRequestProtocol()
			p.Name, p.Metadata = "range", tc.metadata
			join.Protocols = append(join.Protocols, p)

			classic := dial(t, cl.Addrs()[0])
			first := roundTrip(t, classic, join).(*kmsg.JoinGroupResponse)
			require.Equal(t, kerr.MemberIDRequired.Code, first.ErrorCode)
			join.MemberID = first.MemberID
			_, err := classic.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, join, 2))
			require.NoError(t, err)

			other := dial(t, cl.Addrs()[0])
			waitForParkedJoin(t, other, group)
			start := time.Now()
			beat := kmsg.NewPtrConsumerGroupHeartbeatRequest()
			beat.Group, beat.MemberID, beat.MemberEpoch, beat.RebalanceTimeoutMillis = group, "c1-member-id-00000000001", 0, 30_000
			beat.SubscribedTopicNames = []string{"foo"}
			beat.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
			assert.Equal(t, tc.wantBeat, roundTrip(t, other, beat).(*kmsg.ConsumerGroupHeartbeatResponse).ErrorCode)

			resp := kmsg.NewPtrJoinGroupResponse()
			resp.SetVersion(join.Version)
			body := readResponse(t, classic)[4:] // the correlation id
			require.Equal(t, byte(0), body[0], "empty response header tags")
			require.NoError(t, resp.ReadFrom(body[1:]))
			assert.Equal(t, kerr.RebalanceInProgress.Code, resp.ErrorCode)
			assert.Equal(t, join.MemberID, resp.MemberID)
			assert.Less(t, time.Since(start), 30*time.Second, "answered by the upgrade, not by the end of the join phase")
		})
	}
}

// waitForParkedJoin polls DescribeGroups until the group prepares a
// rebalance with its member, whose JoinGroup is then parked.
func waitForParkedJoin(t *testing.T, c net.Conn, group string) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; {
		d := kmsg.NewPtrDescribeGroupsRequest()
		d.Groups = []string{group}
		r := roundTrip(t, c, d).(*kmsg.DescribeGroupsResponse)
		if len(r.Groups) == 1 && r.Groups[0].State == "PreparingRebalance" && len(r.Groups[0].Members) == 1 {
			return
		}
		require.True(t, time.Now().Before(deadline), "the JoinGroup never parked: %+v", r.Groups)
		time.Sleep(10 * time.Millisecond)
	}
}
