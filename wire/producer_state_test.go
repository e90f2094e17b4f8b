package wire

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
)

// TestBasicIdMapping follows Kafka's ProducerStateManagerTest of the same
// name through the data plane: consecutive sequences append, a retry is
// answered with its original offset (Kafka's DuplicateSequenceException
// becomes a success in UnifiedLog), a gap is OUT_OF_ORDER_SEQUENCE_NUMBER,
// a new epoch starts at 0, and the old epoch is then INVALID_PRODUCER_EPOCH
// with Kafka's message.
func TestBasicIdMapping(t *testing.T) {
	d := newDataPlane()
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	require.Zero(t, d.produce("t", 0, batch(t, 1, 0, 0, 1), 0).code)
	require.Zero(t, d.produce("t", 0, batch(t, 1, 0, 1, 1), 0).code)
	dup := d.produce("t", 0, batch(t, 1, 0, 1, 1), 0)
	require.Zero(t, dup.code)
	assert.Equal(t, int64(1), dup.base, "the retry's original offset")
	gap := d.produce("t", 0, batch(t, 1, 0, 5, 1), 0)
	assert.Equal(t, fkerr.OutOfOrderSequenceNumber.Code, gap.code)
	assert.Equal(t, "Out of order sequence number for producer 1 at offset 2 in partition t-0: 5 (incoming seq. number), 1 (current end sequence number)", gap.msg)
	require.Zero(t, d.produce("t", 0, batch(t, 1, 1, 0, 1), 0).code, "a new epoch at 0")
	old := d.produce("t", 0, batch(t, 1, 0, 2, 1), 0)
	assert.Equal(t, fkerr.InvalidProducerEpoch.Code, old.code)
	assert.Equal(t, "Epoch of producer 1 at offset 3 in t-0 is 0, which is < the last seen epoch 1 (TV-1)", old.msg)
	assert.Equal(t, int64(3), d.partition("t", 0).hwm, "nothing refused was appended")
}

// TestProducerSequenceWrapAround and TestProducerSequenceInvalidWrapAround
// follow Kafka's: after MaxInt32 the next sequence is 0, and only 0.
func TestProducerSequenceWrapAround(t *testing.T) {
	m := newProducerStateManager()
	m.append(producerBatch{producerID: 1, epoch: 15, firstSeq: math.MaxInt32}, 735, 735)
	next := producerBatch{producerID: 1, epoch: 15, firstSeq: 0}
	code, _ := m.check(next, "t", 0, 1235)
	require.Zero(t, code)
	m.append(next, 1235, 1235)
	assert.Equal(t, int32(0), m.producers[1].lastSeq())
}

func TestProducerSequenceInvalidWrapAround(t *testing.T) {
	m := newProducerStateManager()
	m.append(producerBatch{producerID: 1, epoch: 15, firstSeq: math.MaxInt32}, 735, 735)
	code, _ := m.check(producerBatch{producerID: 1, epoch: 15, firstSeq: 1}, "t", 0, 1235)
	assert.Equal(t, fkerr.OutOfOrderSequenceNumber.Code, code)
}

// TestDuplicateOfLastFiveBatches proves ProducerStateEntry's
// NUM_BATCHES_TO_RETAIN: a retry of any of the producer's last five
// batches is answered with its original offset and not appended; an older
// one is out of order.
func TestDuplicateOfLastFiveBatches(t *testing.T) {
	d := newDataPlane()
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	for i := range 6 {
		r := d.produce("t", 0, batch(t, 3, 0, int32(2*i), 2), 0)
		require.Zero(t, r.code, r.msg)
		require.Equal(t, int64(2*i), r.base)
	}
	for i := 1; i < 6; i++ {
		r := d.produce("t", 0, batch(t, 3, 0, int32(2*i), 2), 0)
		require.Zero(t, r.code, "retry of batch %d", i)
		assert.Equal(t, int64(2*i), r.base, "retry of batch %d", i)
	}
	assert.Equal(t, fkerr.OutOfOrderSequenceNumber.Code, d.produce("t", 0, batch(t, 3, 0, 0, 2), 0).code, "the sixth-last batch is forgotten")
	assert.Equal(t, int64(12), d.partition("t", 0).hwm, "no retry was appended")
}

// TestProducerWithoutStateAcceptsAnySequence proves
// ProducerAppendInfo.checkSequence for a producer the partition has no
// state of (never seen, or expired): any sequence is accepted, so Kafka
// 4.x never answers UNKNOWN_PRODUCER_ID.
func TestProducerWithoutStateAcceptsAnySequence(t *testing.T) {
	d := newDataPlane()
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	r := d.produce("t", 0, batch(t, 8, 2, 40, 1), 0)
	require.Zero(t, r.code, r.msg)
	assert.Zero(t, d.produce("t", 0, batch(t, 8, 2, 41, 1), 0).code, "and continues from there")
}

// TestProducerStateSurvivesRetention proves that retention leaves producer
// state alone (Kafka keeps it until producer.id.expiration.ms since
// KIP-360): after the producer's batches are deleted, a retry is still
// answered with its original offset and the sequence still continues.
func TestProducerStateSurvivesRetention(t *testing.T) {
	d := newDataPlane()
	one := int64(len(batch(t, -1, -1, -1, 10)))
	d.retentionBytes = one
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	require.Zero(t, d.produce("t", 0, batch(t, 5, 0, 0, 10), 0).code)
	for range 3 {
		require.Zero(t, d.produce("t", 0, batch(t, -1, -1, -1, 10), 0).code)
	}
	require.Equal(t, int64(30), d.partition("t", 0).logStart, "the producer's batch is gone")
	r := d.produce("t", 0, batch(t, 5, 0, 0, 10), 0)
	require.Zero(t, r.code)
	assert.Equal(t, int64(0), r.base, "a retry still gets its original offset")
	assert.Equal(t, fkerr.OutOfOrderSequenceNumber.Code, d.produce("t", 0, batch(t, 5, 0, 20, 1), 0).code, "and a gap is still a gap")
	assert.Zero(t, d.produce("t", 0, batch(t, 5, 0, 10, 1), 0).code)
}

// TestProducerIDExpiration proves producer.id.expiration.ms: a producer's
// state goes once its last batch's timestamp is that old, at the next
// check (every producer.id.expiration.check.interval.ms), and not before;
// afterwards its next batch is accepted at any sequence. batch stamps
// every record at 1000 ms.
func TestProducerIDExpiration(t *testing.T) {
	d := newDataPlane()
	d.producerIDExpirationMs = 60000
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	require.Zero(t, d.produce("t", 0, batch(t, 9, 0, 0, 1), 1000).code)
	assert.Equal(t, fkerr.OutOfOrderSequenceNumber.Code, d.produce("t", 0, batch(t, 9, 0, 7, 1), 1000+60000-1).code, "not yet expired")
	require.Zero(t, d.produce("t", 0, batch(t, -1, -1, -1, 1), 1000+producerIDExpirationCheckIntervalMs).code, "the next check removes it")
	assert.Empty(t, d.partition("t", 0).producers.producers)
	assert.Zero(t, d.produce("t", 0, batch(t, 9, 0, 7, 1), 1000+producerIDExpirationCheckIntervalMs+1).code, "any sequence once expired")
}
