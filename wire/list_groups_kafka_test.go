package wire_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/wire"
)

// listGroups sends a ListGroups to the coordinator of group and returns
// the response's code and the "id/state/type/protocol" rows of the groups
// named in only.
func (r *rawCoordinators) listGroups(group string, version int16, states, types []string, only ...string) (int16, []string) {
	r.t.Helper()
	req := kmsg.NewPtrListGroupsRequest()
	req.Version, req.StatesFilter, req.TypesFilter = version, states, types
	resp := r.send(group, req).(*kmsg.ListGroupsResponse)
	var rows []string
	for _, g := range resp.Groups {
		for _, o := range only {
			if g.Group == o {
				rows = append(rows, fmt.Sprintf("%s/%s/%s/%s", g.Group, g.GroupState, g.GroupType, g.ProtocolType))
			}
		}
	}
	return resp.ErrorCode, rows
}

// TestListGroupsRequest reproduces ListGroupsRequestTest.testListGroups
// (useNewProtocol = true, without the classic protocol's groups, which are
// not served) at every version, with GroupMetadataManager.listGroups'
// filters: a state filter is lower-cased and trimmed (String.trim: the
// characters up to U+0020), a type filter only lower-cased
// (Group.GroupType.parse), so " stable " lists the stable group and
// " consumer" lists nothing.
func TestListGroupsRequest(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "foo", 3)
	r := newRawCoordinators(t, cl)
	r.joinConsumer("grp", "m1", "foo")
	// Heartbeat until the member has reconciled: the group is Stable.
	require.Eventually(t, func() bool {
		_, rows := r.listGroups("grp", 5, []string{"Stable"}, nil, "grp")
		if len(rows) == 1 {
			return true
		}
		r.joinConsumerAgain("grp", "m1")
		return false
	}, 10*time.Second, 10*time.Millisecond)

	for v := int16(0); v <= 5; v++ {
		state, typ := "", ""
		if v >= 4 {
			state = "Stable"
		}
		if v >= 5 {
			typ = "consumer"
		}
		grp := fmt.Sprintf("grp/%s/%s/consumer", state, typ)
		code, rows := r.listGroups("grp", v, nil, nil, "grp")
		assert.Zero(t, code)
		assert.Equal(t, []string{grp}, rows, "v%d", v)
		if v >= 4 {
			for _, f := range [][]string{{"Stable"}, {"STABLE"}, {" stable "}, {"\tStable\n"}, {"Empty", "stable"}} {
				_, rows = r.listGroups("grp", v, f, nil, "grp")
				assert.Equal(t, []string{grp}, rows, "v%d states %q", v, f)
			}
			for _, f := range [][]string{{"Empty"}, {"Assigning"}, {"st able"}, {"\u00a0Stable"}} {
				_, rows = r.listGroups("grp", v, f, nil, "grp")
				assert.Empty(t, rows, "v%d states %q", v, f)
			}
		}
		if v >= 5 {
			for _, f := range [][]string{{"Consumer"}, {"consumer"}, {"CONSUMER", "Share"}} {
				_, rows = r.listGroups("grp", v, nil, f, "grp")
				assert.Equal(t, []string{grp}, rows, "v%d types %q", v, f)
			}
			for _, f := range [][]string{{"Classic"}, {" consumer"}, {"Unknown"}} {
				_, rows = r.listGroups("grp", v, nil, f, "grp")
				assert.Empty(t, rows, "v%d types %q", v, f)
			}
		}
	}
}

// joinConsumerAgain heartbeats member of group at its current epoch (a
// full request), so that it reconciles.
func (r *rawCoordinators) joinConsumerAgain(group, member string) {
	r.t.Helper()
	d := kmsg.NewPtrConsumerGroupDescribeRequest()
	d.Groups = []string{group}
	desc := r.send(group, d).(*kmsg.ConsumerGroupDescribeResponse)
	require.Len(r.t, desc.Groups, 1)
	require.Len(r.t, desc.Groups[0].Members, 1)
	hb := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	hb.Version = 1
	hb.Group, hb.MemberID, hb.MemberEpoch = group, member, desc.Groups[0].Members[0].MemberEpoch
	hb.RebalanceTimeoutMillis, hb.SubscribedTopicNames = 5000, []string{"foo"}
	hb.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	for _, a := range desc.Groups[0].Members[0].Assignment.TopicPartitions {
		hb.Topics = append(hb.Topics, kmsg.ConsumerGroupHeartbeatRequestTopic{TopicID: a.TopicID, Partitions: a.Partitions})
	}
	r.send(group, hb)
}

// TestListGroupsWhileLoading is GroupCoordinatorService.listGroups on a
// broker whose partitions are loading: the COORDINATOR_LOAD_IN_PROGRESS of
// any partition fails the whole answer, with no groups (a NOT_COORDINATOR
// partition would be skipped: TestListGroupsFailure).
func TestListGroupsWhileLoading(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Coordinator.LoadDelay = time.Hour })
	r := newRawCoordinators(t, cl)
	for v := int16(0); v <= 5; v++ {
		req := kmsg.NewPtrListGroupsRequest()
		req.Version = v
		resp := r.send("grp", req).(*kmsg.ListGroupsResponse)
		assert.Equal(t, int16(14), resp.ErrorCode, "v%d", v)
		assert.Empty(t, resp.Groups, "v%d", v)
	}
}
