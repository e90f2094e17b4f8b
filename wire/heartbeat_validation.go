package wire

import (
	"crypto/rand"
	"encoding/base64"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/assignor"
	"github.com/coordsim/coordsim/shard"
)

// The request checks Kafka's GroupCoordinatorService runs on the three
// group heartbeats live in package shard (heartbeat_checks.go), which the
// shard runs too. The wire only translates the request as it came off the
// wire, where null and empty differ, into their input; a request that
// fails one is answered here and never reaches the coordinator, so it
// changes nothing.

// consumerHeartbeatInvalid runs Kafka's consumer heartbeat checks. An
// empty ServerAssignor is read as null, as this endpoint always has: kgo
// sends "" for balancers the server does not offer.
func consumerHeartbeatInvalid(req *kmsg.ConsumerGroupHeartbeatRequest, assignors *assignor.Registry) error {
	return shard.CheckConsumerHeartbeat(shard.ConsumerHeartbeatCheck{
		Version: req.Version, GroupID: req.Group, MemberID: req.MemberID, InstanceID: req.InstanceID, RackID: req.RackID,
		MemberEpoch: req.MemberEpoch, RebalanceTimeoutMs: req.RebalanceTimeoutMillis, TopicPartitions: shard.ListOf(req.Topics),
		SubscribedTopicNames: req.SubscribedTopicNames, SubscribedTopicRegex: req.SubscribedTopicRegex,
		ServerAssignor: serverAssignorOf(req),
	}, assignors)
}

// serverAssignorOf is the request's ServerAssignor with "" read as null.
func serverAssignorOf(req *kmsg.ConsumerGroupHeartbeatRequest) *string {
	if req.ServerAssignor != nil && *req.ServerAssignor == "" {
		return nil
	}
	return req.ServerAssignor
}

// shareHeartbeatInvalid runs Kafka's share heartbeat checks.
func shareHeartbeatInvalid(req *kmsg.ShareGroupHeartbeatRequest) error {
	return shard.CheckShareHeartbeat(shard.ShareHeartbeatCheck{
		GroupID: req.GroupID, MemberID: req.MemberID, RackID: req.RackID, MemberEpoch: req.MemberEpoch,
		SubscribedTopicNames: req.SubscribedTopicNames,
	})
}

// streamsHeartbeatInvalid runs Kafka's streams heartbeat checks.
func streamsHeartbeatInvalid(req *kmsg.StreamsGroupHeartbeatRequest) error {
	c := shard.StreamsHeartbeatCheck{
		GroupID: req.Group, MemberID: req.MemberID, InstanceID: req.InstanceID, RackID: req.RackID,
		MemberEpoch: req.MemberEpoch, RebalanceTimeoutMs: req.RebalanceTimeoutMillis,
		ActiveTasks: shard.ListOf(req.ActiveTasks), StandbyTasks: shard.ListOf(req.StandbyTasks), WarmupTasks: shard.ListOf(req.WarmupTasks),
		Topology: req.Topology != nil,
	}
	if req.Topology != nil {
		for _, st := range req.Topology.Subtopologies {
			c.SourceTopicRegex = c.SourceTopicRegex || len(st.SourceTopicRegex) > 0
			for _, ti := range st.StateChangelogTopics {
				c.Changelogs = append(c.Changelogs, shard.TopicInfo{Name: ti.Topic, Partitions: ti.NumPartitions})
			}
		}
	}
	return shard.CheckStreamsHeartbeat(c)
}

// newMemberID is Kafka's Uuid.randomUuid().toString() for the member id the
// coordinator gives a v0 ConsumerGroupHeartbeat join that sent none: 16
// random bytes in URL-safe base64 without padding (22 chars), never the
// zero id and never starting with '-', as Uuid.randomUuid retries. The wire
// is live-only (the simulator never reaches it), so crypto/rand is fine.
func newMemberID() string {
	var b [16]byte
	for {
		_, _ = rand.Read(b[:])
		id := base64.RawURLEncoding.EncodeToString(b[:])
		if b != [16]byte{} && id[0] != '-' {
			return id
		}
	}
}
