package wire_test

import (
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TestShareAndStreamsDescribesShowTheConnectionsHost proves
// ShareGroupDescribe and StreamsGroupDescribe show each member's client
// host, the address of the connection its heartbeat came on ("/" +
// address, Kafka's RequestContext.clientAddress kept on the member record),
// not a fixed "/127.0.0.1": the heartbeats come from 127.0.0.2, another
// loopback address, and the describe, on another connection, shows it.
func TestShareAndStreamsDescribesShowTheConnectionsHost(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, oneOffsetsPartition)
	createTopic(t, testContext(t), newAdmin(t, cl), "foo", 3)
	d := net.Dialer{Timeout: 5 * time.Second, LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	c, err := d.Dial("tcp", cl.Addrs()[0])
	if err != nil {
		t.Skipf("no second loopback address to dial from: %v", err)
	}
	t.Cleanup(func() { c.Close() })
	require.NoError(t, c.SetDeadline(time.Now().Add(10*time.Second)))
	fromOther := func(req kmsg.Request) kmsg.Response { return roundTrip(t, c, req) }
	send := rawSender(t, cl) // from 127.0.0.1

	share := kmsg.NewPtrShareGroupHeartbeatRequest()
	share.Version, share.GroupID, share.MemberID, share.SubscribedTopicNames = 1, "share-g", "share-m", []string{"foo"}
	sjoined := fromOther(share).(*kmsg.ShareGroupHeartbeatResponse)
	require.Zero(t, sjoined.ErrorCode, "share join: %v", sjoined.ErrorMessage)

	streams := kmsg.NewPtrStreamsGroupHeartbeatRequest()
	streams.Group, streams.MemberID, streams.RebalanceTimeoutMillis = "streams-g", "streams-m", 300000
	streams.ProcessID, streams.Topology = ptr("process"), oneSubtopology("foo")
	noOwnedTasks(streams)
	tjoined := fromOther(streams).(*kmsg.StreamsGroupHeartbeatResponse)
	require.Zero(t, tjoined.ErrorCode, "streams join: %v", tjoined.ErrorMessage)

	sd := kmsg.NewPtrShareGroupDescribeRequest()
	sd.Version, sd.GroupIDs = 1, []string{"share-g"}
	sresp := send(sd).(*kmsg.ShareGroupDescribeResponse)
	require.Len(t, sresp.Groups, 1)
	require.Zero(t, sresp.Groups[0].ErrorCode, "%v", sresp.Groups[0].ErrorMessage)
	require.Len(t, sresp.Groups[0].Members, 1)
	assert.Equal(t, "/127.0.0.2", sresp.Groups[0].Members[0].ClientHost)

	td := kmsg.NewPtrStreamsGroupDescribeRequest()
	td.Version, td.Groups = 1, []string{"streams-g"}
	tresp := send(td).(*kmsg.StreamsGroupDescribeResponse)
	require.Len(t, tresp.Groups, 1)
	require.Zero(t, tresp.Groups[0].ErrorCode, "%v", tresp.Groups[0].ErrorMessage)
	require.Len(t, tresp.Groups[0].Members, 1)
	assert.Equal(t, "/127.0.0.2", tresp.Groups[0].Members[0].ClientHost)

	// A heartbeat from 127.0.0.1 moves the share member's host.
	share.MemberEpoch, share.SubscribedTopicNames = sjoined.MemberEpoch, nil
	again := send(share).(*kmsg.ShareGroupHeartbeatResponse)
	require.Zero(t, again.ErrorCode, "share heartbeat: %v", again.ErrorMessage)
	sresp = send(sd).(*kmsg.ShareGroupDescribeResponse)
	require.Len(t, sresp.Groups[0].Members, 1)
	assert.Equal(t, "/127.0.0.1", sresp.Groups[0].Members[0].ClientHost)
}
