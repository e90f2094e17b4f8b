package shard

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestClientIDChangeWritesMemberRecordWithoutEpochBump reproduces the
// differential runner's client-id-change against Kafka 4.4, whose
// consumerGroupHeartbeat and shareGroupHeartbeat set the member's client id
// from the request header on every heartbeat: a steady member whose client
// id changes outside a join gets its member record written with the new
// id, and the group epoch stays where it was.
func TestClientIDChangeWritesMemberRecordWithoutEpochBump(t *testing.T) {
	for _, typ := range []GroupType{Consumer, Share} {
		t.Run(typ.String(), func(t *testing.T) {
			h := newHarness(t, testConfig(), map[string]int32{"foo": 2})
			var epoch int32
			beat := func(clientID string, memberEpoch int32) []Record {
				t.Helper()
				var records []Record
				if typ == Consumer {
					res, err := h.s.ConsumerGroupHeartbeat(h.nowMs, ConsumerGroupHeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: memberEpoch,
						ClientID: clientID, RebalanceTimeoutMs: 30_000, SubscribedTopicNames: subscribedOnJoin(memberEpoch), TopicPartitions: ownedBy(h.s, "g", "m")})
					mustApply(h, res, err)
					epoch, records = res.Response.MemberEpoch, res.Records
				} else {
					res, err := h.s.ShareGroupHeartbeat(h.nowMs, ShareGroupHeartbeatRequest{GroupID: "g", MemberID: "m", MemberEpoch: memberEpoch,
						ClientID: clientID, SubscribedTopicNames: subscribedOnJoin(memberEpoch)})
					mustApply(h, res, err)
					epoch, records = res.Response.MemberEpoch, res.Records
				}
				return records
			}
			beat("client-a", 0)
			beat("client-a", epoch)
			require.Empty(t, beat("client-a", epoch), "a steady heartbeat writes nothing")
			before, _ := h.s.GroupEpoch("g")

			records := beat("client-b", epoch)
			require.Len(t, records, 1, "the member record alone")
			want := map[GroupType]string{Consumer: "ConsumerGroupMemberMetadata", Share: "ShareGroupMemberMetadata"}[typ]
			assert.Equal(t, want, records[0].Type().String())
			d, _ := h.s.DescribeGroup("g")
			assert.Equal(t, "client-b", d.Members[0].ClientID)
			after, _ := h.s.GroupEpoch("g")
			assert.Equal(t, before, after, "no epoch bump")
			assert.Empty(t, beat("client-b", epoch), "steady again")
		})
	}
}

func subscribedOnJoin(epoch int32) []string {
	if epoch == 0 {
		return []string{"foo"}
	}
	return nil
}
