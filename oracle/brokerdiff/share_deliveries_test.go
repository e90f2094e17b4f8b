package brokerdiff_test

import (
	"encoding/binary"
	"fmt"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// shareTopic is the one-partition topic of the share deliveries case; no
// other case touches it, so its records and share state are the case's.
const shareTopic = "deliveries"

// The acknowledgement types of KIP-932's ShareFetch and ShareAcknowledge.
const (
	ackAccept  int8 = 1
	ackRelease int8 = 2
	ackReject  int8 = 3
)

// shareDeliveries is what a share consumer observes (KIP-932): five
// records produced before the member joins, read from the earliest offset
// (share.auto.offset.reset), acquired at delivery count 1; two accepted,
// two released and one rejected; the released two delivered again at count
// 2 and accepted; the share-partition start offset past all five. Only the
// outcomes are compared: how many fetches it takes until the partition is
// assigned and its share state initialised is timing, on both sides.
func shareDeliveries(s *session) {
	g, m := "bd-share-fetch", "bd-sf-1"
	s.do("set-auto-offset-reset-earliest", alterGroupConfig(g, "share.auto.offset.reset", "earliest"))
	s.record("produce", produceFive(s))

	r := s.do("join", sgh(g, m, 0, []string{shareTopic})).(*kmsg.ShareGroupHeartbeatResponse)
	epoch := r.MemberEpoch
	assigned := func(r *kmsg.ShareGroupHeartbeatResponse) bool {
		return r.Assignment != nil && len(r.Assignment.TopicPartitions) == 1 && len(r.Assignment.TopicPartitions[0].Partitions) == 1
	}
	for i := 0; !assigned(r); i++ {
		require.Less(s.t, i, 50, "%s: the member never got %s-0", s.side.name, shareTopic)
		time.Sleep(200 * time.Millisecond)
		r = s.send("heartbeat", sgh(g, m, epoch, nil)).(*kmsg.ShareGroupHeartbeatResponse)
		require.Zero(s.t, r.ErrorCode, "%s: heartbeat", s.side.name)
		epoch = r.MemberEpoch
	}
	s.record("assigned", []string{fmt.Sprintf("partitions %v", r.Assignment.TopicPartitions[0].Partitions)})

	session := int32(0)
	// A fetch may find nothing acquirable yet (Kafka initialises the
	// share state after the assignment, asynchronously): fetch again, a
	// few seconds at most, and record the first answer that acquires
	// records, or the last one.
	fetchUntilRecords := func(step string) {
		var lines []string
		for range 20 {
			resp := s.send(step, shareFetch(s, g, m, session, nil)).(*kmsg.ShareFetchResponse)
			session++
			var ok bool
			if lines, ok = acquired(resp); ok {
				break
			}
		}
		s.record(step, lines)
	}
	fetchUntilRecords("fetch")
	s.record("acknowledge", shareAckLines(s.send("acknowledge", shareAcknowledge(s, g, m, session,
		ackBatch(0, 1, ackAccept), ackBatch(2, 3, ackRelease), ackBatch(4, 4, ackReject)))))
	session++
	fetchUntilRecords("fetch-redelivered")
	s.record("acknowledge-redelivered", shareAckLines(s.send("acknowledge-redelivered",
		shareAcknowledge(s, g, m, session, ackBatch(2, 3, ackAccept)))))
	session++

	describe := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
	dg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
	dg.GroupID = g
	dt := kmsg.NewDescribeShareGroupOffsetsRequestGroupTopic()
	dt.Topic, dt.Partitions = shareTopic, []int32{0}
	dg.Topics = append(dg.Topics, dt)
	describe.Groups = append(describe.Groups, dg)
	// Kafka writes the share state to its share coordinator after the
	// acknowledgement is answered: read until the start offset passes the
	// five records, a few seconds at most, and compare what is read then.
	var r2 kmsg.Response
	for range 20 {
		r2 = s.send("describe-offsets", describe)
		if d := r2.(*kmsg.DescribeShareGroupOffsetsResponse); len(d.Groups) == 1 && len(d.Groups[0].Topics) == 1 &&
			len(d.Groups[0].Topics[0].Partitions) == 1 && d.Groups[0].Topics[0].Partitions[0].StartOffset >= 5 {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.record("describe-offsets", r2)
	s.do("leave", sgh(g, m, -1, nil))
}

// produceFive writes records k0=v0 .. k4=v4 to shareTopic-0 uncompressed, so
// a fetch returns them as written, and reports their offsets.
func produceFive(s *session) []string {
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.side.seeds...), kgo.ProducerBatchCompression(kgo.NoCompression()),
		kgo.RecordPartitioner(kgo.ManualPartitioner()), kgo.ProducerLinger(time.Second))
	require.NoError(s.t, err)
	defer cl.Close()
	var records []*kgo.Record
	for i := range 5 {
		records = append(records, &kgo.Record{Topic: shareTopic, Partition: 0,
			Key: []byte(fmt.Sprintf("k%d", i)), Value: []byte(fmt.Sprintf("v%d", i))})
	}
	results := cl.ProduceSync(s.ctx, records...)
	require.NoError(s.t, results.FirstErr(), "%s: produce", s.side.name)
	var lines []string
	for _, r := range results {
		lines = append(lines, fmt.Sprintf("%s offset %d", r.Record.Key, r.Record.Offset))
	}
	return lines
}

func alterGroupConfig(group, key, value string) *kmsg.IncrementalAlterConfigsRequest {
	req := kmsg.NewPtrIncrementalAlterConfigsRequest()
	rr := kmsg.NewIncrementalAlterConfigsRequestResource()
	rr.ResourceType, rr.ResourceName = kmsg.ConfigResourceTypeGroupConfig, group
	rc := kmsg.NewIncrementalAlterConfigsRequestResourceConfig()
	rc.Name, rc.Value = key, kmsg.StringPtr(value)
	rr.Configs = append(rr.Configs, rc)
	req.Resources = append(req.Resources, rr)
	return req
}

func shareFetch(s *session, group, member string, session int32, acks []kmsg.ShareFetchRequestTopicPartitionAcknowledgementBatch) *kmsg.ShareFetchRequest {
	req := kmsg.NewPtrShareFetchRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch = kmsg.StringPtr(group), kmsg.StringPtr(member), session
	req.MaxWaitMillis, req.MinBytes, req.MaxBytes, req.MaxRecords, req.BatchSize = 500, 1, 1<<20, 500, 500
	if session == 0 {
		rt := kmsg.NewShareFetchRequestTopic()
		rt.TopicID = s.topicID(shareTopic)
		rp := kmsg.NewShareFetchRequestTopicPartition()
		rp.Partition, rp.PartitionMaxBytes, rp.AcknowledgementBatches = 0, 1<<20, acks
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
	}
	return req
}

func ackBatch(first, last int64, typ int8) kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch {
	b := kmsg.NewShareAcknowledgeRequestTopicPartitionAcknowledgementBatch()
	b.FirstOffset, b.LastOffset, b.AcknowledgeTypes = first, last, []int8{typ}
	return b
}

func shareAcknowledge(s *session, group, member string, session int32, batches ...kmsg.ShareAcknowledgeRequestTopicPartitionAcknowledgementBatch) *kmsg.ShareAcknowledgeRequest {
	req := kmsg.NewPtrShareAcknowledgeRequest()
	req.GroupID, req.MemberID, req.ShareSessionEpoch = kmsg.StringPtr(group), kmsg.StringPtr(member), session
	rt := kmsg.NewShareAcknowledgeRequestTopic()
	rt.TopicID = s.topicID(shareTopic)
	rp := kmsg.NewShareAcknowledgeRequestTopicPartition()
	rp.Partition, rp.AcknowledgementBatches = 0, batches
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// acquired projects a ShareFetch answer on what the consumer gets: the
// error codes, the acquired ranges with their delivery counts and the
// records' offsets, keys and values. ok is false while nothing is
// acquired yet.
func acquired(resp *kmsg.ShareFetchResponse) (lines []string, ok bool) {
	lines = append(lines, fmt.Sprintf("error %d", resp.ErrorCode))
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			lines = append(lines, fmt.Sprintf("partition %d error %d acknowledge-error %d", p.Partition, p.ErrorCode, p.AcknowledgeErrorCode))
			for _, a := range p.AcquiredRecords {
				ok = true
				lines = append(lines, fmt.Sprintf("acquired %d-%d delivery %d", a.FirstOffset, a.LastOffset, a.DeliveryCount))
			}
			lines = append(lines, batchRecords(p.Records)...)
		}
	}
	return lines, ok
}

