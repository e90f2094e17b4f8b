package wire

import (
	"fmt"
	"slices"
	"strings"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
)

// Metadata: v0-13 (Kafka 4.x), as KafkaApis.handleTopicMetadataRequest
// and getTopicMetadata answer it (KRaft, no authorizer). Every broker,
// this cluster's id, broker 0 as the controller, and the requested topics
// (all when Topics is null, or empty at v0) with ids from v10:
//
//   - v10 and v11 may name topics only: a null name or a topic id fails
//     the whole request with INVALID_REQUEST ("Topic name can not be null
//     for version N", "Topic IDs are not supported in requests for version
//     N"), answered as MetadataRequest.getErrorResponse builds it.
//   - From v12, when any row carries a topic id, the ids decide and the
//     names are ignored (useTopicId): an unknown id is UNKNOWN_TOPIC_ID
//     with a null name, and those rows come first.
//   - A name given twice is answered once (Kafka takes a set).
//   - A requested topic that does not exist is created when
//     auto.create.topics.enable and AllowAutoTopicCreation (v4+; always
//     before) allow it, with num.partitions partitions; an invalid name is
//     INVALID_TOPIC_EXCEPTION either way (Topic.validate), a name that
//     collides with an existing one ('.' against '_') is not created and
//     answers UNKNOWN_TOPIC_OR_PARTITION, as Kafka answers a topic whose
//     creation it asked of the controller; otherwise UNKNOWN_TOPIC_OR_PARTITION.
//     One request auto-creates at most 10000 partitions (the CreateTopics
//     bound); topics past it answer LEADER_NOT_AVAILABLE and a later
//     Metadata creates them.
//   - IncludeTopicAuthorizedOperations (v8+) answers every TOPIC operation
//     (READ, WRITE, CREATE, DELETE, ALTER, DESCRIBE, DESCRIBE_CONFIGS,
//     ALTER_CONFIGS) and IncludeClusterAuthorizedOperations (v8-10) every
//     CLUSTER one, as AuthHelper.authorizedOperations does with no
//     authorizer.
//
// Each partition has a single replica on its leader (replicasOf). Each
// broker carries its broker.rack (v1+), null when the brokers have none.
// __consumer_offsets is always there, internal, never auto-created, its
// partitions led by their coordinators (internal_topics.go); IsInternal
// marks Kafka's internal names (Topic.isInternal).
//
// Kept difference: an auto-created topic is answered at once with its
// partitions; Kafka's broker answers UNKNOWN_TOPIC_OR_PARTITION while it
// asks the controller (DefaultAutoTopicCreationManager.sendCreateTopicRequest)
// and the client retries.

var apiMetadata = api{key: 3, min: 0, max: 13, handle: handleMetadata}

// Authorized-operation bit fields with no authorizer (Utils.to32BitField
// of AclEntry.supportedOperations): TOPIC is READ(3), WRITE(4), CREATE(5),
// DELETE(6), ALTER(7), DESCRIBE(8), DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11);
// CLUSTER is CREATE(5), ALTER(7), DESCRIBE(8), CLUSTER_ACTION(9),
// DESCRIBE_CONFIGS(10), ALTER_CONFIGS(11), IDEMPOTENT_WRITE(12).
const (
	allTopicOperations   = 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<8 | 1<<10 | 1<<11
	allClusterOperations = 1<<5 | 1<<7 | 1<<8 | 1<<9 | 1<<10 | 1<<11 | 1<<12
)

