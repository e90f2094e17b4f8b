package wire_test

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/txn"
	"github.com/coordsim/coordsim/wire"
)

// Data-plane answers as Kafka's request tests expect them: ListOffsets'
// version gate and special timestamps (ListOffsetsRequestTest), leader
// epoch checks (testCurrentEpochValidation of ListOffsetsRequestTest and
// FetchRequestTest), ApiVersions features (ApiVersionsRequestTest),
// Produce's record validation (DefaultRecordBatchTest, LogValidator,
// ProduceRequestTest) and acks.

// rawBatch encodes a v2 batch whose records carry the given timestamps,
// compressed with codec (nil: none), its length and CRC as a producer
// computes them.
func rawBatch(t *testing.T, timestamps []int64, codec kgo.Compressor) []byte {
	t.Helper()
	b := kmsg.RecordBatch{Magic: 2, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: int32(len(timestamps)), LastOffsetDelta: int32(len(timestamps) - 1)}
	b.FirstTimestamp, b.MaxTimestamp = timestamps[0], timestamps[0]
	var records []byte
	for i, ts := range timestamps {
		b.MaxTimestamp = max(b.MaxTimestamp, ts)
		records = appendRawRecord(records, int32(i), ts-timestamps[0], []byte{byte(i)})
	}
	b.Records = records
	if codec != nil {
		out, used := codec.Compress(new(bytes.Buffer), records)
		b.Records, b.Attributes = bytes.Clone(out), int16(used)
	}
	return sealBatch(b.AppendTo(nil))
}

// appendRawRecord appends one v2 record with its length, as
// DefaultRecord.writeTo writes it.
func appendRawRecord(dst []byte, offsetDelta int32, timestampDelta int64, value []byte) []byte {
	r := kmsg.Record{TimestampDelta64: timestampDelta, OffsetDelta: offsetDelta, Value: value}
	r.Length = int32(len(r.AppendTo(nil)) - 1) // what follows a one-byte length
	return r.AppendTo(dst)
}

// sealBatch sets a batch's length and CRC-32C over its bytes.
func sealBatch(raw []byte) []byte {
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32.Checksum(raw[21:], crc32.MakeTable(crc32.Castagnoli)))
	return raw
}

// produceRaw sends one batch to topic-partition p at version v with acks
// and returns the partition's answer.
func produceRaw(t *testing.T, c net.Conn, v, acks int16, topic string, p int32, records []byte) kmsg.ProduceResponseTopicPartition {
	t.Helper()
	resp := roundTrip(t, c, produceRequest(v, acks, topic, p, records)).(*kmsg.ProduceResponse)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	return resp.Topics[0].Partitions[0]
}

func produceRequest(v, acks int16, topic string, p int32, records []byte) *kmsg.ProduceRequest {
	req := kmsg.NewPtrProduceRequest()
	req.Version, req.Acks, req.TimeoutMillis = v, acks, 3000
	rt := kmsg.NewProduceRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewProduceRequestTopicPartition()
	rp.Partition, rp.Records = p, records
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	return req
}

// listOffsets asks one partition at version v for timestamp ts with
// currentLeaderEpoch and returns its row.
func listOffsets(t *testing.T, c net.Conn, v int16, topic string, p int32, ts int64, currentLeaderEpoch int32) kmsg.ListOffsetsResponseTopicPartition {
	t.Helper()
	req := kmsg.NewPtrListOffsetsRequest()
	req.Version, req.ReplicaID = v, -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = topic
	rp := kmsg.NewListOffsetsRequestTopicPartition()
	rp.Partition, rp.Timestamp, rp.CurrentLeaderEpoch = p, ts, currentLeaderEpoch
	rt.Partitions = append(rt.Partitions, rp)
	req.Topics = append(req.Topics, rt)
	resp := roundTrip(t, c, req).(*kmsg.ListOffsetsResponse)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1)
	return resp.Topics[0].Partitions[0]
}

// oneTopic starts a one-broker cluster with topic "topic" of one partition
// and returns a raw connection to it.
func oneTopic(t *testing.T, brokers int) (*wire.Cluster, net.Conn) {
	t.Helper()
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = brokers })
	createTopic(t, testContext(t), newAdmin(t, cl), "topic", 1)
	return cl, dial(t, cl.Addrs()[0])
}