// batchRecords decodes uncompressed v2 record batches into one line per
// record.
func batchRecords(raw []byte) []string {
	var lines []string
	for len(raw) >= 12 {
		size := 12 + int(binary.BigEndian.Uint32(raw[8:12]))
		if size > len(raw) {
			return append(lines, "truncated batch")
		}
		var b kmsg.RecordBatch
		if err := b.ReadFrom(raw[:size]); err != nil || b.Attributes&7 != 0 {
			return append(lines, "undecodable batch")
		}
		recs := b.Records
		for range b.NumRecords {
			l, n := binary.Varint(recs)
			if n <= 0 || n+int(l) > len(recs) {
				return append(lines, "undecodable record")
			}
			var r kmsg.Record
			if err := r.ReadFrom(recs[:n+int(l)]); err != nil {
				return append(lines, "undecodable record")
			}
			lines = append(lines, fmt.Sprintf("record %d %s=%s", b.FirstOffset+int64(r.OffsetDelta), r.Key, r.Value))
			recs = recs[n+int(l):]
		}
		raw = raw[size:]
	}
	return lines
}

// shareAckLines projects a ShareAcknowledge answer on its error codes.
func shareAckLines(r kmsg.Response) []string {
	resp := r.(*kmsg.ShareAcknowledgeResponse)
	lines := []string{fmt.Sprintf("error %d", resp.ErrorCode)}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			lines = append(lines, fmt.Sprintf("partition %d error %d", p.Partition, p.ErrorCode))
		}
	}
	return lines
}
