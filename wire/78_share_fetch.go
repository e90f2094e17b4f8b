package wire

import (
	"slices"
	"time"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// ShareFetch: v1-2 (KIP-932, Kafka 4.x; v0 was the early-access version).
// The share session, the piggy-backed acknowledgements and the acquisition
// are sharebroker's (SharePartitionManager); this translates topic ids,
// checks leadership, and answers the bytes of the data-plane batches that
// hold the acquired offsets. A fetch that acquires nothing waits, as
// Kafka's DelayedShareFetch does, until records are appended, a lock
// expires, or MaxWaitMillis (capped by Config.FetchWaitMax) passes, then
// tries once more; the extra attempt advances the session epoch in
// sharebroker, which the endpoint accounts for (sharePlane.shift).
// MaxRecords bounds the whole request (rotatePartitions sets the order)
// and BatchSize splits new records into AcquiredRecords entries
// (share.Fetch.BatchSize);
// AcquisitionLockTimeoutMs is the group's lock duration; acknowledgement
// batches are checked first (validateAckBatches). Not served:
// ShareAcquireMode record_limit (read as its default), IsRenewAck beyond
// that check (it only allows type 4). The share session's partitions are
// kept here (sharePlane.parts): an incremental request names the partitions
// it adds and those it acknowledges, forgets others (ForgottenTopicsData),
// and fetches every partition of the session, as Kafka's; sharebroker is
// handed the whole list.

var apiShareFetch = api{key: 78, min: 1, max: 2, handle: handleShareFetch}

func handleShareFetch(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.ShareFetchRequest)
	resp := req.ResponseKind().(*kmsg.ShareFetchResponse)
	key, lockTimeoutMs, code := r.shareSession(req.GroupID, req.MemberID)
	resp.ErrorCode, resp.AcquisitionLockTimeoutMillis = code, lockTimeoutMs // 0 with an error
	if code != 0 {
		return resp, nil
	}

	// Translate partitions and acks; answer what cannot go to sharebroker.
	out := newSharePartitions(r)
	// MaxRecords bounds the whole request (ShareFetchUtils.processFetchResponse).
	maxRecords := max(req.MaxRecords, 0)
	freq := sharebroker.FetchRequest{GroupID: key.group, MemberID: key.brokerMember(), MaxRecords: maxRecords, RequestMaxRecords: maxRecords,
		BatchSize: min(max(req.BatchSize, 0), share.MaxBatchSize)}
	in := make([]sharePartitionIn, 0, len(req.Topics))
	hasAcks := false
	for _, rt := range req.Topics {
		for _, rp := range rt.Partitions {
			in = append(in, newSharePartitionIn(rt.TopicID, rp.Partition, rp.AcknowledgementBatches, req.Version, req.IsRenewAck))
			hasAcks = hasAcks || len(rp.AcknowledgementBatches) > 0
		}
	}
	if req.ShareSessionEpoch == sharebroker.InitialEpoch && hasAcks {
		// SharePartitionManager.newContext is told whether the request
		// carries acknowledgements at all, before any is looked at.
		resp.ErrorCode = fkerr.InvalidRequest.Code
		return resp, nil
	}
	tps, acks := translateShare(r, out, in, func(p sharePartitionIn, code, pcode int16) {
		out.fail(p.topicID, p.partition, pcode)
		// KafkaApis.getAcknowledgeBatchesFromShareFetchRequest: when the
		// request acknowledges anything, every partition of an unknown topic
		// id fails its acknowledgement too; otherwise a partition whose
		// acknowledgements cannot apply here fails them as ShareAcknowledge
		// would (ackCodeFor).
		switch {
		case code != 0 && hasAcks:
			out.failAck(p.topicID, p.partition, code)
		case code == 0 && p.acked:
			out.failAck(p.topicID, p.partition, ackCodeFor(pcode))
		}
	}, func(p sharePartitionIn) bool {
		// The acknowledgements fail; the partition is still fetched.
		out.failAck(p.topicID, p.partition, fkerr.InvalidRequest.Code)
		return false
	})
	freq.Acks = acks
	var forgotten []sharebroker.TopicPartition
	for _, ft := range req.ForgottenTopicsData {
		if t, code := r.cl.resolveTopic("", ft.TopicID, true); code == 0 {
			for _, p := range ft.Partitions {
				forgotten = append(forgotten, sharebroker.TopicPartition{Topic: t.name, Partition: p})
			}
		}
	}
	var session []sharebroker.TopicPartition
	wait := min(time.Duration(req.MaxWaitMillis)*time.Millisecond, r.cl.cfg.FetchWaitMax)
	deadline := time.Now().Add(wait)
	epoch := req.ShareSessionEpoch
	for attempt := 0; ; attempt++ {
		woken := r.cl.data.waitChan()
		var fresp sharebroker.FetchResponse
		var err error
		var lockDeadline int64
		var hasLock bool
		r.cl.share.with(func(b *sharebroker.Broker, nowMs int64) {
			sp := r.cl.share
			if attempt == 0 && epoch == 0 {
				sp.shifts[key] = 0
			}
			if attempt > 0 {
				sp.shifts[key]++
			}
			if attempt == 0 && epoch != sharebroker.FinalEpoch {
				// An incremental fetch names only what it adds: it fetches
				// every partition of the session (Kafka's cachedPartitions),
				// rotated as DelayedShareFetch rotates them.
				session = sp.sessionPartitions(key, epoch, tps, forgotten)
				freq.Partitions = rotatePartitions(session, epoch)
			}
			freq.SessionEpoch = sp.shift(key, epoch)
			fresp, err = b.ShareFetch(nowMs, freq)
			switch {
			case err != nil && attempt > 0:
				sp.shifts[key]-- // the extra attempt changed nothing
			case err != nil && epoch == 0, err == nil && epoch == sharebroker.FinalEpoch:
				delete(sp.shifts, key)
				delete(sp.parts, key)
			case err == nil && attempt == 0:
				sp.parts[key] = session
			}
			lockDeadline, hasLock = b.NextDeadline()
		})
		if err != nil {
			if attempt > 0 {
				break // answer the empty first attempt
			}
			resp.ErrorCode, resp.ErrorMessage = errCode(err)
			return resp, nil
		}
		if attempt == 0 && epoch == 0 {
			r.conn.openShareSession(key)
		} else if epoch == sharebroker.FinalEpoch {
			r.conn.closeShareSession(key)
		}
		out.add(fresp)
		// Applied once. The extra attempt follows only an attempt that
		// acquired nothing, so the whole RequestMaxRecords is still left.
		freq.Acks = nil
		remaining := time.Until(deadline)
		if out.acquired > 0 || epoch == sharebroker.FinalEpoch || len(freq.Partitions) == 0 || remaining <= 0 {
			break
		}
		if hasLock {
			remaining = min(remaining, time.Until(time.UnixMilli(lockDeadline))+time.Millisecond)
		}
		if !r.wait(woken, remaining) {
			break
		}
	}
	resp.Topics = out.fetchTopics()
	resp.NodeEndpoints = shareNodeEndpoints[kmsg.ShareFetchResponseNodeEndpoint](out)
	return resp, nil
}