// TestResponseDefaultOffsetAndLeaderEpochForAllVersions is
// ListOffsetsRequestTest's case of that name over trunk's version gate
// (ReplicaManager.isListOffsetsTimestampUnsupported): ten records, the
// last with the largest timestamp, asked at every version; a special
// timestamp newer than the version, and a negative one that is none, is
// UNSUPPORTED_VERSION with offset, timestamp and leader epoch -1; the
// leader epoch is 0 from v4 (-1 before, where the field does not exist);
// latest-tiered and earliest-pending-upload answer -1, -1, epoch -1
// without tiered storage (UnifiedLog.fetchOffsetByTimestamp).
func TestResponseDefaultOffsetAndLeaderEpochForAllVersions(t *testing.T) {
	t.Parallel()
	_, c := oneTopic(t, 1)
	const now = int64(1_700_000_000_000)
	var first []int64
	for i := range 9 {
		first = append(first, now+int64(i))
	}
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, first, nil)).ErrorCode)
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{now + 10}, nil)).ErrorCode)

	type answer struct {
		offset int64
		epoch  int32
		code   int16
	}
	unsupported := answer{-1, -1, fkerr.UnsupportedVersion.Code}
	for v := int16(1); v <= 11; v++ {
		epoch := int32(-1)
		if v >= 4 {
			epoch = 0
		}
		ask := func(ts int64) answer {
			row := listOffsets(t, c, v, "topic", 0, ts, -1)
			if row.ErrorCode != 0 || ts == -5 || ts == -6 {
				assert.Equal(t, int64(-1), row.Timestamp, "v%d ts %d: timestamp", v, ts)
			}
			return answer{row.Offset, row.LeaderEpoch, row.ErrorCode}
		}
		assert.Equal(t, answer{0, epoch, 0}, ask(0), "v%d timestamp 0", v)
		assert.Equal(t, answer{0, epoch, 0}, ask(-2), "v%d earliest", v)
		assert.Equal(t, answer{10, epoch, 0}, ask(-1), "v%d latest", v)
		if v >= 7 {
			assert.Equal(t, answer{9, 0, 0}, ask(-3), "v%d max timestamp", v)
		} else {
			assert.Equal(t, unsupported, ask(-3), "v%d max timestamp", v)
		}
		if v >= 8 {
			assert.Equal(t, answer{0, 0, 0}, ask(-4), "v%d earliest local", v)
		} else {
			assert.Equal(t, unsupported, ask(-4), "v%d earliest local", v)
		}
		if v >= 9 {
			assert.Equal(t, answer{-1, -1, 0}, ask(-5), "v%d latest tiered", v)
		} else {
			assert.Equal(t, unsupported, ask(-5), "v%d latest tiered", v)
		}
		if v >= 11 {
			assert.Equal(t, answer{-1, -1, 0}, ask(-6), "v%d earliest pending upload", v)
		} else {
			assert.Equal(t, unsupported, ask(-6), "v%d earliest pending upload", v)
		}
		assert.Equal(t, unsupported, ask(-7), "v%d a negative timestamp that is none", v)
	}
	// Refused rows changed nothing: the log still ends at 10.
	assert.Equal(t, int64(10), listOffsets(t, c, 11, "topic", 0, -1, -1).Offset)
}

// TestListOffsetsMaxTimeStampOldestVersion is ListOffsetsRequestTest's case
// of that name seen from the broker: max-timestamp needs v7 (v6 is
// UNSUPPORTED_VERSION), and the answer is the record with the largest
// timestamp, not its batch's last offset (RecordBatch.offsetOfMaxTimestamp,
// the first record carrying the batch's max timestamp), in compressed
// batches too.
func TestListOffsetsMaxTimeStampOldestVersion(t *testing.T) {
	t.Parallel()
	_, c := oneTopic(t, 1)
	row := listOffsets(t, c, 7, "topic", 0, -3, -1)
	assert.Equal(t, [3]int64{-1, -1, -1}, [3]int64{row.Offset, row.Timestamp, int64(row.LeaderEpoch)}, "an empty log has no max timestamp")
	assert.Zero(t, row.ErrorCode)

	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{3000, 1000, 2000}, nil)).ErrorCode)
	row = listOffsets(t, c, 6, "topic", 0, -3, -1)
	assert.Equal(t, fkerr.UnsupportedVersion.Code, row.ErrorCode, "v6")
	row = listOffsets(t, c, 7, "topic", 0, -3, -1)
	assert.Zero(t, row.ErrorCode)
	assert.Equal(t, int64(0), row.Offset, "the first record holds the max timestamp")
	assert.Equal(t, int64(3000), row.Timestamp)
	assert.Equal(t, int32(0), row.LeaderEpoch)

	zstd, err := kgo.DefaultCompressor(kgo.ZstdCompression())
	require.NoError(t, err)
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{4000, 5000, 4500}, zstd)).ErrorCode)
	row = listOffsets(t, c, 11, "topic", 0, -3, -1)
	assert.Equal(t, int64(4), row.Offset, "the compressed batch's second record, offset 3+1")
	assert.Equal(t, int64(5000), row.Timestamp)
}

