package brokerdiff_test

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/oracle/brokerdiff"
)

// Two clusters answer the same join; after normalisation only the epoch
// differs, and Known explains it. Against a real broker the answers come
// from brokerdiff.Start's broker and from coordsim's wire endpoint.
func ExampleDiff() {
	answer := func(member string, topicID [16]byte, epoch int32) *kmsg.ConsumerGroupHeartbeatResponse {
		r := kmsg.NewPtrConsumerGroupHeartbeatResponse()
		r.MemberID, r.MemberEpoch, r.HeartbeatIntervalMillis = &member, epoch, 5000
		a := kmsg.NewConsumerGroupHeartbeatResponseAssignment()
		t := kmsg.NewConsumerGroupHeartbeatResponseAssignmentTopic()
		t.TopicID, t.Partitions = topicID, []int32{0, 1, 2}
		a.Topics = append(a.Topics, t)
		r.Assignment = &a
		return r
	}
	ours, kafka := brokerdiff.NewNames(), brokerdiff.NewNames()
	ours.Topic([16]byte{1}, "orders") // each cluster's id of the same topic
	kafka.Topic([16]byte{7}, "orders")
	diffs := brokerdiff.Diff(
		brokerdiff.Flatten(answer("m-1", [16]byte{1}, 1), ours),
		brokerdiff.Flatten(answer("m-1", [16]byte{7}, 2), kafka),
	)
	for _, d := range diffs {
		fmt.Println(d)
		_, entry := brokerdiff.Explain("consumer/join", "join", d)
		fmt.Println("known:", brokerdiff.Known[entry].Name)
	}
	// Output:
	// .MemberEpoch: coordsim 1, Kafka 2
	// known: initial-group-epoch
}
