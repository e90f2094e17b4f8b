package share_test

import (
	"fmt"

	"github.com/coordsim/coordsim/share"
)

// A member acquires a batch, accepts part of it, releases the rest, and the
// released records come back with delivery count 2 once a lock expires.
func Example() {
	key := share.Key{Group: "orders-sink", Topic: "orders", Partition: 0}
	p := share.NewPersister()
	sp, _ := share.New(key, share.Config{RecordLockDurationMs: 15_000, AutoOffsetReset: share.ResetEarliest}, 0, p)
	log := share.Fetch{HighWatermark: 10, Batches: []share.LogBatch{{BaseOffset: 0, LastOffset: 9}}}

	got, _, _ := sp.Acquire(0, "task-1", log)
	fmt.Println("acquired", got.Records, "lock until", got.LockDeadlineMs)
	_, _ = sp.Acknowledge(100, "task-1", []share.AckBatch{
		{FirstOffset: 0, LastOffset: 5, Type: share.AckAccept},
		{FirstOffset: 6, LastOffset: 7, Type: share.AckRelease},
	})
	fmt.Println("SPSO", sp.StartOffset(), "next fetch", sp.NextFetchOffset(), "lag", sp.Lag(10))

	// task-1 crashes holding 8..9: the coordinator's timer fires at the deadline.
	deadline, _ := sp.NextLockDeadline()
	res, _ := sp.ExpireLocks(deadline)
	fmt.Println("expired", res.Changes)

	got, _, _ = sp.Acquire(deadline, "task-2", log)
	fmt.Println("redelivered", got.Records)
	// Output:
	// acquired [{0 9 1}] lock until 15000
	// SPSO 6 next fetch 6 lag 4
	// expired [{8 9 AVAILABLE 1}]
	// redelivered [{6 9 2}]
}
