package wire

import (
	"slices"
	"strings"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
)

// Metadata: v0-13 (Kafka 4.x). Every broker, this cluster's id, broker 0
// as the controller, and the requested topics (all when Topics is null)
// with ids from v10. A requested topic that does not exist is created when
// auto.create.topics.enable and AllowAutoTopicCreation (v4+; always before)
// allow it, with num.partitions partitions, as Kafka's
// KafkaApis.handleTopicMetadataRequest does; otherwise
// UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID for a request by id). One
// request auto-creates at most 10000 partitions (the CreateTopics bound);
// topics past it answer LEADER_NOT_AVAILABLE, as Kafka answers a topic whose
// creation it has asked for, and a later Metadata creates them. Each
// partition has a single replica on its leader (replicasOf). Each broker
// carries its broker.rack (v1+), null when the brokers have none.
// __consumer_offsets is always there, internal, never auto-created, its
// partitions led by their coordinators (internal_topics.go); IsInternal
// marks Kafka's internal names (Topic.isInternal).

var apiMetadata = api{key: 3, min: 0, max: 13, handle: handleMetadata}

func handleMetadata(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	for _, b := range r.cl.brokers {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.node, b.host, b.port, nullIfEmpty(b.rack)
		resp.Brokers = append(resp.Brokers, mb)
	}
	clusterID := r.cl.cfg.ClusterID
	resp.ClusterID = &clusterID
	resp.ControllerID = 0

	var topics []topicInfo
	var missing []kmsg.MetadataResponseTopic
	if req.Topics == nil {
		topics = r.cl.data.all()
		// The offsets topic among them, in name order.
		at, _ := slices.BinarySearchFunc(topics, offsetsTopicName, func(t topicInfo, name string) int { return strings.Compare(t.name, name) })
		topics = slices.Insert(topics, at, r.cl.offsetsTopic())
	} else {
		autoCreate := r.cl.cfg.AutoCreateTopics && (req.Version < 4 || req.AllowAutoTopicCreation)
		created, locked := false, false
		var autoCreated int64 // partitions, bounded like one CreateTopics
		for _, rt := range req.Topics {
			if rt.Topic == nil && rt.TopicID == r.cl.offsetsTopicID || rt.Topic != nil && *rt.Topic == offsetsTopicName {
				topics = append(topics, r.cl.offsetsTopic()) // never auto-created: it exists
				continue
			}
			if rt.Topic == nil {
				t, code := r.cl.resolveTopic("", rt.TopicID, true)
				if code != 0 {
					missing = append(missing, metadataError(nil, rt.TopicID, code))
					continue
				}
				topics = append(topics, t)
				continue
			}
			name := *rt.Topic
			if t, ok := r.cl.data.lookup(name); ok {
				topics = append(topics, t)
				continue
			}
			if !autoCreate {
				missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.UnknownTopicOrPartition.Code))
				continue
			}
			if topicname.Problem(name) != "" {
				missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.InvalidTopicException.Code))
				continue
			}
			if autoCreated+int64(r.cl.cfg.NumPartitions) > maxPartitionsPerRequest {
				// Kafka's controller refuses an auto-creation batch over
				// MAX_PARTITIONS_PER_BATCH while the broker answers the topic
				// as being created; here the next Metadata creates it.
				missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.LeaderNotAvailable.Code))
				continue
			}
			if !locked { // no deletion interleaves (lockTopics)
				locked = true
				defer r.cl.lockTopics()()
			}
			t, exists, err := r.cl.data.createTopic(name, r.cl.cfg.NumPartitions)
			if err != nil {
				missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.UnknownServerError.Code))
				continue
			}
			topics = append(topics, t.info())
			if exists {
				continue // created by a concurrent request
			}
			autoCreated += int64(r.cl.cfg.NumPartitions)
			created = true
			r.cl.log.Info("auto-created a topic", "topic", name, "partitions", r.cl.cfg.NumPartitions)
		}
		if created {
			r.cl.broadcastTopics(r.ctx)
		}
	}
	for _, t := range topics {
		if t.name == offsetsTopicName {
			resp.Topics = append(resp.Topics, r.cl.offsetsTopicMetadata())
			continue
		}
		mt := kmsg.NewMetadataResponseTopic()
		name := t.name
		mt.Topic, mt.TopicID, mt.IsInternal = &name, t.id, isInternalTopic(name)
		for p := range t.partitions {
			mp := kmsg.NewMetadataResponseTopicPartition()
			mp.Partition, mp.Leader, mp.LeaderEpoch = p, r.cl.leaderOf(p), 0
			mp.Replicas, mp.ISR = r.cl.replicasOf(p), r.cl.replicasOf(p)
			mt.Partitions = append(mt.Partitions, mp)
		}
		resp.Topics = append(resp.Topics, mt)
	}
	resp.Topics = append(resp.Topics, missing...)
	return resp, nil
}

func metadataError(name *string, id [16]byte, code int16) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID, mt.ErrorCode = name, id, code
	return mt
}
