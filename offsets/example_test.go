package offsets_test

import (
	"fmt"

	"github.com/coordsim/coordsim/offsets"
)

func offsetAt(offset, commitMs int64) offsets.OffsetAndMetadata {
	return offsets.OffsetAndMetadata{
		Offset:            offset,
		LeaderEpoch:       offsets.NoLeaderEpoch,
		CommitTimestampMs: commitMs,
		ExpireTimestampMs: offsets.NoExpireTimestamp,
	}
}

func ExampleIsOffsetExpired() {
	o := offsetAt(42, 500)
	fmt.Println(offsets.IsOffsetExpired(o, 999, 500), offsets.IsOffsetExpired(o, 1000, 500))
	o.ExpireTimestampMs = 1500 // a legacy expire timestamp wins over retention
	fmt.Println(offsets.IsOffsetExpired(o, 1000, 500), offsets.ExpirableAtMs(o, 500))
	// Output:
	// false true
	// false 1500
}

// The shard's sweep: find candidate groups through the expiry index, ask each
// group which offsets to tombstone, then replay the tombstones.
func ExampleStore_CleanupExpiredOffsets() {
	s := offsets.NewStore(60_000)
	s.Commit(offsets.Key{Group: "g", Topic: "orders", Partition: 0}, offsetAt(10, 0))
	s.Commit(offsets.Key{Group: "g", Topic: "payments", Partition: 0}, offsetAt(20, 0))

	subscribed := func(topic string) bool { return topic == "orders" }
	var tombstones []offsets.Key
	s.AscendExpirable(60_000, func(k offsets.Key, _ offsets.OffsetAndMetadata) bool {
		fmt.Println("expirable:", k.Topic)
		return true
	})
	tombstones, allExpired := s.CleanupExpiredOffsets("g", 60_000, subscribed, tombstones[:0])
	for _, k := range tombstones {
		s.Delete(k)
	}
	fmt.Println(tombstones, allExpired, s.GroupOffsetCount("g"))
	// Output:
	// expirable: orders
	// expirable: payments
	// [{g payments 0}] false 1
}

// Transactional offsets stay pending until the marker: a commit marker makes
// them visible, an abort drops them.
func ExampleStore_EndTransaction() {
	s := offsets.NewStore(60_000)
	k := offsets.Key{Group: "g", Topic: "orders", Partition: 0}
	s.CommitPending(7, k, offsetAt(100, 0))
	_, visible := s.Get(k)
	fmt.Println(visible, s.HasOpenTransaction("g"))
	s.EndTransaction(7, "g", true)
	v, _ := s.Get(k)
	fmt.Println(v.Offset, s.HasOpenTransaction("g"))
	// Output:
	// false true
	// 100 false
}

// Clone is a copy-on-write snapshot: the committed view stays put while the
// live store moves on.
func ExampleStore_Clone() {
	live := offsets.NewStore(60_000)
	k := offsets.Key{Group: "g", Topic: "orders", Partition: 0}
	live.Commit(k, offsetAt(1, 0))
	committed := live.Clone()
	live.Commit(k, offsetAt(2, 0))
	a, _ := committed.Get(k)
	b, _ := live.Get(k)
	fmt.Println(a.Offset, b.Offset)
	// Output: 1 2
}
