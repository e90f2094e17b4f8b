package difftest

import (
	"encoding/base64"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/shard"
)

// kafkaGroupMetadataLine is the oracle's answer to a leader's SyncGroup
// (captured from Kafka 4.4): a GroupMetadata record whose members carry
// Kafka's random member id, the client host and the client's bytes.
const kafkaGroupMetadataLine = `{"op":"classic_sync","response":{"throttleTimeMs":0,"errorCode":0,"protocolType":"consumer","protocolName":"range","assignment":"AAMAAAABAANmb28AAAABAAAAAP////8="},"nowMs":3500,"records":[{"type":"GroupMetadata","key":{"group":"g1"},"value":{"protocolType":"consumer","generation":1,"protocol":"range","leader":"i1-3813ef09-0b9c-47f9-b8ba-e0c0a50f9dd3","currentStateTimestamp":3000,"members":[{"memberId":"i1-3813ef09-0b9c-47f9-b8ba-e0c0a50f9dd3","groupInstanceId":"i1","clientId":"c-i1","clientHost":"localhost/127.0.0.1","rebalanceTimeout":30000,"sessionTimeout":10000,"subscription":"AAMAAAABAANmb2//////AAAAAP////8=","assignment":"AAMAAAABAANmb28AAAABAAAAAP////8="}]}}]}`

// TestGroupMetadataRecordComparesMembers proves that a GroupMetadata
// record is compared whole: coordsim's record with the same member
// (another generated id, no client host) is equal to Kafka's once both
// are labelled, and a different leader, protocol, subscription,
// assignment, timeout or instance id is not.
func TestGroupMetadataRecordComparesMembers(t *testing.T) {
	b64 := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		require.NoError(t, err)
		return b
	}
	var kafkaIDs idTable
	kafka := kafkaIDs.relabel(normalise(ClassicSync{}, []byte(kafkaGroupMetadataLine), nil))
	ours := func(change func(*shard.GroupMetadata)) string {
		const id = "i1-0a1b2c3d-0000-4000-8000-000000000001"
		gm := &shard.GroupMetadata{Group: "g1", ProtocolType: "consumer", Generation: 1, Protocol: "range", Leader: id,
			CurrentStateTimestampMs: 3000, Members: []shard.GroupMetadataMember{{MemberID: id, InstanceID: "i1", ClientID: "c-i1",
				RebalanceTimeoutMs: 30000, SessionTimeoutMs: 10000,
				Subscription: b64("AAMAAAABAANmb2//////AAAAAP////8="), Assignment: b64("AAMAAAABAANmb28AAAABAAAAAP////8=")}}}
		change(gm)
		var ids idTable
		return mustJSON(ids.relabel(Outcome{Records: []any{recordJSON(gm)}}).Records)
	}
	want := mustJSON(kafka.Records)
	require.Equal(t, want, ours(func(*shard.GroupMetadata) {}))
	for name, change := range map[string]func(*shard.GroupMetadata){
		"leader":       func(g *shard.GroupMetadata) { g.Leader = "" },
		"protocol":     func(g *shard.GroupMetadata) { g.Protocol = "roundrobin" },
		"subscription": func(g *shard.GroupMetadata) { g.Members[0].Subscription = b64("AAMAAAAA/////wAAAAD/////") },
		"assignment":   func(g *shard.GroupMetadata) { g.Members[0].Assignment = nil },
		"timeout":      func(g *shard.GroupMetadata) { g.Members[0].SessionTimeoutMs = 45000 },
		"instance":     func(g *shard.GroupMetadata) { g.Members[0].InstanceID = "" },
		"no members":   func(g *shard.GroupMetadata) { g.Members = nil },
	} {
		require.NotEqual(t, want, ours(change), name)
	}
}
