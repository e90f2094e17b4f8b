package wire

import (
	"crypto/rand"
	"errors"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
)

// Kafka's internal topics (Topic.INTERNAL_TOPICS in trunk). Only the
// offsets topic exists here: it is the coordinators' log
// (coordinator.Logs), not a data-plane topic, so
//
//   - Metadata always lists it (Kafka lists it once it exists; here it
//     always does), IsInternal true, with the cluster's offsets partition
//     count, each partition led by the broker coordinating it (the
//     placement MoveCoordinator changes), as KafkaApis.getTopicMetadata
//     reports it; it is never auto-created, and kadm.ListTopics hides it;
//   - CreateTopics of it is TOPIC_ALREADY_EXISTS, as Kafka answers a topic
//     that exists;
//   - Produce to it is INVALID_TOPIC_EXCEPTION "Cannot append to internal
//     topic __consumer_offsets", as ReplicaManager.appendToLocalLog answers
//     a client (Kafka lets only the "__admin_client" client id append);
//   - it never enters the coordinators' topic image (data topics only).
//
// Fetch and ListOffsets of it answer UNKNOWN_TOPIC_OR_PARTITION
// (UNKNOWN_TOPIC_ID by id): the coordinators' records are not record
// batches here, so nothing can be served; Kafka serves them. The other
// internal names (__transaction_state, __share_group_state) are marked
// IsInternal when a data topic carries them and refuse Produce, as in
// Kafka; nothing here creates them.

const offsetsTopicName = "__consumer_offsets"

// clusterMetadataTopicName is KRaft's metadata log
// (Topic.CLUSTER_METADATA_TOPIC_NAME): never a topic. CreateTopics answers
// it TOPIC_AUTHORIZATION_FAILED and Metadata never auto-creates it, as
// Kafka's controller refuses the creation the broker asks for.
const clusterMetadataTopicName = "__cluster_metadata"

var errNotADataTopic = errors.New("wire: __consumer_offsets and __cluster_metadata are never data topics")

// isInternalTopic is Kafka's Topic.isInternal.
func isInternalTopic(name string) bool {
	switch name {
	case offsetsTopicName, "__transaction_state", "__share_group_state":
		return true
	}
	return false
}

// newTopicID draws a random, non-zero topic id (Uuid.randomUuid).
func newTopicID() [16]byte {
	var id [16]byte
	for id == [16]byte{} {
		_, _ = rand.Read(id[:])
	}
	return id
}

// offsetsTopic is the offsets topic as the data plane's topics are named:
// its id and partition count.
func (cl *Cluster) offsetsTopic() topicInfo {
	return topicInfo{name: offsetsTopicName, id: cl.offsetsTopicID, partitions: int32(len(cl.placement))}
}

// offsetsTopicMetadata is the offsets topic's Metadata row: each
// partition led by its coordinator, its only replica.
func (cl *Cluster) offsetsTopicMetadata() kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	name := offsetsTopicName
	mt.Topic, mt.TopicID, mt.IsInternal = &name, cl.offsetsTopicID, true
	cl.placeMu.Lock()
	defer cl.placeMu.Unlock()
	for p, leader := range cl.placement {
		mp := kmsg.NewMetadataResponseTopicPartition()
		mp.Partition, mp.Leader, mp.LeaderEpoch = int32(p), leader, 0
		mp.Replicas, mp.ISR = []int32{leader}, []int32{leader}
		mt.Partitions = append(mt.Partitions, mp)
	}
	return mt
}

// internalAppendRefusal is Produce's answer for partition p of a topic
// Kafka does not let a client append to: the code and message, ok when
// refused. As in Kafka, a partition that does not exist is
// UNKNOWN_TOPIC_OR_PARTITION first (KafkaApis.handleProduceRequest checks
// the metadata cache), then an internal topic is INVALID_TOPIC_EXCEPTION
// before leadership is looked at (ReplicaManager.appendToLocalLog with
// internalTopicsAllowed false). byID resolves v13+ topic ids.
func (cl *Cluster) internalAppendRefusal(name string, id [16]byte, byID bool, p int32) (code int16, msg string, ok bool) {
	var partitions int32
	switch {
	case byID && id == cl.offsetsTopicID, !byID && name == offsetsTopicName:
		name, partitions = offsetsTopicName, int32(len(cl.placement))
	default:
		t, code := cl.resolveTopic(name, id, byID)
		if code != 0 || !isInternalTopic(t.name) {
			return 0, "", false
		}
		name, partitions = t.name, t.partitions
	}
	if p < 0 || p >= partitions {
		return fkerr.UnknownTopicOrPartition.Code, "", true
	}
	return fkerr.InvalidTopicException.Code, "Cannot append to internal topic " + name, true
}

// collidingTopic is the existing topic name collides with ('.' and '_'
// unified, Kafka's ReplicationControlManager.validateNewTopicNames), the
// offsets topic included; "" when none.
func (cl *Cluster) collidingTopic(name string) string {
	if other := cl.data.colliding(name); other != "" {
		return other
	}
	if topicname.HasCollisionChars(name) && topicname.UnifyCollisionChars(name) == offsetsTopicName {
		return offsetsTopicName
	}
	return ""
}
