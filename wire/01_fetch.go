package wire

import (
	"time"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// Fetch: v4-18 (Kafka 4.x). v7+ keeps KIP-227's incremental fetch
// sessions (fetch_sessions.go). A fetch that finds fewer than MinBytes
// waits up to MaxWaitMillis for an append (Kafka's DelayedFetch), unless a
// partition answers an error, which answers at once (a topic deleted while
// the fetch waits wakes it). A partition's CurrentLeaderEpoch (v9+) other
// than the leader's is FENCED_LEADER_EPOCH (older) or UNKNOWN_LEADER_EPOCH
// (newer), as Partition.localLogWithEpochOrThrow answers it. v13+
// names topics by id. Every partition answers its last stable offset;
// read_committed (IsolationLevel 1) stops there and lists the aborted
// transactions of what it returns (txn_data.go), an empty list when none,
// null for read_uncommitted, as Kafka's FetchResponse does.

var apiFetch = api{key: 1, min: 4, max: 18, handle: handleFetch}

func handleFetch(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.FetchRequest)
	resp := req.ResponseKind().(*kmsg.FetchResponse)
	byID := req.Version >= 13
	parts := requestedParts(req, byID)
	var sess *fetchSession
	full := true
	if req.Version >= 7 {
		switch req.SessionEpoch {
		case fetchFinalEpoch:
			r.b.fetchSessions.remove(req.SessionID)
		case fetchInitialEpoch:
			r.b.fetchSessions.remove(req.SessionID)
			sess = r.b.fetchSessions.create(time.Now())
		default:
			var code int16
			if sess, code = r.b.fetchSessions.incremental(req.SessionID, req.SessionEpoch, time.Now()); code != 0 {
				resp.ErrorCode = code
				return resp, nil
			}
			full = false
		}
	}
	if sess != nil {
		sess.mu.Lock()
		defer sess.mu.Unlock()
		resp.SessionID = sess.id
		var forgotten []fetchKey
		if !full {
			forgotten = forgottenParts(req, byID)
		}
		parts = sess.update(parts, forgotten)
	}
	wait := min(time.Duration(req.MaxWaitMillis)*time.Millisecond, r.cl.cfg.FetchWaitMax)
	deadline := time.Now().Add(wait)
	var answers []kmsg.FetchResponseTopicPartition
	for {
		woken := r.cl.data.waitChan()
		var size int
		answers, size = fetchOnce(r, parts, req.MaxBytes, byID, req.IsolationLevel == 1)
		remaining := time.Until(deadline)
		if size >= int(req.MinBytes) || remaining <= 0 || anyFetchError(answers) || !r.wait(woken, remaining) {
			break
		}
	}
	// The answer, grouped by topic as Kafka's FetchResponse groups
	// consecutive partitions; an incremental one holds only the partitions
	// with something to say, a full one with a session records what it said.
	for i, p := range parts {
		if sess != nil && !sess.parts[i].mustRespond(&answers[i]) && !full {
			continue
		}
		n := len(resp.Topics)
		if n == 0 || resp.Topics[n-1].Topic != p.topic || resp.Topics[n-1].TopicID != p.id {
			st := kmsg.NewFetchResponseTopic()
			st.Topic, st.TopicID = p.topic, p.id
			resp.Topics = append(resp.Topics, st)
			n++
		}
		resp.Topics[n-1].Partitions = append(resp.Topics[n-1].Partitions, answers[i])
	}
	return resp, nil
}

// anyFetchError reports whether a partition answered an error: Kafka's
// ReplicaManager.fetchMessages then answers at once (errorReadingData), and
// a waiting DelayedFetch completes when a partition it reads goes away (a
// deleted topic).
func anyFetchError(answers []kmsg.FetchResponseTopicPartition) bool {
	for i := range answers {
		if answers[i].ErrorCode != 0 {
			return true
		}
	}
	return false
}

// requestedParts lists the partitions a request names, in its order.
func requestedParts(req *kmsg.FetchRequest, byID bool) []fetchPart {
	var out []fetchPart
	for _, rt := range req.Topics {
		k := topicFetchKey(byID, rt.Topic, rt.TopicID)
		for _, rp := range rt.Partitions {
			k.partition = rp.Partition
			out = append(out, fetchPart{fetchKey: k, offset: rp.FetchOffset, maxBytes: rp.PartitionMaxBytes, currentLeaderEpoch: rp.CurrentLeaderEpoch})
		}
	}
	return out
}

// topicFetchKey is the key of a topic a fetch names, before its partition:
// by id from v13 (byID), by name below, as the request names it.
func topicFetchKey(byID bool, name string, id [16]byte) fetchKey {
	if byID {
		return fetchKey{id: id}
	}
	return fetchKey{topic: name}
}

// forgottenParts lists the partitions an incremental request forgets.
func forgottenParts(req *kmsg.FetchRequest, byID bool) []fetchKey {
	var out []fetchKey
	for _, ft := range req.ForgottenTopics {
		k := topicFetchKey(byID, ft.Topic, ft.TopicID)
		for _, p := range ft.Partitions {
			k.partition = p
			out = append(out, k)
		}
	}
	return out
}

// fetchOnce reads every partition once, in order, within the response's
// byte budget, and returns each partition's answer and the bytes read.
func fetchOnce(r *request, parts []fetchPart, maxBytes int32, byID, readCommitted bool) ([]kmsg.FetchResponseTopicPartition, int) {
	budget := max(maxBytes, 1)
	size := 0
	out := make([]kmsg.FetchResponseTopicPartition, len(parts))
	for i, p := range parts {
		t, code := r.cl.resolveTopic(p.topic, p.id, byID)
		sp := &out[i]
		*sp = kmsg.NewFetchResponseTopicPartition()
		sp.Partition = p.partition
		sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = -1, -1, -1
		sp.RecordBatches = emptyRecords
		pcode := r.cl.partitionCode(r.b, t, code, p.partition)
		if pcode == 0 && p.currentLeaderEpoch >= 0 { // FetchRequest.optionalEpoch: negative is none
			pcode = leaderEpochCode(p.currentLeaderEpoch)
		}
		if pcode != 0 {
			sp.ErrorCode = pcode
			continue
		}
		limit := min(p.maxBytes, budget)
		if size > 0 && limit <= 0 {
			limit = 0
		}
		res := r.cl.data.fetchIsolated(t.name, p.partition, p.offset, max(limit, 1), readCommitted)
		if size > 0 && int32(len(res.records)) > limit {
			res.records, res.aborted = nil, nil // over the response budget: the next fetch gets it
		}
		sp.ErrorCode = res.code
		sp.HighWatermark, sp.LastStableOffset, sp.LogStartOffset = res.hwm, res.lso, res.logStart
		if readCommitted {
			sp.AbortedTransactions = abortedTransactions(res.aborted)
		}
		sp.RecordBatches = nonNullRecords(res.records)
		size += len(res.records)
		budget -= int32(len(res.records))
	}
	return out, size
}

// emptyRecords is an empty, non-null record set. Kafka answers every
// partition of a Fetch or ShareFetch, errors included, with records, an
// empty MemoryRecords when there is nothing (MemoryRecords.EMPTY), never
// null: librdkafka fails on a null one ("Protocol parse failure for Fetch
// v11"). kmsg encodes a nil slice as null, so answers use this instead.
var emptyRecords = []byte{}

// nonNullRecords is records, or emptyRecords when it is nil.
func nonNullRecords(records []byte) []byte {
	if records == nil {
		return emptyRecords
	}
	return records
}