func handleMetadata(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.MetadataRequest)
	resp := req.ResponseKind().(*kmsg.MetadataResponse)
	allTopics := req.Topics == nil || req.Version == 0 && len(req.Topics) == 0
	if !allTopics && req.Version < 12 {
		for _, rt := range req.Topics {
			switch {
			case rt.Topic == nil:
				return metadataRequestError(r, req, resp, "Topic name can not be null for version %d")
			case rt.TopicID != [16]byte{}:
				return metadataRequestError(r, req, resp, "Topic IDs are not supported in requests for version %d")
			}
		}
	}
	for _, b := range r.cl.brokers {
		mb := kmsg.NewMetadataResponseBroker()
		mb.NodeID, mb.Host, mb.Port, mb.Rack = b.node, b.host, b.port, nullIfEmpty(b.rack)
		resp.Brokers = append(resp.Brokers, mb)
	}
	clusterID := r.cl.cfg.ClusterID
	resp.ClusterID = &clusterID
	resp.ControllerID = 0
	if req.Version >= 8 && req.Version <= 10 && req.IncludeClusterAuthorizedOperations {
		resp.AuthorizedOperations = allClusterOperations
	}

	var unknownIDs, topicRows []kmsg.MetadataResponseTopic
	var topics []topicInfo
	var missing []kmsg.MetadataResponseTopic
	useIDs := false
	for _, rt := range req.Topics {
		useIDs = useIDs || rt.TopicID != [16]byte{}
	}
	switch {
	case allTopics:
		topics = r.cl.data.all()
		// The offsets topic among them, in name order.
		at, _ := slices.BinarySearchFunc(topics, offsetsTopicName, func(t topicInfo, name string) int { return strings.Compare(t.name, name) })
		topics = slices.Insert(topics, at, r.cl.offsetsTopic())
	case useIDs:
		seen := make(map[[16]byte]bool, len(req.Topics))
		for _, rt := range req.Topics {
			if rt.TopicID == [16]byte{} || seen[rt.TopicID] {
				continue
			}
			seen[rt.TopicID] = true
			if rt.TopicID == r.cl.offsetsTopicID {
				topics = append(topics, r.cl.offsetsTopic())
				continue
			}
			t, code := r.cl.resolveTopic("", rt.TopicID, true)
			if code != 0 {
				unknownIDs = append(unknownIDs, metadataError(nil, rt.TopicID, code))
				continue
			}
			topics = append(topics, t)
		}
	default:
		topics, missing = r.metadataByName(req)
	}
	for _, t := range topics {
		if t.name == offsetsTopicName {
			topicRows = append(topicRows, r.cl.offsetsTopicMetadata())
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
		topicRows = append(topicRows, mt)
	}
	topicRows = append(topicRows, missing...)
	if req.Version >= 8 && req.IncludeTopicAuthorizedOperations {
		for i := range topicRows {
			topicRows[i].AuthorizedOperations = allTopicOperations
		}
	}
	resp.Topics = append(unknownIDs, topicRows...)
	return resp, nil
}

// metadataByName resolves a request by names: the existing (or
// auto-created) topics in request order, each name once, and the rows of
// those that do not exist.
func (r *request) metadataByName(req *kmsg.MetadataRequest) (topics []topicInfo, missing []kmsg.MetadataResponseTopic) {
	autoCreate := r.cl.cfg.AutoCreateTopics && (req.Version < 4 || req.AllowAutoTopicCreation)
	created, locked := false, false
	var autoCreated int64 // partitions, bounded like one CreateTopics
	seen := make(map[string]bool, len(req.Topics))
	for _, rt := range req.Topics {
		if rt.Topic == nil {
			// v12+ with neither a name nor an id: no such topic id.
			missing = append(missing, metadataError(nil, [16]byte{}, fkerr.UnknownTopicID.Code))
			continue
		}
		name := *rt.Topic
		if seen[name] {
			continue
		}
		seen[name] = true
		if name == offsetsTopicName {
			topics = append(topics, r.cl.offsetsTopic()) // never auto-created: it exists
			continue
		}
		if t, ok := r.cl.data.lookup(name); ok {
			topics = append(topics, t)
			continue
		}
		switch {
		case topicname.KafkaMessage(name) != "":
			missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.InvalidTopicException.Code))
			continue
		case !autoCreate:
			missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.UnknownTopicOrPartition.Code))
			continue
		}
		if !locked { // no creation or deletion interleaves from here (lockTopics)
			locked = true
			defer r.cl.lockTopics()()
		}
		switch {
		case r.cl.collidingTopic(name) != "", name == clusterMetadataTopicName:
			missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.UnknownTopicOrPartition.Code))
			continue
		case autoCreated+int64(r.cl.cfg.NumPartitions) > maxPartitionsPerRequest:
			// Kafka's controller refuses an auto-creation batch over
			// MAX_PARTITIONS_PER_BATCH while the broker answers the topic
			// as being created; here the next Metadata creates it.
			missing = append(missing, metadataError(rt.Topic, [16]byte{}, fkerr.LeaderNotAvailable.Code))
			continue
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
	return topics, missing
}

// metadataRequestError is MetadataRequest.getErrorResponse for a request
// KafkaApis refuses whole with INVALID_REQUEST: each requested topic
// answered with the code (a null name as ""), no brokers, the top-level
// ErrorCode from v13. The message is logged: the answer has no field for it.
func metadataRequestError(r *request, req *kmsg.MetadataRequest, resp *kmsg.MetadataResponse, format string) (kmsg.Response, error) {
	code := fkerr.InvalidRequest.Code
	r.cl.log.Debug("refusing a Metadata request", "reason", fmt.Sprintf(format, req.Version))
	for _, rt := range req.Topics {
		name := ""
		if rt.Topic != nil {
			name = *rt.Topic
		}
		mt := kmsg.NewMetadataResponseTopic()
		mt.Topic, mt.TopicID, mt.ErrorCode = &name, rt.TopicID, code
		resp.Topics = append(resp.Topics, mt)
	}
	resp.ErrorCode = code
	return resp, nil
}

func metadataError(name *string, id [16]byte, code int16) kmsg.MetadataResponseTopic {
	mt := kmsg.NewMetadataResponseTopic()
	mt.Topic, mt.TopicID, mt.ErrorCode = name, id, code
	if name != nil {
		mt.IsInternal = isInternalTopic(*name)
	}
	return mt
}
