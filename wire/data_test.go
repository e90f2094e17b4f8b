package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// batch encodes a v2 record batch of n records with kmsg, CRC included.
func batch(t *testing.T, producerID int64, epoch int16, firstSeq int32, n int) []byte {
	t.Helper()
	b := kmsg.RecordBatch{
		Magic: 2, ProducerID: producerID, ProducerEpoch: epoch, FirstSequence: firstSeq,
		NumRecords: int32(n), LastOffsetDelta: int32(n - 1), FirstTimestamp: 1000, MaxTimestamp: 1000,
	}
	for i := range n {
		b.Records = appendRecord(b.Records, int32(i), 0, []byte{byte(i)})
	}
	// The length counts what follows it; the CRC covers what follows the
	// CRC, as a producer computes them.
	b.Length = int32(len(b.AppendTo(nil)) - 12)
	b.CRC = int32(crc32c(b.AppendTo(nil)[21:]))
	return b.AppendTo(nil)
}

// TestProduceIdempotence proves the partition leader's sequence rules
// (Kafka's ProducerAppendInfo, ProducerStateEntry): appends get consecutive
// offsets, a retried batch is answered with its original offset and not
// appended twice, a gap in sequence or a new epoch of a known producer not
// starting at 0 is OUT_OF_ORDER_SEQUENCE_NUMBER, an older epoch
// INVALID_PRODUCER_EPOCH, and a refused batch changes nothing.
func TestProduceIdempotence(t *testing.T) {
	d := newDataPlane()
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	first := batch(t, 7, 0, 0, 3)
	r := d.produce("t", 0, first, 0)
	require.Zero(t, r.code, r.msg)
	assert.Equal(t, int64(0), r.base)
	r = d.produce("t", 0, batch(t, 7, 0, 3, 2), 0)
	require.Zero(t, r.code, r.msg)
	assert.Equal(t, int64(3), r.base)

	r = d.produce("t", 0, first, 0)
	assert.Zero(t, r.code, "a retry succeeds")
	assert.Equal(t, int64(0), r.base, "with its original offset")

	for _, tc := range []struct {
		name string
		raw  []byte
		code int16
	}{
		{"sequence gap", batch(t, 7, 0, 9, 1), fkerr.OutOfOrderSequenceNumber.Code},
		{"new epoch not at 0", batch(t, 7, 1, 5, 1), fkerr.OutOfOrderSequenceNumber.Code},
		{"two batches", append(batch(t, -1, -1, -1, 1), batch(t, -1, -1, -1, 1)...), fkerr.InvalidRecord.Code},
		{"not a batch", []byte{1, 2, 3}, fkerr.CorruptMessage.Code},
	} {
		r := d.produce("t", 0, tc.raw, 0)
		assert.Equal(t, tc.code, r.code, tc.name)
	}
	corrupt := batch(t, -1, -1, -1, 1)
	corrupt[len(corrupt)-1] ^= 0xff
	assert.Equal(t, fkerr.CorruptMessage.Code, d.produce("t", 0, corrupt, 0).code, "a CRC mismatch")
	assert.Equal(t, fkerr.UnknownTopicOrPartition.Code, d.produce("t", 1, batch(t, -1, -1, -1, 1), 0).code)

	r = d.produce("t", 0, batch(t, 7, 1, 0, 1), 0)
	require.Zero(t, r.code, "a bumped epoch starts over at 0")
	assert.Equal(t, fkerr.InvalidProducerEpoch.Code, d.produce("t", 0, batch(t, 7, 0, 5, 1), 0).code, "the old epoch is fenced")

	f := d.fetch("t", 0, 0, 1<<20)
	require.Zero(t, f.code)
	assert.Equal(t, int64(6), f.hwm, "3 + 2 + 1 records, nothing refused was appended")
	assert.Equal(t, fkerr.OffsetOutOfRange.Code, d.fetch("t", 0, 7, 1<<20).code)
}

// TestRetentionBytes proves log.retention.bytes on the data plane, as
// Kafka's retention by size deletes old segments: past the limit the
// oldest batches go (never the last one), the log start offset advances to
// the first retained batch and the hook sees each advance; a fetch below
// it is OFFSET_OUT_OF_RANGE, from it succeeds; ListOffsets earliest answers
// it; memory is bounded by the limit plus one batch.
func TestRetentionBytes(t *testing.T) {
	d := newDataPlane()
	var trims []int64
	d.onTrim = func(_ string, _ int32, logStart int64) { trims = append(trims, logStart) }
	one := int64(len(batch(t, -1, -1, -1, 10)))
	d.retentionBytes = 3 * one
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	for i := range 5 {
		r := d.produce("t", 0, batch(t, -1, -1, -1, 10), 0)
		require.Zero(t, r.code, r.msg)
		assert.Equal(t, int64(10*i), r.base)
	}
	assert.Equal(t, []int64{10, 20}, trims, "the oldest batches went, one append at a time")
	pl := d.partition("t", 0)
	assert.Equal(t, int64(20), pl.logStart)
	assert.Len(t, pl.batches, 3)
	assert.LessOrEqual(t, pl.bytes, d.retentionBytes)

	below := d.fetch("t", 0, 19, 1<<20)
	assert.Equal(t, fkerr.OffsetOutOfRange.Code, below.code, "below the log start")
	assert.Equal(t, int64(20), below.logStart)
	from := d.fetch("t", 0, 20, 1<<20)
	require.Zero(t, from.code)
	assert.Equal(t, int64(20), from.logStart)
	assert.Equal(t, int64(50), from.hwm)
	earliest, _, _, code := d.offsetFor("t", 0, -2)
	require.Zero(t, code)
	assert.Equal(t, int64(20), earliest)

	big := batch(t, -1, -1, -1, 200)
	require.Greater(t, int64(len(big)), d.retentionBytes, "one batch larger than the limit")
	r := d.produce("t", 0, big, 0)
	require.Zero(t, r.code)
	assert.Equal(t, int64(50), r.logStart, "the last batch stays, alone")
	assert.Len(t, pl.batches, 1)

	d.retentionBytes = -1
	for range 5 {
		require.Zero(t, d.produce("t", 0, batch(t, -1, -1, -1, 10), 0).code)
	}
	assert.Equal(t, int64(50), pl.logStart, "-1 keeps everything")
}
