package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/wire"
)

// Kafka's group admin request tests (core's DeleteGroupsRequestTest and
// DescribeGroupsRequestTest) compare whole responses at every version; these
// tests do the same over raw connections (rawCoordinators), so each request
// goes at exactly its version to its group's coordinator.

// TestDeleteGroupsRequest reproduces DeleteGroupsRequestTest: at every
// version, a group with a member is NON_EMPTY_GROUP, an unknown one
// GROUP_ID_NOT_FOUND and an empty one is deleted, each with a null
// ErrorMessage (GroupCoordinatorShard.deleteGroups sets only the code), and
// a group named twice is answered once (KafkaApis takes the distinct names).
func TestDeleteGroupsRequest(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 }) // one coordinator for every group of a request
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)
	send := func(req kmsg.Request) kmsg.Response { return r.send("", req) }
	for v := int16(0); v <= 3; v++ {
		nonEmpty, empty, unknown := "grp-non-empty-"+string('0'+rune(v)), "grp-empty-"+string('0'+rune(v)), "grp-unknown"
		r.joinConsumer(nonEmpty, "member", "foo")
		require.Zero(t, r.commit(9, empty, "", -1, 0, 1, "", [16]byte{}), "an admin commit creates %s", empty)
		req := kmsg.NewPtrDeleteGroupsRequest()
		req.Version, req.Groups = v, []string{nonEmpty, unknown, empty, unknown, empty}
		resp := send(req).(*kmsg.DeleteGroupsResponse)
		type row struct {
			group string
			code  int16
			msg   *string
		}
		var got []row
		for _, g := range resp.Groups {
			got = append(got, row{g.Group, g.ErrorCode, g.ErrorMessage})
		}
		assert.Equal(t, []row{{nonEmpty, 68, nil}, {unknown, 69, nil}, {empty, 0, nil}}, got, "v%d", v)

		again := kmsg.NewPtrDeleteGroupsRequest()
		again.Version, again.Groups = v, []string{empty}
		resp = send(again).(*kmsg.DeleteGroupsResponse)
		require.Len(t, resp.Groups, 1)
		assert.Equal(t, int16(69), resp.Groups[0].ErrorCode, "v%d: the empty group is gone", v)
	}
}

// TestDescribeGroupsRequest reproduces DescribeGroupsRequestTest's answer
// for a group that is not a classic group or does not exist: state Dead at
// every version, and from v6 GROUP_ID_NOT_FOUND with Kafka's message
// (GroupMetadataManager.describeGroups).
func TestDescribeGroupsRequest(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 })
	createTopic(t, ctx, newAdmin(t, cl), "foo", 1)
	r := newRawCoordinators(t, cl)
	send := func(req kmsg.Request) kmsg.Response { return r.send("", req) }
	r.joinConsumer("grp", "member", "foo")
	for v := int16(0); v <= 6; v++ {
		req := kmsg.NewPtrDescribeGroupsRequest()
		req.Version, req.Groups = v, []string{"grp-unknown", "grp"}
		resp := send(req).(*kmsg.DescribeGroupsResponse)
		require.Len(t, resp.Groups, 2, "v%d", v)
		for i, wantMsg := range []string{"Group grp-unknown not found.", "Group grp is not a classic group."} {
			g := resp.Groups[i]
			assert.Equal(t, "Dead", g.State, "v%d %s", v, g.Group)
			if v < 6 {
				assert.Zero(t, g.ErrorCode, "v%d %s", v, g.Group)
				assert.Nil(t, g.ErrorMessage, "v%d %s", v, g.Group)
				continue
			}
			assert.Equal(t, int16(69), g.ErrorCode, "v%d %s", v, g.Group)
			if assert.NotNil(t, g.ErrorMessage, "v%d %s", v, g.Group) {
				assert.Equal(t, wantMsg, *g.ErrorMessage)
			}
		}
	}
}

// TestOffsetFetchGroupErrors reproduces OffsetFetchRequestTest.testGroupErrors
// for the versions without a top-level error: at v1 a broker that does not
// coordinate the group puts NOT_COORDINATOR on every requested partition,
// with offset -1, leader epoch -1 and metadata "", instead of answering no
// partitions (which reads as "nothing committed"); v2 answers it top-level.
func TestOffsetFetchGroupErrors(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	node, err := cl.CoordinatorFor(coordinator.PartitionFor("grp", 50))
	require.NoError(t, err)
	other := dial(t, cl.Addrs()[(int(node)+1)%len(cl.Addrs())])
	for v := int16(1); v <= 2; v++ {
		req := kmsg.NewPtrOffsetFetchRequest()
		req.Version, req.Group = v, "grp"
		rt := kmsg.NewOffsetFetchRequestTopic()
		rt.Topic, rt.Partitions = "foo", []int32{0, 5}
		req.Topics = append(req.Topics, rt)
		resp := roundTrip(t, other, req).(*kmsg.OffsetFetchResponse)
		if v >= 2 {
			assert.Equal(t, int16(16), resp.ErrorCode, "v%d top-level NOT_COORDINATOR", v)
			continue
		}
		require.Len(t, resp.Topics, 1, "v%d", v)
		assert.Equal(t, "foo", resp.Topics[0].Topic)
		require.Len(t, resp.Topics[0].Partitions, 2)
		for i, p := range resp.Topics[0].Partitions {
			assert.Equal(t, []int32{0, 5}[i], p.Partition)
			assert.Equal(t, int16(16), p.ErrorCode, "v%d partition %d", v, p.Partition)
			assert.Equal(t, int64(-1), p.Offset)
			if assert.NotNil(t, p.Metadata) {
				assert.Equal(t, "", *p.Metadata)
			}
		}
	}
}
