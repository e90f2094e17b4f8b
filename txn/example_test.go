package txn_test

import (
	"fmt"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/txn"
)

// A transactional producer's life on the coordinator: its producer id, a
// transaction over a partition and a group's offsets, the commit that
// yields the markers to write, and the completion once they are written.
func ExampleCoordinator() {
	var next int64
	c, err := txn.NewCoordinator(txn.DefaultConfig(), func() int64 { next++; return next - 1 }, coordinator.PartitionFor)
	if err != nil {
		panic(err)
	}
	p, _, _ := c.InitProducerID(0, txn.InitProducerIDRequest{TransactionalID: "orders", TimeoutMs: 60000,
		ExpectedProducerID: txn.NoProducerID, ExpectedProducerEpoch: txn.NoProducerEpoch})
	_ = c.AddPartitions(1, "orders", p.ProducerID, p.ProducerEpoch, []txn.TopicPartition{{Topic: "out", Partition: 0}}, txn.TV0)
	_ = c.AddOffsets(2, "orders", p.ProducerID, p.ProducerEpoch, "pipeline", 50, txn.TV0)
	mk, _, _ := c.EndTxn(3, "orders", p.ProducerID, p.ProducerEpoch, true, txn.TV0)
	fmt.Println("markers:", mk.Commit, mk.Partitions, mk.Groups)
	// ... the caller writes the markers, then:
	st, _ := c.CompleteTransaction(4, mk)
	fmt.Println(st)
	// Output:
	// markers: true [{out 0}] [pipeline]
	// CompleteCommit
}
