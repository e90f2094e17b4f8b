package brokerdiff_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// txnTopic is the one-partition topic of the transactions case; no other
// case writes to it.
const txnTopic = "txn-events"

// transactionalReads is what a transactional producer leaves in a log and
// what read_committed and read_uncommitted readers see (KIP-98): three
// records committed, two aborted, one in a transaction left open. Kafka
// writes the end markers after EndTxn answers, so the case waits until
// both sides' high watermark covers the open transaction's record, then
// compares the high watermark, the last stable offset (the open
// transaction's first offset), the aborted transactions a read_committed
// fetch lists, every batch (its offsets, whether it is transactional or a
// control batch, and its records' keys) and ListOffsets' latest offset at
// each isolation level, and the group offsets each transaction committed
// (the aborted one's dropped, the open one's pending: UNSTABLE_OFFSET_COMMIT
// to a fetch that requires stable offsets); then the open transaction
// aborts and the last stable offset reaches the high watermark.
func transactionalReads(s *session) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.side.seeds...), kgo.TransactionalID(txnID),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	require.NoError(s.t, err)
	defer cl.Close()
	// Each transaction also commits an offset of group txnGroup (its
	// records' end), as a consume-transform-produce loop does: the offset
	// is pending until the transaction's marker.
	txn := func(step string, end *kgo.TransactionEndTry, offset int64, keys ...string) {
		require.NoError(s.t, cl.BeginTransaction())
		for _, k := range keys {
			require.NoError(s.t, cl.ProduceSync(s.ctx, &kgo.Record{Topic: txnTopic, Partition: 0, Key: []byte(k), Value: []byte("v")}).FirstErr(),
				"%s: produce %s", s.side.name, k)
		}
		id, epoch, err := cl.ProducerID(s.ctx)
		require.NoError(s.t, err)
		add := kmsg.NewPtrAddOffsetsToTxnRequest()
		add.TransactionalID, add.ProducerID, add.ProducerEpoch, add.Group = txnID, id, epoch, txnGroup
		s.do(step+"-add-offsets", add)
		commit := kmsg.NewPtrTxnOffsetCommitRequest()
		commit.TransactionalID, commit.Group, commit.ProducerID, commit.ProducerEpoch, commit.Generation = txnID, txnGroup, id, epoch, -1
		ct := kmsg.NewTxnOffsetCommitRequestTopic()
		ct.Topic, ct.TopicID = txnTopic, s.topicID(txnTopic)
		cp := kmsg.NewTxnOffsetCommitRequestTopicPartition()
		cp.Partition, cp.Offset, cp.LeaderEpoch = 0, offset, -1
		ct.Partitions = append(ct.Partitions, cp)
		commit.Topics = append(commit.Topics, ct)
		s.do(step+"-commit-offset", commit)
		if end != nil {
			require.NoError(s.t, cl.EndTransaction(s.ctx, *end), "%s: end", s.side.name)
			// Kafka writes the marker after EndTxn answers: the next
			// transaction's records must come after it on both sides.
			hw := fetchLog(s, 0).HighWatermark
			for i := 0; hw < offset+1; i++ {
				require.Less(s.t, i, 50, "%s: the %s marker never came", s.side.name, step)
				time.Sleep(100 * time.Millisecond)
				hw = fetchLog(s, 0).HighWatermark
			}
		}
	}
	commit, abort := kgo.TryCommit, kgo.TryAbort
	txn("committed", &commit, 3, "c0", "c1", "c2")
	txn("aborted", &abort, 6, "a0", "a1")
	txn("open", nil, 8, "o0")
	offsets := func(step string, stable bool) {
		req := fetch(txnGroup, map[string][]int32{txnTopic: {0}})
		req.RequireStable = stable
		s.do(step, req)
	}
	// After the last abort, the group coordinator learns of the marker
	// after EndTxn answers too: read until the offset is stable.
	stableOffsets := func(step string) {
		req := fetch(txnGroup, map[string][]int32{txnTopic: {0}})
		req.RequireStable = true
		var resp kmsg.Response
		for range 50 {
			resp = s.send(step, req)
			if r := resp.(*kmsg.OffsetFetchResponse); len(r.Groups) == 1 && len(r.Groups[0].Topics) == 1 &&
				r.Groups[0].Topics[0].Partitions[0].ErrorCode == 0 {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		s.record(step, resp)
	}
	offsets("offsets-while-open", false)
	offsets("offsets-while-open-require-stable", true)

	readsUntil := func(step string, isolation int8, settled func(p kmsg.FetchResponseTopicPartition) bool) {
		var p kmsg.FetchResponseTopicPartition
		for range 50 {
			p = fetchLog(s, isolation)
			if settled(p) {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		s.record(step, fetchedLog(p))
	}
	hw8 := func(p kmsg.FetchResponseTopicPartition) bool { return p.HighWatermark >= 8 }
	readsUntil("read-committed", 1, hw8)
	readsUntil("read-uncommitted", 0, hw8)
	s.do("list-offsets-committed", listLatest(s, 1))
	s.do("list-offsets-uncommitted", listLatest(s, 0))

	require.NoError(s.t, cl.EndTransaction(s.ctx, kgo.TryAbort), "%s: abort the open one", s.side.name)
	readsUntil("read-committed-after-abort", 1, func(p kmsg.FetchResponseTopicPartition) bool { return p.LastStableOffset >= 9 })
	stableOffsets("offsets-after-abort-require-stable")
	s.do("deletegroups", deleteGroups(txnGroup))
}

const (
	txnID    = "bd-txn-reads"
	txnGroup = "bd-txn-reads-group"
)

// fetchLog reads txnTopic-0 from offset 0 at an isolation level.
func fetchLog(s *session, isolation int8) kmsg.FetchResponseTopicPartition {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID, req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.IsolationLevel = -1, 10, 1, 1<<20, isolation
	req.SessionEpoch = -1 // no fetch session
	rt := kmsg.NewFetchRequestTopic()
	rt.Topic, rt.TopicID = txnTopic, s.topicID(txnTopic)
	rp := kmsg.NewFetchRequestTopicPartition()
	rp.Partition, rp.FetchOffset, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch, rp.LogStartOffset = 0, 0, 1<<20, -1, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp := s.send("fetch", req).(*kmsg.FetchResponse)
	require.Len(s.t, resp.Topics, 1, "%s: fetch", s.side.name)
	require.Len(s.t, resp.Topics[0].Partitions, 1, "%s: fetch", s.side.name)
	return resp.Topics[0].Partitions[0]
}

// fetchedLog projects a fetched partition on what a reader relies on; the
// producer id differs between the two clusters and is left out.
func fetchedLog(p kmsg.FetchResponseTopicPartition) []string {
	lines := []string{fmt.Sprintf("error %d high-watermark %d last-stable %d log-start %d", p.ErrorCode, p.HighWatermark, p.LastStableOffset, p.LogStartOffset)}
	for _, a := range p.AbortedTransactions {
		lines = append(lines, fmt.Sprintf("aborted transaction from %d", a.FirstOffset))
	}
	for raw := p.RecordBatches; len(raw) >= 12; {
		size := 12 + int(binary.BigEndian.Uint32(raw[8:12]))
		if size > len(raw) {
			break // a partial batch at the end of the answer
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw[:size]); err != nil {
			return append(lines, "undecodable batch")
		}
		keys := batchRecords(raw[:size])
		lines = append(lines, fmt.Sprintf("batch %d-%d transactional=%t control=%t %v",
			b.FirstOffset, b.FirstOffset+int64(b.LastOffsetDelta), b.Attributes&0x10 != 0, b.Attributes&0x20 != 0, keysOf(keys, b.Attributes&0x20 != 0)))
		raw = raw[size:]
	}
	return lines
}

// keysOf keeps a batch's record lines, or none for a control batch (its
// one record is the marker, whose key encodes the commit or abort, shown by
// the batch line's neighbours).
func keysOf(records []string, control bool) []string {
	if control {
		return nil
	}
	return records
}

// listLatest is ListOffsets' latest offset of txnTopic-0 at an isolation
// level: the high watermark, or the last stable offset for read_committed.
func listLatest(s *session, isolation int8) *kmsg.ListOffsetsRequest {
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID, req.IsolationLevel = -1, isolation
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = txnTopic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = 0, -1, -1
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}
