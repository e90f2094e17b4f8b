package wire_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
)

// TestNonCompressedV2 and TestCompressedV2 reproduce what LogValidatorTest's
// testNonCompressedV2 / testCompressedV2 check of the leader epoch: every
// batch a leader appends carries the partition leader epoch
// (LogValidator.assignOffsetsNonCompressed and the in-place compressed path
// call batch.setPartitionLeaderEpoch), whatever the producer sent (kgo
// sends -1). A consumer sees it as Record.LeaderEpoch and commits it with
// the offset. Found by TestKadmParityKfake.
func TestNonCompressedV2(t *testing.T) {
	t.Parallel()
	assertAppendedLeaderEpoch(t, kgo.NoCompression())
}

func TestCompressedV2(t *testing.T) {
	t.Parallel()
	assertAppendedLeaderEpoch(t, kgo.GzipCompression())
}

func assertAppendedLeaderEpoch(t *testing.T, codec kgo.CompressionCodec) {
	ctx := testContext(t)
	cl := startCluster(t)
	createTopic(t, ctx, newAdmin(t, cl), "epochs", 1)
	prod := newClient(t, cl, kgo.DefaultProduceTopic("epochs"), kgo.ProducerBatchCompression(codec))
	for i := range 3 {
		require.NoError(t, prod.ProduceSync(ctx, &kgo.Record{Value: []byte{byte(i)}}).FirstErr())
	}
	cons := newClient(t, cl, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"epochs": {0: kgo.NewOffset().AtStart()}}))
	for n := 0; n < 3; {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err())
		fs.EachRecord(func(r *kgo.Record) {
			assert.Equal(t, int32(0), r.LeaderEpoch, "record at offset %d", r.Offset)
			n++
		})
	}
}
