package wire

import (
	fkerr "github.com/twmb/franz-go/pkg/kerr"

	"github.com/coordsim/coordsim/shard"
)

// resolveTopic finds a topic by id (byID, from the versions that carry
// topic ids) or by name. The code is UNKNOWN_TOPIC_ID or
// UNKNOWN_TOPIC_OR_PARTITION when it does not exist.
func (cl *Cluster) resolveTopic(name string, id [16]byte, byID bool) (topicInfo, int16) {
	if byID {
		t, ok := cl.data.lookupID(id)
		if !ok {
			return topicInfo{id: id}, fkerr.UnknownTopicID.Code
		}
		return t, 0
	}
	t, ok := cl.data.lookup(name)
	if !ok {
		return topicInfo{name: name}, fkerr.UnknownTopicOrPartition.Code
	}
	return t, 0
}

// leaderOf is the node leading partition p of every data topic:
// round-robin over the brokers, fixed for the cluster's life.
func (cl *Cluster) leaderOf(p int32) int32 { return p % int32(len(cl.brokers)) }

// replicasOf is partition p's replica set, the one Metadata reports: a
// single replica, on its leader (the data plane keeps one copy). The
// coordinators' rack image reads the same function, so the two agree.
func (cl *Cluster) replicasOf(p int32) []int32 { return []int32{cl.leaderOf(p)} }

// rackOf is broker node's broker.rack, "" when the brokers have none.
func (cl *Cluster) rackOf(node int32) string {
	if int(node) >= len(cl.cfg.BrokerRacks) {
		return ""
	}
	return cl.cfg.BrokerRacks[node]
}

// topicImage is the coordinators' topic metadata image: every data topic's
// partition count and, when the brokers have racks, the racks of each
// partition's replicas (Kafka's SubscribedTopicDescriberImpl.racksForPartition
// reads them from the replicas' brokers in the MetadataImage).
func (cl *Cluster) topicImage() shard.TopicImage {
	// The topic ids clients see, so the uniform assignor orders topics as
	// Kafka's does with them.
	partitions, ids := cl.data.image()
	img := shard.TopicImage{Partitions: partitions, IDs: ids}
	if len(cl.cfg.BrokerRacks) == 0 {
		return img
	}
	img.Racks = make(map[string][][]string, len(img.Partitions))
	for topic, n := range img.Partitions {
		racks := make([][]string, n)
		for p := range n {
			for _, node := range cl.replicasOf(p) {
				racks[p] = append(racks[p], cl.rackOf(node))
			}
		}
		img.Racks[topic] = racks
	}
	return img
}

// partitionCode is partition p's error code on broker b: the topic's own
// (topicCode, from resolveTopic) when it has one, else whether p exists in
// t and whether b leads it.
func (cl *Cluster) partitionCode(b *broker, t topicInfo, topicCode int16, p int32) int16 {
	if topicCode != 0 {
		return topicCode
	}
	if p < 0 || p >= t.partitions {
		return fkerr.UnknownTopicOrPartition.Code
	}
	if cl.leaderOf(p) != b.node {
		return fkerr.NotLeaderForPartition.Code
	}
	return 0
}
