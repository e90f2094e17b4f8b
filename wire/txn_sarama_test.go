package wire_test

import (
	"testing"
	"time"

	"github.com/IBM/sarama"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSaramaTransactionalProducerAndReadCommittedConsumer proves a second
// client's transactions work: IBM/sarama's transactional producer (its own
// FindCoordinator, InitProducerId, AddPartitionsToTxn and EndTxn) commits
// one transaction and aborts another, and sarama's read_committed
// partition consumer reads the committed records only.
func TestSaramaTransactionalProducerAndReadCommittedConsumer(t *testing.T) {
	t.Parallel()
	cl := startCluster(t)
	ctx := testContext(t)
	createTopic(t, ctx, newAdmin(t, cl), "out", 1)

	cfg := sarama.NewConfig()
	cfg.Version = sarama.V3_6_0_0
	cfg.Producer.Idempotent = true
	cfg.Producer.RequiredAcks = sarama.WaitForAll
	cfg.Producer.Return.Successes = true
	cfg.Producer.Transaction.ID = "sarama-txn"
	cfg.Producer.Transaction.Retry.Backoff = 10 * time.Millisecond
	cfg.Net.MaxOpenRequests = 1
	p, err := sarama.NewSyncProducer(cl.Addrs(), cfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = p.Close() })

	txn := func(commit bool, values ...string) {
		require.NoError(t, p.BeginTxn())
		for _, v := range values {
			_, _, err := p.SendMessage(&sarama.ProducerMessage{Topic: "out", Partition: 0, Value: sarama.StringEncoder(v)})
			require.NoError(t, err)
		}
		if commit {
			require.NoError(t, p.CommitTxn())
		} else {
			require.NoError(t, p.AbortTxn())
		}
	}
	txn(true, "c1", "c2")
	txn(false, "a1")
	txn(true, "c3")

	ccfg := sarama.NewConfig()
	ccfg.Version = sarama.V3_6_0_0
	ccfg.Consumer.IsolationLevel = sarama.ReadCommitted
	c, err := sarama.NewConsumer(cl.Addrs(), ccfg)
	require.NoError(t, err)
	t.Cleanup(func() { _ = c.Close() })
	pc, err := c.ConsumePartition("out", 0, sarama.OffsetOldest)
	require.NoError(t, err)
	t.Cleanup(func() { _ = pc.Close() })
	var got []string
	for len(got) < 3 {
		select {
		case m := <-pc.Messages():
			got = append(got, string(m.Value))
		case err := <-pc.Errors():
			require.NoError(t, err)
		case <-ctx.Done():
			require.FailNow(t, "timed out", "read %v", got)
		}
	}
	assert.Equal(t, []string{"c1", "c2", "c3"}, got)
}
