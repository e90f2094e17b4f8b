package wire

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch: v4-18 (Kafka 4.x).
//
// Sessionless: every answer carries SessionID 0, which tells the client
// that no incremental fetch session was created (as a broker with
// max.incremental.fetch.session.cache.slots=0 answers), so each request
// names its partitions. A fetch that finds fewer than MinBytes waits up to
// MaxWaitMillis for an append (Kafka's DelayedFetch). v13+ names topics by
// id. Read committed equals read uncommitted: no transactions here.

var apiFetch = api{key: 1, min: 4, max: 18, handle: handleFetch}

func handleFetch(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.FetchRequest)
	wait := min(time.Duration(req.MaxWaitMillis)*time.Millisecond, r.cl.cfg.FetchWaitMax)
	deadline := time.Now().Add(wait)
	for {
		woken := r.cl.data.waitChan()
		resp, size := fetchOnce(r, req)
		remaining := time.Until(deadline)
		if size >= int(req.MinBytes) || remaining <= 0 {
			return resp, nil
		}
		if !r.wait(woken, remaining) {
			return resp, nil
		}
	}
}

// fetchOnce reads every requested partition once.
func fetchOnce(r *request, req *kmsg.FetchRequest) (*kmsg.FetchResponse, int) {
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	byID := req.Version >= 13
	budget := req.MaxBytes
	if budget <= 0 {
		budget = 1
	}
	size := 0
	for _, rt := range req.Topics {
		t, code := r.cl.resolveTopic(rt.Topic, rt.TopicID, byID)
		st := kmsg.NewFetchResponseTopic()
		st.Topic, st.TopicID = rt.Topic, rt.TopicID
		for _, rp := range rt.Partitions {
			sp := kmsg.NewFetchResponseTopicPartition()
			sp.Partition = rp.Partition
			sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = -1, -1, -1
			pcode := code
			if pcode == 0 {
				pcode = r.cl.partitionCode(r.b, t, rp.Partition)
			}
			if pcode != 0 {
				sp.ErrorCode = pcode
				st.Partitions = append(st.Partitions, sp)
				continue
			}
			limit := min(rp.PartitionMaxBytes, budget)
			if size > 0 && limit <= 0 {
				limit = 0
			}
			res := r.cl.data.fetch(t.name, rp.Partition, rp.FetchOffset, max(limit, 1))
			if size > 0 && int32(len(res.records)) > limit {
				res.records = nil // over the response budget: the next fetch gets it
			}
			sp.ErrorCode = res.code
			sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = res.hwm, res.hwm, res.logStart
			sp.RecordBatches = res.records
			size += len(res.records)
			budget -= int32(len(res.records))
			st.Partitions = append(st.Partitions, sp)
		}
		resp.Topics = append(resp.Topics, st)
	}
	return resp, size
}