// rotatePartitions is Kafka's PartitionRotateStrategy.rotateRoundRobin,
// which DelayedShareFetch applies before acquiring: with MaxRecords bounding
// the whole request, the partition served first takes the budget, so the
// order starts at index epoch % len(tps) and no partition is starved. The
// client's epoch counts (not the one shifted for extra attempts), and
// epochs below 1 (initial, final) keep the request's order.
func rotatePartitions(tps []sharebroker.TopicPartition, epoch int32) []sharebroker.TopicPartition {
	if len(tps) < 2 || epoch < 1 {
		return tps
	}
	at := int(epoch) % len(tps)
	return append(slices.Clone(tps[at:]), tps[:at]...)
}

// ackCodeFor is the acknowledgement error of a partition the broker cannot
// acknowledge on: one it does not lead has no share-partition in its cache,
// which Kafka's SharePartitionManager.acknowledge answers with
// UNKNOWN_TOPIC_OR_PARTITION (only a fetch names the leader); any other
// code stands.
func ackCodeFor(code int16) int16 {
	if code == fkerr.NotLeaderForPartition.Code {
		return fkerr.UnknownTopicOrPartition.Code
	}
	return code
}

// wireAckBatch is an acknowledgement batch as ShareFetch and
// ShareAcknowledge both carry it (kmsg has one named type for each).
type wireAckBatch = struct {
	FirstOffset      int64
	LastOffset       int64
	AcknowledgeTypes []int8
	UnknownTags      kmsg.Tags
}

