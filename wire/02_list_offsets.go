package wire

import (
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ListOffsets: v1-11 (Kafka 4.x). Latest (-1) is the high watermark,
// earliest (-2, and -4 earliest-local) the log start offset, which
// retention (Config.RetentionBytes) advances, -3 the retained batch with
// the largest timestamp; a timestamp finds the first retained batch whose
// max timestamp is at or after it.

var apiListOffsets = api{key: 2, min: 1, max: 11, handle: handleListOffsets}

func handleListOffsets(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ListOffsetsRequest)
	resp := req.ResponseKind().(*kmsg.ListOffsetsResponse)
	for _, rt := range req.Topics {
		t, code := r.cl.resolveTopic(rt.Topic, [16]byte{}, false)
		st := kmsg.NewListOffsetsResponseTopic()
		st.Topic = rt.Topic
		for _, rp := range rt.Partitions {
			sp := kmsg.NewListOffsetsResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.Offset, sp.Timestamp, sp.LeaderEpoch = -1, -1, 0
			pcode := r.cl.partitionCode(r.b, t, code, rp.Partition)
			if pcode == 0 {
				sp.Offset, sp.Timestamp, pcode = r.cl.data.offsetFor(t.name, rp.Partition, rp.Timestamp)
			}
			sp.ErrorCode = pcode
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, nil
}