// TestFetchOffsetByTimestampIncludesLeaderEpoch is UnifiedLogTest's case of
// that name over the wire: a timestamp finds the first record at or after
// it, inside its batch (LogSegment.findOffsetByTimestamp), with that
// record's timestamp and the leader epoch; past the last timestamp nothing
// is found: -1, -1, epoch -1.
func TestFetchOffsetByTimestampIncludesLeaderEpoch(t *testing.T) {
	t.Parallel()
	_, c := oneTopic(t, 1)
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{1000, 2000, 3000}, nil)).ErrorCode)
	gzip, err := kgo.DefaultCompressor(kgo.GzipCompression())
	require.NoError(t, err)
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{4000, 5000}, gzip)).ErrorCode)
	for _, tc := range []struct {
		ts, offset, timestamp int64
		epoch                 int32
	}{
		{0, 0, 1000, 0},
		{1500, 1, 2000, 0},
		{3000, 2, 3000, 0},
		{4001, 4, 5000, 0},
		{5001, -1, -1, -1},
	} {
		row := listOffsets(t, c, 11, "topic", 0, tc.ts, 0)
		assert.Zero(t, row.ErrorCode)
		assert.Equal(t, [3]int64{tc.offset, tc.timestamp, int64(tc.epoch)}, [3]int64{row.Offset, row.Timestamp, int64(row.LeaderEpoch)}, "timestamp %d", tc.ts)
	}
}

// TestListOffsetsCurrentEpochValidation is ListOffsetsRequestTest's
// testCurrentEpochValidation with coordsim's fixed leader epoch 0: no
// epoch (-1) or the leader's is answered; an older one is
// FENCED_LEADER_EPOCH, a newer one UNKNOWN_LEADER_EPOCH
// (Partition.checkCurrentLeaderEpoch), with offset, timestamp and leader
// epoch -1; a broker that does not host the partition is
// NOT_LEADER_OR_FOLLOWER whatever the epoch (the test's non-replica). A
// partition named twice is answered once, INVALID_REQUEST
// (ReplicaManager.fetchOffset's statusByPartition is keyed by partition).
func TestListOffsetsCurrentEpochValidation(t *testing.T) {
	t.Parallel()
	cl, c := oneTopic(t, 2)
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{1000}, nil)).ErrorCode)
	for _, tc := range []struct {
		epoch int32
		code  int16
	}{
		{-1, 0},
		{0, 0},
		{-2, fkerr.FencedLeaderEpoch.Code},
		{1, fkerr.UnknownLeaderEpoch.Code},
	} {
		row := listOffsets(t, c, 11, "topic", 0, -2, tc.epoch)
		assert.Equal(t, tc.code, row.ErrorCode, "epoch %d", tc.epoch)
		if tc.code != 0 {
			assert.Equal(t, [3]int64{-1, -1, -1}, [3]int64{row.Offset, row.Timestamp, int64(row.LeaderEpoch)}, "epoch %d", tc.epoch)
		}
	}
	other := dial(t, cl.Addrs()[1])
	for _, epoch := range []int32{-1, 0, 1} {
		row := listOffsets(t, other, 11, "topic", 0, -2, epoch)
		assert.Equal(t, fkerr.NotLeaderForPartition.Code, row.ErrorCode, "non-replica, epoch %d", epoch)
		assert.Equal(t, int32(-1), row.LeaderEpoch)
	}

	req := kmsg.NewPtrListOffsetsRequest()
	req.Version, req.ReplicaID = 11, -1
	rt := kmsg.NewListOffsetsRequestTopic()
	rt.Topic = "topic"
	rt.Partitions = []kmsg.ListOffsetsRequestTopicPartition{{Partition: 0, Timestamp: -1, CurrentLeaderEpoch: -1}, {Partition: 0, Timestamp: -2, CurrentLeaderEpoch: -1}}
	req.Topics = append(req.Topics, rt)
	resp := roundTrip(t, c, req).(*kmsg.ListOffsetsResponse)
	require.Len(t, resp.Topics, 1)
	require.Len(t, resp.Topics[0].Partitions, 1, "a partition named twice is answered once")
	assert.Equal(t, fkerr.InvalidRequest.Code, resp.Topics[0].Partitions[0].ErrorCode, "a partition named twice")
}

