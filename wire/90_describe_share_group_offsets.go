package wire

import (
	"errors"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sharebroker"
)

// DescribeShareGroupOffsets: v0-1 (KIP-932; v1 adds KIP-1226's lag). The
// start offset and lag of each share-partition the group has state for,
// from sharebroker (ListShareGroupOffsets); null topics mean all of them.
// A named partition without state answers start offset -1, as Kafka's
// share coordinator does for an uninitialised partition. Kafka reads the
// share state without looking the group up, so a group that does not
// exist, or is of another type, answers as one with no state (each named
// partition at -1, no partition for null topics), not GROUP_ID_NOT_FOUND:
// the real broker's answer (oracle/brokerdiff). The coordinator's describe
// still runs, for its id check and its coordinator errors.

var apiDescribeShareGroupOffsets = api{key: 90, min: 0, max: 1, handle: handleDescribeShareGroupOffsets}

func handleDescribeShareGroupOffsets(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DescribeShareGroupOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.DescribeShareGroupOffsetsResponse)
	for _, rg := range req.Groups {
		g := kmsg.NewDescribeShareGroupOffsetsResponseGroup()
		g.GroupID = rg.GroupID
		described, err := r.describe([]string{rg.GroupID})
		if _, err = describedAs(described, err, 0, shard.Share); err != nil && !errors.Is(err, kerr.GroupIDNotFound) {
			g.ErrorCode, g.ErrorMessage = errCode(err)
			resp.Groups = append(resp.Groups, g)
			continue
		}
		var offsets []sharebroker.PartitionOffset
		r.cl.share.with(func(b *sharebroker.Broker, _ int64) { offsets = b.ListShareGroupOffsets(rg.GroupID) })
		byTP := map[sharebroker.TopicPartition]sharebroker.PartitionOffset{}
		for _, o := range offsets {
			byTP[o.TopicPartition] = o
		}
		add := func(topic string, partitions []int32) {
			t := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopic()
			t.Topic, t.TopicID = topic, r.topicID(topic)
			for _, p := range partitions {
				rp := kmsg.NewDescribeShareGroupOffsetsResponseGroupTopicPartition()
				rp.Partition, rp.StartOffset, rp.LeaderEpoch, rp.Lag = p, -1, 0, -1
				if o, ok := byTP[sharebroker.TopicPartition{Topic: topic, Partition: p}]; ok {
					rp.StartOffset, rp.Lag = o.StartOffset, o.Lag
				}
				t.Partitions = append(t.Partitions, rp)
			}
			g.Topics = append(g.Topics, t)
		}
		if rg.Topics == nil {
			var topic string
			var parts []int32
			for _, o := range offsets { // sorted by (topic, partition)
				if o.Topic != topic && parts != nil {
					add(topic, parts)
					parts = nil
				}
				topic = o.Topic
				parts = append(parts, o.Partition)
			}
			if parts != nil {
				add(topic, parts)
			}
		} else {
			for _, t := range rg.Topics {
				add(t.Topic, t.Partitions)
			}
		}
		resp.Groups = append(resp.Groups, g)
	}
	return resp, nil
}