// wireAckBatches converts a partition's acknowledgement batches, of either
// request, after validateAckBatches: ok false means the partition's
// acknowledgements are refused as a whole (INVALID_REQUEST) and none is
// applied.
func wireAckBatches[B ~wireAckBatch](batches []B, version int16, isRenewAck bool) (out []share.AckBatch, ok bool) {
	ws := make([]wireAckBatch, len(batches))
	for i, b := range batches {
		ws[i] = wireAckBatch(b)
	}
	if !validateAckBatches(ws, version, isRenewAck) {
		return nil, false
	}
	for _, w := range ws {
		out = append(out, ackBatches(w.FirstOffset, w.LastOffset, w.AcknowledgeTypes)...)
	}
	return out, true
}

// renewAckVersion is the first ShareFetch and ShareAcknowledge version
// with acknowledge type 4, RENEW, and IsRenewAck (KIP-1222).
const renewAckVersion = 2

// validateAckBatches is Kafka's KafkaApis.validateAcknowledgementBatches
// for one partition's batches, in its order: a batch is refused when its
// first offset is past its last, when it starts below the last offset of
// the batch before it (a batch may start at that offset: Kafka compares
// with <), when it has no type, when it has more than one type but not
// one per offset, or when a type is outside 0-3 (0-4 from v2, where 4,
// RENEW, also needs the request's IsRenewAck).
func validateAckBatches(batches []wireAckBatch, version int16, isRenewAck bool) bool {
	maxType := int8(share.AckReject)
	if version >= renewAckVersion {
		maxType = int8(share.AckRenew)
	}
	prevEnd := int64(-1)
	for _, b := range batches {
		n := int64(len(b.AcknowledgeTypes))
		switch {
		case b.FirstOffset > b.LastOffset, b.FirstOffset < prevEnd, n == 0,
			n > 1 && b.LastOffset-b.FirstOffset != n-1:
			return false
		}
		for _, t := range b.AcknowledgeTypes {
			if t < 0 || t > maxType || t == int8(share.AckRenew) && !isRenewAck {
				return false
			}
		}
		prevEnd = b.LastOffset
	}
	return true
}

// ackBatches converts one validated wire acknowledgement batch: a single
// type for the whole range, or one type per offset (runs of equal types
// merged).
func ackBatches(first, last int64, types []int8) []share.AckBatch {
	if len(types) == 1 {
		return []share.AckBatch{{FirstOffset: first, LastOffset: last, Type: share.AcknowledgeType(types[0])}}
	}
	var out []share.AckBatch
	for i, t := range types {
		o := first + int64(i)
		if n := len(out); n > 0 && out[n-1].Type == share.AcknowledgeType(t) && out[n-1].LastOffset == o-1 {
			out[n-1].LastOffset = o
			continue
		}
		out = append(out, share.AckBatch{FirstOffset: o, LastOffset: o, Type: share.AcknowledgeType(t)})
	}
	return out
}
