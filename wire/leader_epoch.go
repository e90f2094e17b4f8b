package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
)

// partitionLeaderEpoch is every partition's leader epoch: leaders never
// move here (partition p is led by broker p mod N), so each stays at the
// epoch Kafka gives a new partition's first leader.
const partitionLeaderEpoch = 0

// leaderEpochCode is Kafka's Partition.checkCurrentLeaderEpoch for a
// request's CurrentLeaderEpoch: an epoch below the leader's is
// FENCED_LEADER_EPOCH (the client's metadata is stale), one above it
// UNKNOWN_LEADER_EPOCH (this broker's is), the leader's own epoch is fine.
// The caller skips the check when the request sends none (Fetch: any
// negative epoch, FetchRequest's optionalEpoch; ListOffsets: -1).
func leaderEpochCode(current int32) int16 {
	switch {
	case current < partitionLeaderEpoch:
		return fkerr.FencedLeaderEpoch.Code
	case current > partitionLeaderEpoch:
		return fkerr.UnknownLeaderEpoch.Code
	}
	return 0
}
