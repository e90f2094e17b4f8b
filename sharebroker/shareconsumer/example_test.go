package shareconsumer_test

import (
	"errors"
	"fmt"

	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
	"github.com/coordsim/coordsim/sharebroker/shareconsumer"
)

// An explicit-mode consumer acknowledges each record of a poll before the
// next one; acknowledging one twice is an IllegalStateException.
func ExampleConsumer_Acknowledge() {
	b, _ := sharebroker.New(sharebroker.Config{Defaults: share.Config{AutoOffsetReset: share.ResetEarliest}})
	_ = b.CreateTopic("orders", 1)
	tp := sharebroker.TopicPartition{Topic: "orders", Partition: 0}
	_, _ = b.Produce(0, tp, 2)
	c, _ := shareconsumer.New(b, "billing", "c1", shareconsumer.Explicit, []sharebroker.TopicPartition{tp})
	recs, _ := c.Poll(0, 0)
	fmt.Println(len(recs), "records, delivery count", recs[0].DeliveryCount)
	_ = c.Acknowledge(recs[0], share.AckAccept)
	err := c.Acknowledge(recs[0], share.AckAccept)
	var ise *shareconsumer.IllegalStateError
	fmt.Println(errors.As(err, &ise))
	_ = c.Acknowledge(recs[1], share.AckRelease)
	fmt.Println(c.Close(1))
	// Output:
	// 2 records, delivery count 1
	// true
	// <nil>
}
