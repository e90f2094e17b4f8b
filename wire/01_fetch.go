package wire

import (
	"time"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch: v4-18 (Kafka 4.x).
//
// Sessionless (KIP-227's incremental fetch sessions are not kept): the
// endpoint behaves as a broker whose session cache has no slot
// (max.incremental.fetch.session.cache.slots=0), following Kafka's
// FetchManager.newContext. A full request (session epoch 0, or -1) is
// served whatever session id it names, and every answer carries SessionID
// 0, which tells the client that no session was created, so it keeps
// naming its partitions. An incremental request (any other epoch) names a
// session that cannot exist: FETCH_SESSION_ID_NOT_FOUND, top-level, with
// no partitions and SessionID 0, at once; the client falls back to a full
// request. A fetch that finds fewer than MinBytes waits up to
// MaxWaitMillis for an append (Kafka's DelayedFetch). v13+ names topics by
// id. Read committed equals read uncommitted: no transactions here.

var apiFetch = api{key: 1, min: 4, max: 18, handle: handleFetch}

func handleFetch(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.FetchRequest)
	if req.Version >= 7 && req.SessionEpoch != fetchInitialEpoch && req.SessionEpoch != fetchFinalEpoch {
		resp := req.ResponseKind().(*kmsg.FetchResponse)
		resp.ErrorCode = fkerr.FetchSessionIDNotFound.Code
		return resp, nil
	}
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

// KIP-227's session epochs (FetchMetadata.INITIAL_EPOCH, FINAL_EPOCH):
// both mark a full request.
const (
	fetchInitialEpoch = 0
	fetchFinalEpoch   = -1
)

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
			pcode := r.cl.partitionCode(r.b, t, code, rp.Partition)
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