// TestFetchCurrentEpochValidation is FetchRequestTest's
// testCurrentEpochValidation with the fixed leader epoch 0: a negative
// CurrentLeaderEpoch is none (FetchRequest.optionalEpoch) and the leader's
// is served; a newer one is UNKNOWN_LEADER_EPOCH with no records and high
// watermark, last stable and log start offsets -1.
func TestFetchCurrentEpochValidation(t *testing.T) {
	t.Parallel()
	_, c := oneTopic(t, 1)
	require.Zero(t, produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, []int64{1000, 2000}, nil)).ErrorCode)
	fetch := func(epoch int32) kmsg.FetchResponseTopicPartition {
		req := kmsg.NewPtrFetchRequest()
		req.Version, req.MaxBytes, req.ReplicaID, req.SessionEpoch = 12, 1<<20, -1, -1
		rt := kmsg.NewFetchRequestTopic()
		rt.Topic = "topic"
		rp := kmsg.NewFetchRequestTopicPartition()
		rp.Partition, rp.PartitionMaxBytes, rp.CurrentLeaderEpoch = 0, 1<<20, epoch
		rt.Partitions = append(rt.Partitions, rp)
		req.Topics = append(req.Topics, rt)
		resp := roundTrip(t, c, req).(*kmsg.FetchResponse)
		require.Len(t, resp.Topics, 1)
		require.Len(t, resp.Topics[0].Partitions, 1)
		return resp.Topics[0].Partitions[0]
	}
	for _, epoch := range []int32{-1, -5, 0} {
		p := fetch(epoch)
		assert.Zero(t, p.ErrorCode, "epoch %d", epoch)
		assert.Equal(t, int64(2), p.HighWatermark)
		assert.NotEmpty(t, p.RecordBatches)
	}
	p := fetch(1)
	assert.Equal(t, fkerr.UnknownLeaderEpoch.Code, p.ErrorCode)
	assert.Empty(t, p.RecordBatches)
	assert.Equal(t, [3]int64{-1, -1, -1}, [3]int64{p.HighWatermark, p.LastStableOffset, p.LogStartOffset})
}

