package brokerdiff_test

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/oracle/brokerdiff"
)

// Two clusters answer the same share join; after normalisation (each
// cluster's topic id becomes the topic's name) only the assignment
// differs, and no Known entry explains it: the test would fail on it.
// Against a real broker the answers come from brokerdiff.Start's broker and
// from coordsim's wire endpoint.
func ExampleDiff() {
	answer := func(member string, topicID [16]byte, partitions ...int32) *kmsg.ShareGroupHeartbeatResponse {
		r := kmsg.NewPtrShareGroupHeartbeatResponse()
		r.MemberID, r.MemberEpoch, r.HeartbeatIntervalMillis = &member, 2, 5000
		a := kmsg.NewShareGroupHeartbeatResponseAssignment()
		if len(partitions) > 0 {
			t := kmsg.NewShareGroupHeartbeatResponseAssignmentTopicPartition()
			t.TopicID, t.Partitions = topicID, partitions
			a.TopicPartitions = append(a.TopicPartitions, t)
		}
		r.Assignment = &a
		return r
	}
	ours, kafka := brokerdiff.NewNames(), brokerdiff.NewNames()
	ours.Topic([16]byte{1}, "orders") // each cluster's id of the same topic
	kafka.Topic([16]byte{7}, "orders")
	diffs := brokerdiff.Diff(
		brokerdiff.Flatten(answer("m-1", [16]byte{1}, 0), ours),
		brokerdiff.Flatten(answer("m-1", [16]byte{7}), kafka),
	)
	for _, d := range diffs {
		fmt.Println(d)
		if reason, _ := brokerdiff.Explain("share/join-heartbeat-leave-errors", "join", d); reason == "" {
			fmt.Println("unexplained")
		}
	}
	// Output:
	// .Assignment.TopicPartitions[0].TopicID: coordsim topic:orders, Kafka (absent)
	// unexplained
	// .Assignment.TopicPartitions[0].Partitions[0]: coordsim 0, Kafka (absent)
	// unexplained
	// .Assignment.TopicPartitions: coordsim (absent), Kafka []
	// unexplained
}
