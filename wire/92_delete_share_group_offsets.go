package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sharebroker"
)

// DeleteShareGroupOffsets: v0 (KIP-932). Two halves, as Kafka's
// GroupCoordinatorService.deleteShareGroupOffsets: the group coordinator
// checks that the share group exists and is EMPTY
// (coordinator.DeleteShareGroupOffsets: INVALID_GROUP_ID,
// GROUP_ID_NOT_FOUND, NON_EMPTY_GROUP, top-level errors with no topic
// rows), then the share state of each topic is deleted
// (sharebroker.DeleteShareGroupOffsets, the persister's deleteState).
//
// Per topic, in Kafka's row order: the deleted topics first (with their
// id), then the refused ones in request order (a topic the metadata image
// does not hold: UNKNOWN_TOPIC_OR_PARTITION with Kafka's default message;
// one the group holds no share state for: UNKNOWN_TOPIC_OR_PARTITION
// "There is no offset information to delete.", as
// GroupMetadataManager.sharePartitionsEligibleForOffsetDeletion answers),
// then those whose delete failed. A group that never had share state
// answers no row at all, whatever the topics (the early return of
// GroupMetadataManager.sharePartitionsEligibleForOffsetDeletion when the
// group has no ShareGroupStatePartitionMetadata). A request naming no topic still has its
// group checked (Kafka's null-topics shortcut cannot be reached: the field
// is not nullable, and kmsg decodes an empty array as nil). A topic named
// twice gets one row.

var apiDeleteShareGroupOffsets = api{key: 92, min: 0, max: 0, handle: handleDeleteShareGroupOffsets}

// errNoShareOffsets is Kafka's row message for a topic without share state.
const errNoShareOffsets = "There is no offset information to delete."

func handleDeleteShareGroupOffsets(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DeleteShareGroupOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteShareGroupOffsetsResponse)
	var named, known []string // named: each topic once, in request order
	var partitions []shard.TopicPartitions
	seen := map[string]bool{}
	for _, t := range req.Topics {
		if seen[t.Topic] {
			continue
		}
		seen[t.Topic] = true
		named = append(named, t.Topic)
		if info, ok := r.cl.data.lookup(t.Topic); ok {
			known = append(known, t.Topic)
			partitions = append(partitions, shard.TopicPartitions{Topic: t.Topic, Partitions: allPartitions(info.partitions)})
		}
	}
	_, err := live.Call(r.ctx, r.driver(), func(c *coordinator.Coordinator) *coordinator.Future[int] {
		return c.DeleteShareGroupOffsets(req.GroupID, partitions)
	})
	if err != nil {
		resp.ErrorCode, resp.ErrorMessage = errCode(err)
		return resp, nil
	}
	var deleted []bool
	hasState := true
	r.cl.share.with(func(b *sharebroker.Broker, _ int64) {
		if hasState = b.HasShareGroupState(req.GroupID); hasState {
			deleted, err = b.DeleteShareGroupOffsets(req.GroupID, known)
		}
	})
	if !hasState {
		return resp, nil // no state was ever initialised: no row at all, as Kafka
	}
	failCode, failMsg := errCode(err)
	var ok, refused, failed []kmsg.DeleteShareGroupOffsetsResponseTopic
	row := func(topic string, id [16]byte, code int16, msg *string) kmsg.DeleteShareGroupOffsetsResponseTopic {
		rt := kmsg.NewDeleteShareGroupOffsetsResponseTopic()
		rt.Topic, rt.TopicID, rt.ErrorCode, rt.ErrorMessage = topic, id, code, msg
		return rt
	}
	k := 0 // index into known, which keeps named's order
	for _, t := range named {
		if k == len(known) || known[k] != t {
			msg := fkerr.UnknownTopicOrPartition.Description
			refused = append(refused, row(t, [16]byte{}, fkerr.UnknownTopicOrPartition.Code, &msg))
			continue
		}
		switch {
		case err != nil:
			failed = append(failed, row(t, r.topicID(t), failCode, failMsg))
		case deleted[k]:
			ok = append(ok, row(t, r.topicID(t), 0, nil))
		default:
			msg := errNoShareOffsets
			refused = append(refused, row(t, [16]byte{}, fkerr.UnknownTopicOrPartition.Code, &msg))
		}
		k++
	}
	resp.Topics = append(append(ok, refused...), failed...)
	return resp, nil
}

// allPartitions is [0, n).
func allPartitions(n int32) []int32 {
	out := make([]int32, n)
	for p := range out {
		out[p] = int32(p)
	}
	return out
}
