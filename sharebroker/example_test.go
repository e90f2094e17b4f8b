package sharebroker_test

import (
	"fmt"

	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// A consumer opens a share session, fetches, accepts part of what it got
// with its next fetch, and closes; the records it still held go back to
// AVAILABLE and a second consumer receives them with delivery count 2.
func Example() {
	b, _ := sharebroker.New(sharebroker.Config{Defaults: share.Config{AutoOffsetReset: share.ResetEarliest}})
	_ = b.CreateTopic("orders", 1)
	tp := sharebroker.TopicPartition{Topic: "orders", Partition: 0}
	_, _ = b.Produce(0, tp, 10)

	resp, _ := b.ShareFetch(0, sharebroker.FetchRequest{GroupID: "billing", MemberID: "c1", SessionEpoch: 0, Partitions: []sharebroker.TopicPartition{tp}})
	fmt.Println("c1 acquired", resp.Partitions[0].Records, "lock until", resp.Partitions[0].LockDeadlineMs)

	accept := sharebroker.PartitionAcks{TopicPartition: tp, Batches: []share.AckBatch{{FirstOffset: 0, LastOffset: 5, Type: share.AckAccept}}}
	resp, _ = b.ShareFetch(100, sharebroker.FetchRequest{GroupID: "billing", MemberID: "c1", SessionEpoch: 1, Partitions: []sharebroker.TopicPartition{tp}, Acks: []sharebroker.PartitionAcks{accept}})
	fmt.Println("ack", resp.Acks[0].Err)

	_, _ = b.ShareAcknowledge(200, sharebroker.AckRequest{GroupID: "billing", MemberID: "c1", SessionEpoch: sharebroker.FinalEpoch})
	fmt.Println("sessions", b.Sessions(), "cached", len(b.Keys()), "evictions", b.Evictions())

	resp, _ = b.ShareFetch(300, sharebroker.FetchRequest{GroupID: "billing", MemberID: "c2", SessionEpoch: 0, Partitions: []sharebroker.TopicPartition{tp}})
	fmt.Println("c2 acquired", resp.Partitions[0].Records)
	fmt.Println("offsets", b.ListShareGroupOffsets("billing"))
	// Output:
	// c1 acquired [{0 9 1}] lock until 30000
	// ack <nil>
	// sessions 0 cached 0 evictions 1
	// c2 acquired [{6 9 2}]
	// offsets [{{orders 0} 6 4}]
}

// A rejected record of a group with a dead-letter queue stays ARCHIVING
// while the DLQ write takes its virtual time; Poll completes it at
// NextDeadline, appending it to DLQ partition 0 % 1.
func ExampleBroker_Poll() {
	b, _ := sharebroker.New(sharebroker.Config{DLQWriteDelayMs: 20, Defaults: share.Config{AutoOffsetReset: share.ResetEarliest}})
	_ = b.CreateTopic("orders", 1)
	_ = b.CreateTopic("dlq.orders", 1)
	_ = b.SetGroupConfig("billing", sharebroker.GroupConfig{DLQTopic: "dlq.orders"})
	tp := sharebroker.TopicPartition{Topic: "orders", Partition: 0}
	_, _ = b.Produce(0, tp, 3)
	_, _ = b.ShareFetch(0, sharebroker.FetchRequest{GroupID: "billing", MemberID: "c1", Partitions: []sharebroker.TopicPartition{tp}})
	reject := sharebroker.PartitionAcks{TopicPartition: tp, Batches: []share.AckBatch{{FirstOffset: 0, LastOffset: 2, Type: share.AckReject}}}
	_, _ = b.ShareAcknowledge(5, sharebroker.AckRequest{GroupID: "billing", MemberID: "c1", SessionEpoch: 1, Acks: []sharebroker.PartitionAcks{reject}})

	sp, _ := b.Partition(share.Key{Group: "billing", Topic: "orders", Partition: 0})
	rec, _ := sp.Record(0)
	next, _ := b.NextDeadline()
	fmt.Println(rec.State, "until", next)
	touched, _ := b.Poll(next)
	fmt.Println("touched", touched, "SPSO", sp.StartOffset(), "DLQ records", b.DLQRecords("dlq.orders"))
	// Output:
	// ARCHIVING until 25
	// touched 1 SPSO 3 DLQ records 3
}
