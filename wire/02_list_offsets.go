package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets: v1-11 (Kafka 4.x), per partition as ReplicaManager.fetchOffset:
// a partition named twice is answered once, INVALID_REQUEST; a negative timestamp the
// request's version does not carry is UNSUPPORTED_VERSION
// (isListOffsetsTimestampUnsupported); then the partition's leader answers
// (UNKNOWN_TOPIC_OR_PARTITION, NOT_LEADER_OR_FOLLOWER), after checking the
// request's CurrentLeaderEpoch (Partition.localLogWithEpochOrThrow), with
// UnifiedLog.fetchOffsetByTimestamp's answer (dataPlane.offsetFor). Error
// and not-found rows carry offset, timestamp and leader epoch -1.
// IsolationLevel 1 (read_committed) bounds the answer by the last stable
// offset, as Partition.fetchOffsetForTimestamp does (readCommittedOffset).

var apiListOffsets = api{key: 2, min: 1, max: 11, handle: handleListOffsets}

// listOffsetsMinVersion is ReplicaManager.timestampMinSupportedVersion:
// the first request version that carries each special timestamp.
var listOffsetsMinVersion = map[int64]int16{
	earliestTimestamp:              1,
	latestTimestamp:                1,
	maxTimestamp:                   7,
	earliestLocalTimestamp:         8,
	latestTieredTimestamp:          9,
	earliestPendingUploadTimestamp: 11,
}

// listOffsetsTimestampUnsupported is ReplicaManager.isListOffsetsTimestampUnsupported:
// a negative timestamp that is no special one, or one newer than the
// request's version.
func listOffsetsTimestampUnsupported(ts int64, version int16) bool {
	if ts >= 0 {
		return false
	}
	min, ok := listOffsetsMinVersion[ts]
	return !ok || version < min
}

func handleListOffsets(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ListOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
	type key struct {
		topic     string
		partition int32
	}
	seen := make(map[key]int, len(req.Topics))
	for _, rt := range req.Topics {
		for _, rp := range rt.Partitions {
			seen[key{rt.Topic, rp.Partition}]++
		}
	}
	for _, rt := range req.Topics {
		t, code := r.cl.resolveTopic(rt.Topic, [16]byte{}, false)
		st := kmsg.NewListOffsetsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			k := key{rt.Topic, rp.Partition}
			if seen[k] < 0 {
				continue // a duplicate, already answered
			}
			sp := kmsg.NewListOffsetsResponseTopicPartition() // leader epoch -1
			sp.Partition = rp.Partition
			sp.Offset, sp.Timestamp = -1, -1
			switch {
			case seen[k] > 1:
				// Answered once: Kafka's statusByPartition is keyed by partition.
				seen[k] = -1
				sp.ErrorCode = fkerr.InvalidRequest.Code
			case listOffsetsTimestampUnsupported(rp.Timestamp, req.Version):
				sp.ErrorCode = fkerr.UnsupportedVersion.Code
			default:
				sp.ErrorCode = r.cl.partitionCode(r.b, t, code, rp.Partition)
				if sp.ErrorCode == 0 && rp.CurrentLeaderEpoch != -1 {
					sp.ErrorCode = leaderEpochCode(rp.CurrentLeaderEpoch)
				}
				if sp.ErrorCode == 0 {
					sp.Offset, sp.Timestamp, sp.LeaderEpoch, sp.ErrorCode = r.cl.data.offsetFor(t.name, rp.Partition, rp.Timestamp)
					if req.IsolationLevel == 1 && sp.ErrorCode == 0 {
						sp.Offset, sp.Timestamp, sp.LeaderEpoch = r.cl.data.readCommittedOffset(t.name, rp.Partition, rp.Timestamp, sp.Offset, sp.Timestamp, sp.LeaderEpoch)
					}
				}
			}
			st.Partitions = append(st.Partitions, sp)
		}
		if len(st.Partitions) == 0 && len(rt.Partitions) > 0 {
			continue // every partition a duplicate answered under an earlier row of the topic
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