// TestApiVersionsRequest is ApiVersionsRequestTest's feature checks
// (validateApiVersionsResponse) for what coordsim serves: from v3 the
// supported features group.version 0-1, share.version 0-1 and
// streams.version 0-1, finalized at 1 with an epoch >= 0;
// transaction.version 0-2, finalized at 2 (KIP-890 part 2), or at 1 when
// the endpoint is configured so, and then kgo stays on the old protocol;
// Produce advertised from v0 (KAFKA-18659) while a Produce v2 request
// still closes the connection.
func TestApiVersionsRequest(t *testing.T) {
	t.Parallel()
	cl := startCluster(t, func(c *wire.Config) { c.Brokers = 1 })
	tv1 := startCluster(t, func(c *wire.Config) { c.Brokers = 1; c.Transactions.TransactionVersion = txn.TV1 })
	for _, v := range []int16{3, 4} {
		for want, addr := range map[int16]string{2: cl.Addrs()[0], 1: tv1.Addrs()[0]} {
			c := dial(t, addr)
			req := kmsg.NewPtrApiVersionsRequest()
			req.Version, req.ClientSoftwareName, req.ClientSoftwareVersion = v, "test", "1.0"
			_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
			require.NoError(t, err)
			resp := kmsg.NewPtrApiVersionsResponse()
			resp.Version = v
			require.NoError(t, resp.ReadFrom(readResponse(t, c)[4:]))
			var supported, finalized [2]int16
			for _, f := range resp.SupportedFeatures {
				if f.Name == "transaction.version" {
					supported = [2]int16{f.MinVersion, f.MaxVersion}
				}
			}
			for _, f := range resp.FinalizedFeatures {
				if f.Name == "transaction.version" {
					finalized = [2]int16{f.MinVersionLevel, f.MaxVersionLevel}
				}
			}
			assert.Equal(t, [2]int16{0, 2}, supported, "v%d supported transaction.version", v)
			assert.Equal(t, [2]int16{want, want}, finalized, "v%d finalized transaction.version", v)
		}
	}
	for _, v := range []int16{3, 4} {
		c := dial(t, cl.Addrs()[0])
		req := kmsg.NewPtrApiVersionsRequest()
		req.Version, req.ClientSoftwareName, req.ClientSoftwareVersion = v, "test", "1.0"
		_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, req, 1))
		require.NoError(t, err)
		resp := kmsg.NewPtrApiVersionsResponse()
		resp.Version = v
		require.NoError(t, resp.ReadFrom(readResponse(t, c)[4:])) // the response header is v0
		require.Zero(t, resp.ErrorCode)

		supported := map[string][2]int16{}
		for _, f := range resp.SupportedFeatures {
			supported[f.Name] = [2]int16{f.MinVersion, f.MaxVersion}
		}
		finalized := map[string][2]int16{}
		for _, f := range resp.FinalizedFeatures {
			finalized[f.Name] = [2]int16{f.MinVersionLevel, f.MaxVersionLevel}
		}
		for _, name := range []string{"group.version", "share.version", "streams.version"} {
			assert.Equal(t, [2]int16{0, 1}, supported[name], "v%d supported %s", v, name)
			assert.Equal(t, [2]int16{1, 1}, finalized[name], "v%d finalized %s", v, name)
		}
		assert.GreaterOrEqual(t, resp.FinalizedFeaturesEpoch, int64(0))

		var produce *kmsg.ApiVersionsResponseApiKey
		for i := range resp.ApiKeys {
			if resp.ApiKeys[i].ApiKey == 0 {
				produce = &resp.ApiKeys[i]
			}
		}
		require.NotNil(t, produce)
		assert.Equal(t, [2]int16{0, 13}, [2]int16{produce.MinVersion, produce.MaxVersion}, "PRODUCE_API_VERSIONS_RESPONSE_MIN_VERSION")
	}

	c := dial(t, cl.Addrs()[0])
	_, err := c.Write(kmsg.NewRequestFormatter(kmsg.FormatterClientID("test")).AppendRequest(nil, produceRequest(2, -1, "topic", 0, nil), 1))
	require.NoError(t, err)
	assertClosed(t, c)
}

// TestZSTDProduceRequest is ProduceRequestTest's case of that name: a zstd
// batch at v7 is appended; below v7 it is UNSUPPORTED_COMPRESSION_TYPE
// (ProduceRequest.validateRecords) and appends nothing.
func TestZSTDProduceRequest(t *testing.T) {
	t.Parallel()
	_, c := oneTopic(t, 1)
	zstd, err := kgo.DefaultCompressor(kgo.ZstdCompression())
	require.NoError(t, err)
	records := rawBatch(t, []int64{1000, 2000}, zstd)
	p := produceRaw(t, c, 3, -1, "topic", 0, records)
	assert.Equal(t, fkerr.UnsupportedCompressionType.Code, p.ErrorCode, "v3")
	assert.Equal(t, int64(-1), p.BaseOffset)
	p = produceRaw(t, c, 7, -1, "topic", 0, records)
	assert.Zero(t, p.ErrorCode, "v7")
	assert.Equal(t, int64(0), p.BaseOffset, "the refused batch took no offset")
}

