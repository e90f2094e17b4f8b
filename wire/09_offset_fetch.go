package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/shard"
)

// OffsetFetch: v1-10 (Kafka 4.x); v8+ batches groups, v10 names topics by
// id. Null topics fetch every committed offset of the group; named
// partitions with nothing committed answer offset -1. RequireStable (v7+)
// is passed to the coordinator, which answers UNSTABLE_OFFSET_COMMIT per
// partition while transactional offsets are pending. The v9+ member id and
// epoch are checked by the coordinator (UNKNOWN_MEMBER_ID,
// STALE_MEMBER_EPOCH for the group).

var apiOffsetFetch = api{key: 9, min: 1, max: 10, handle: handleOffsetFetch}

func handleOffsetFetch(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.OffsetFetchRequest)
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	if req.Version < 8 {
		g := kmsg.NewOffsetFetchRequestGroup()
		g.Group = req.Group
		if req.Topics != nil {
			g.Topics = []kmsg.OffsetFetchRequestGroupTopic{}
			for _, t := range req.Topics {
				gt := kmsg.NewOffsetFetchRequestGroupTopic()
				gt.Topic, gt.Partitions = t.Topic, t.Partitions
				g.Topics = append(g.Topics, gt)
			}
		}
		rg := offsetFetchGroup(r, g, req.RequireStable, false)
		resp.ErrorCode = rg.ErrorCode
		if rg.ErrorCode != 0 && req.Version < 2 {
			return offsetFetchV1Error(req, rg.ErrorCode), nil
		}
		for _, gt := range rg.Topics {
			t := kmsg.NewOffsetFetchResponseTopic()
			t.Topic = gt.Topic
			for _, gp := range gt.Partitions {
				p := kmsg.NewOffsetFetchResponseTopicPartition()
				p.Partition, p.Offset, p.LeaderEpoch, p.Metadata, p.ErrorCode = gp.Partition, gp.Offset, gp.LeaderEpoch, gp.Metadata, gp.ErrorCode
				t.Partitions = append(t.Partitions, p)
			}
			resp.Topics = append(resp.Topics, t)
		}
		return resp, nil
	}
	for _, g := range req.Groups {
		resp.Groups = append(resp.Groups, offsetFetchGroup(r, g, req.RequireStable, req.Version >= 10))
	}
	return resp, nil
}

func offsetFetchGroup(r *request, g kmsg.OffsetFetchRequestGroup, requireStable, byID bool) kmsg.OffsetFetchResponseGroup {
	rg := kmsg.NewOffsetFetchResponseGroup()
	rg.Group = g.Group
	var topics []shard.TopicPartitions
	unknown := map[int]bool{}
	if g.Topics != nil {
		topics = []shard.TopicPartitions{}
		for i, t := range g.Topics {
			name := t.Topic
			if byID {
				n, ok := r.topicName(t.TopicID)
				if !ok {
					unknown[i] = true
					continue
				}
				name = n
			}
			topics = append(topics, shard.TopicPartitions{Topic: name, Partitions: t.Partitions})
		}
	}
	got, err := r.driver().OffsetFetch(r.ctx, shard.OffsetFetchRequest{GroupID: g.Group, MemberID: derefOr(g.MemberID),
		MemberEpoch: g.MemberEpoch, Topics: topics, RequireStable: requireStable})
	if err != nil {
		rg.ErrorCode, _ = errCode(err)
		return rg
	}
	// Group the rows by topic, in the order the coordinator returned them.
	index := map[string]int{}
	for _, o := range got {
		i, ok := index[o.Topic]
		if !ok {
			t := kmsg.NewOffsetFetchResponseGroupTopic()
			t.Topic = o.Topic
			if byID {
				t.TopicID = r.topicID(o.Topic)
				if t.TopicID == ([16]byte{}) {
					continue // a topic that no longer exists has no id to answer with
				}
			}
			i = len(rg.Topics)
			index[o.Topic] = i
			rg.Topics = append(rg.Topics, t)
		}
		p := kmsg.NewOffsetFetchResponseGroupTopicPartition()
		p.Partition, p.Offset, p.LeaderEpoch = o.Partition, o.Offset, o.LeaderEpoch
		p.ErrorCode, _ = errCode(o.Err)
		md := o.Metadata
		p.Metadata = &md
		rg.Topics[i].Partitions = append(rg.Topics[i].Partitions, p)
	}
	for i := range unknown {
		t := kmsg.NewOffsetFetchResponseGroupTopic()
		t.TopicID = g.Topics[i].TopicID
		for _, part := range g.Topics[i].Partitions {
			p := kmsg.NewOffsetFetchResponseGroupTopicPartition()
			p.Partition, p.Offset, p.LeaderEpoch, p.ErrorCode = part, -1, -1, fkerr.UnknownTopicID.Code
			t.Partitions = append(t.Partitions, p)
		}
		rg.Topics = append(rg.Topics, t)
	}
	return rg
}

// offsetFetchV1Error answers a v1 request that failed as a whole. v1 has no
// top-level error code, so the error goes on every requested partition with
// offset -1, leader epoch -1 and metadata "", as Kafka's
// OffsetFetchResponse.groupError does for versions below 2.
func offsetFetchV1Error(req *kmsg.OffsetFetchRequest, code int16) *kmsg.OffsetFetchResponse {
	resp := req.ResponseKind().(*kmsg.OffsetFetchResponse)
	empty := ""
	for _, rt := range req.Topics {
		t := kmsg.NewOffsetFetchResponseTopic()
		t.Topic = rt.Topic
		for _, part := range rt.Partitions {
			p := kmsg.NewOffsetFetchResponseTopicPartition()
			p.Partition, p.Offset, p.LeaderEpoch, p.Metadata, p.ErrorCode = part, -1, -1, &empty, code
			t.Partitions = append(t.Partitions, p)
		}
		resp.Topics = append(resp.Topics, t)
	}
	return resp
}