// TestInvalidRecordCountNonCompressedV2 is DefaultRecordBatchTest's
// testInvalidRecordCountTooManyNonCompressedV2 and
// testInvalidRecordCountTooLittleNonCompressedV2 (and their compressed
// twins) at the broker, where LogValidator iterates every record: a batch
// declaring more records than it holds, or fewer, and a record whose
// bytes do not decode, are INVALID_RECORD and append nothing; a payload
// the codec cannot read is UNKNOWN_SERVER_ERROR ("Failed to decompress
// record stream"), and so is a codec Kafka does not know
// (CompressionType.forId); a client's control batch is INVALID_RECORD.
// The next good batch still gets offset 0.
func TestInvalidRecordCountNonCompressedV2(t *testing.T) {
	t.Parallel()
	_, c := oneTopic(t, 1)
	lz4, err := kgo.DefaultCompressor(kgo.Lz4Compression())
	require.NoError(t, err)
	// withCount declares n records (and the matching last offset delta).
	withCount := func(raw []byte, n int32) []byte {
		raw = bytes.Clone(raw)
		binary.BigEndian.PutUint32(raw[23:], uint32(n-1)) // last offset delta
		binary.BigEndian.PutUint32(raw[57:], uint32(n))   // record count
		return sealBatch(raw)
	}
	three := []int64{1000, 2000, 3000}
	garbage := rawBatch(t, []int64{1000, 2000}, nil)
	garbage = sealBatch(append(garbage[:61], 0xff, 0xff, 0xff, 0x01, 0x02))
	undecompressable := rawBatch(t, three, lz4)
	undecompressable = sealBatch(append(undecompressable[:61], bytes.Repeat([]byte{7}, len(undecompressable)-61)...))
	unknownCodec := rawBatch(t, three, nil)
	unknownCodec[22] |= 0x05
	control := rawBatch(t, three, nil)
	control[22] |= 0x20
	for _, tc := range []struct {
		name string
		raw  []byte
		code int16
	}{
		{"too many", withCount(rawBatch(t, three, nil), 5), fkerr.InvalidRecord.Code},
		{"too little", withCount(rawBatch(t, three, nil), 2), fkerr.InvalidRecord.Code},
		{"too many, compressed", withCount(rawBatch(t, three, lz4), 5), fkerr.InvalidRecord.Code},
		{"too little, compressed", withCount(rawBatch(t, three, lz4), 2), fkerr.InvalidRecord.Code},
		{"records that do not decode", garbage, fkerr.InvalidRecord.Code},
		{"a payload lz4 cannot read", undecompressable, fkerr.UnknownServerError.Code},
		{"codec 5", sealBatch(unknownCodec), fkerr.UnknownServerError.Code},
		{"a control batch", sealBatch(control), fkerr.InvalidRecord.Code},
	} {
		p := produceRaw(t, c, 9, -1, "topic", 0, tc.raw)
		assert.Equal(t, tc.code, p.ErrorCode, tc.name)
		assert.Equal(t, int64(-1), p.BaseOffset, tc.name)
	}
	p := produceRaw(t, c, 9, -1, "topic", 0, rawBatch(t, three, lz4))
	assert.Zero(t, p.ErrorCode)
	assert.Equal(t, int64(0), p.BaseOffset, "nothing refused took an offset")
}

// TestProduceRequiredAcks is ReplicaManager.appendRecords' acks check and
// KafkaApis.handleProduceRequest's acks=0 rule: acks outside -1, 0, 1 is
// INVALID_REQUIRED_ACKS for every partition and appends nothing; acks=0
// is not answered, and when a partition fails the connection is closed
// instead, so that the producer notices. Another connection keeps being
// served.
func TestProduceRequiredAcks(t *testing.T) {
	t.Parallel()
	cl, c := oneTopic(t, 1)
	batch := rawBatch(t, []int64{1000}, nil)
	for _, acks := range []int16{2, -2} {
		p := produceRaw(t, c, 9, acks, "topic", 0, batch)
		assert.Equal(t, fkerr.InvalidRequiredAcks.Code, p.ErrorCode, "acks %d", acks)
		assert.Equal(t, int64(-1), p.BaseOffset)
	}
	assert.Equal(t, int64(0), listOffsets(t, c, 11, "topic", 0, -1, -1).Offset, "nothing appended")

	quiet := dial(t, cl.Addrs()[0])
	_, err := quiet.Write(kmsg.NewRequestFormatter().AppendRequest(nil, produceRequest(9, 0, "topic", 0, batch), 1))
	require.NoError(t, err)
	assert.Eventually(t, func() bool { return listOffsets(t, c, 11, "topic", 0, -1, -1).Offset == 1 }, 5*time.Second, 10*time.Millisecond,
		"acks=0 appended, unanswered")
	_, err = quiet.Write(kmsg.NewRequestFormatter().AppendRequest(nil, produceRequest(9, 0, "topic", 7, batch), 2))
	require.NoError(t, err)
	assertClosed(t, quiet)
	assert.Equal(t, int64(1), listOffsets(t, c, 11, "topic", 0, -1, -1).Offset, "the failed acks=0 produce appended nothing")
}
