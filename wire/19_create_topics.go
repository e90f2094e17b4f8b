package wire

import (
	"fmt"
	"slices"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
)

// createTopic answers one topic of a CreateTopics (named once in the
// request) and, unless validateOnly, creates it. The checks are
// ReplicationControlManager.createTopics', in its order:
// validateNewTopicNames (Topic.validate, then the '.'/'_' collision with an
// existing topic), the topic's existence (which overrides both), the
// null config values (computeConfigChanges), the configs
// (ConfigurationControlManager.incrementalAlterConfig), then createTopic's
// own: the replica assignment, the replication factor, the partition
// count, and the placement (a replication factor over the broker count).
// A success carries what buildCreatableTopicResult fills from v5: the
// partition count, the replication factor (1: one replica here) and the
// effective configs; a validate-only success carries a fresh topic id and
// the same fields, and creates nothing, as Kafka drops only the records.
func (r *request) createTopic(rt kmsg.CreateTopicsRequestTopic, validateOnly bool) kmsg.CreateTopicsResponseTopic {
	st := kmsg.NewCreateTopicsResponseTopic()
	st.Topic = rt.Topic
	st.NumPartitions, st.ReplicationFactor = -1, -1
	fail := func(code int16, format string, args ...any) kmsg.CreateTopicsResponseTopic {
		st.ErrorCode = code
		msg := fmt.Sprintf(format, args...)
		st.ErrorMessage = &msg
		return st
	}
	if _, exists := r.cl.data.lookup(rt.Topic); exists || rt.Topic == offsetsTopicName {
		// Kafka's row carries the name, the code and the message only.
		return fail(fkerr.TopicAlreadyExists.Code, "Topic '%s' already exists.", rt.Topic)
	}
	if msg := topicname.KafkaMessage(rt.Topic); msg != "" {
		return fail(fkerr.InvalidTopicException.Code, "%s", msg)
	}
	if other := r.cl.collidingTopic(rt.Topic); other != "" {
		return fail(fkerr.InvalidTopicException.Code, "Topic '%s' collides with existing topic: %s", rt.Topic, other)
	}
	configs, err := validateTopicConfigs(rt.Configs)
	if err != nil {
		return fail(fkerr.InvalidConfig.Code, "%s", err.Error())
	}
	n := rt.NumPartitions
	if n == -1 {
		n = r.cl.cfg.NumPartitions
	}
	switch {
	case len(rt.ReplicaAssignment) > 0 && rt.ReplicationFactor != -1:
		return fail(fkerr.InvalidRequest.Code, "A manual partition assignment was specified, but replication factor was not set to -1.")
	case len(rt.ReplicaAssignment) > 0 && rt.NumPartitions != -1:
		return fail(fkerr.InvalidRequest.Code, "A manual partition assignment was specified, but numPartitions was not set to -1.")
	case len(rt.ReplicaAssignment) > 0:
		return fail(fkerr.InvalidRequest.Code, "coordsim does not take replica assignments")
	case rt.ReplicationFactor < -1 || rt.ReplicationFactor == 0:
		return fail(fkerr.InvalidReplicationFactor.Code, "Replication factor must be larger than 0, or -1 to use the default value.")
	case rt.NumPartitions < -1 || rt.NumPartitions == 0:
		return fail(fkerr.InvalidPartitions.Code, "Number of partitions was set to an invalid non-positive value.")
	case int(rt.ReplicationFactor) > len(r.cl.brokers):
		return fail(fkerr.InvalidReplicationFactor.Code, "Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered.",
			rt.ReplicationFactor, rt.ReplicationFactor, len(r.cl.brokers))
	case n > maxTopicPartitions: // unreachable past the per-request bound; kept as a limit
		return fail(fkerr.InvalidPartitions.Code, "number of partitions must be at most %d, got %d", maxTopicPartitions, n)
	}
	if validateOnly {
		st.TopicID = newTopicID()
	} else {
		t, raced, err := r.cl.data.createTopicWithConfigs(rt.Topic, n, configs)
		switch {
		case err != nil:
			return fail(fkerr.UnknownServerError.Code, "%v", err)
		case raced:
			return fail(fkerr.TopicAlreadyExists.Code, "Topic '%s' already exists.", rt.Topic)
		}
		st.TopicID = t.id
	}
	st.NumPartitions, st.ReplicationFactor = n, 1
	st.Configs = r.cl.createTopicsConfigs(configs)
	st.ConfigErrorCode = 0 // TopicConfigErrorCode, a v5+ tagged field
	return st
}

// CreateTopics: v2-7 (Kafka 4.x). NumPartitions -1 takes num.partitions; a
// replication factor is accepted when it is -1 or at most the broker count
// (every partition still has one replica: no replication here); topic
// configs are validated as Kafka validates them and kept (topicconfig.go);
// explicit replica assignments are refused as INVALID_REQUEST rather than
// silently ignored. INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS,
// INVALID_CONFIG, INVALID_REPLICATION_FACTOR and INVALID_PARTITIONS in the
// order and with the messages of Kafka's ReplicationControlManager.createTopics
// (createTopic below). __consumer_offsets exists (the coordinators' log):
// TOPIC_ALREADY_EXISTS; __cluster_metadata (KRaft's metadata log) is
// TOPIC_AUTHORIZATION_FAILED "Authorization failed.", after the others, as
// ControllerApis.createTopics answers it.
// A request asking for more than 10000 partitions in total is refused whole
// with POLICY_VIOLATION, as Kafka's controller refuses it. A name given
// more than once is left out of the request and answered once, after the
// others, with INVALID_REQUEST "Duplicate topic name.", as Kafka's
// ControllerApis.createTopics does (KRaft; ZooKeeper-era KafkaApis logged
// "Create topics request from client ... contains multiple entries for the
// following topics" and answered "Found multiple entries for this topic.").

var apiCreateTopics = api{key: 19, min: 2, max: 7, handle: handleCreateTopics}

func handleCreateTopics(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.CreateTopicsRequest)
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	defer r.cl.lockTopics()() // no deletion interleaves (lockTopics)
	topics, duplicates := withoutDuplicates(req.Topics)
	// Kafka's controller never creates its own metadata log as a topic:
	// ControllerApis.createTopics leaves the name out and, as it is then
	// not among the authorized names, answers it as unauthorized.
	metadataLog := slices.ContainsFunc(topics, func(rt kmsg.CreateTopicsRequestTopic) bool { return rt.Topic == clusterMetadataTopicName })
	topics = slices.DeleteFunc(topics, func(rt kmsg.CreateTopicsRequestTopic) bool { return rt.Topic == clusterMetadataTopicName })
	// The duplicated names answer after the others, whichever way the rest
	// of the request ends (resp is a pointer: the rows reach the caller),
	// then the metadata log's name.
	defer func() {
		for _, name := range duplicates {
			st := kmsg.NewCreateTopicsResponseTopic()
			msg := "Duplicate topic name."
			st.Topic, st.NumPartitions, st.ReplicationFactor = name, -1, -1
			st.ErrorCode, st.ErrorMessage = fkerr.InvalidRequest.Code, &msg
			resp.Topics = append(resp.Topics, st)
		}
		if metadataLog {
			st := kmsg.NewCreateTopicsResponseTopic()
			msg := "Authorization failed."
			st.Topic, st.NumPartitions, st.ReplicationFactor = clusterMetadataTopicName, -1, -1
			st.ErrorCode, st.ErrorMessage = fkerr.TopicAuthorizationFailed.Code, &msg
			resp.Topics = append(resp.Topics, st)
		}
	}()
	if total := requestedPartitions(topics, r.cl.cfg.NumPartitions); total > maxPartitionsPerRequest {
		msg := "Excessively large number of partitions per request."
		for _, rt := range topics {
			st := kmsg.NewCreateTopicsResponseTopic()
			st.Topic, st.NumPartitions, st.ReplicationFactor = rt.Topic, -1, -1
			st.ErrorCode, st.ErrorMessage = fkerr.PolicyViolation.Code, &msg
			resp.Topics = append(resp.Topics, st)
		}
		return resp, nil
	}
	created := false
	for _, rt := range topics {
		st := r.createTopic(rt, req.ValidateOnly)
		if st.ErrorCode == 0 && !req.ValidateOnly {
			created = true
		}
		resp.Topics = append(resp.Topics, st)
	}
	if created {
		r.cl.broadcastTopics(r.ctx)
	}
	return resp, nil
}

// maxPartitionsPerRequest is Kafka's QuorumController.MAX_PARTITIONS_PER_BATCH:
// one CreateTopics may ask for at most this many partitions in total, so a
// single request cannot make the endpoint allocate without bound.
const maxPartitionsPerRequest = 10000

// requestedPartitions sums the partitions a CreateTopics asks for, as
// ReplicationControlManager.validateTotalNumberOfPartitions counts them:
// -1 is num.partitions, other non-positive counts add nothing, and a topic
// with replica assignments counts one per assignment. The sum is 64-bit so
// that many large counts cannot wrap.
func requestedPartitions(topics []kmsg.CreateTopicsRequestTopic, defaultPartitions int32) int64 {
	var total int64
	for _, rt := range topics {
		switch {
		case len(rt.ReplicaAssignment) > 0:
			total += int64(len(rt.ReplicaAssignment))
		case rt.NumPartitions == -1:
			total += int64(defaultPartitions)
		case rt.NumPartitions > 0:
			total += int64(rt.NumPartitions)
		}
	}
	return total
}

// withoutDuplicates splits a request's topics into those named once, in
// request order, and the names given more than once, in the order of their
// first mention.
func withoutDuplicates(topics []kmsg.CreateTopicsRequestTopic) (once []kmsg.CreateTopicsRequestTopic, duplicates []string) {
	count := make(map[string]int, len(topics))
	for _, rt := range topics {
		count[rt.Topic]++
	}
	for _, rt := range topics {
		switch n := count[rt.Topic]; {
		case n == 1:
			once = append(once, rt)
		case n > 1:
			duplicates = append(duplicates, rt.Topic)
			count[rt.Topic] = 0 // answered once
		}
	}
	return once, duplicates
}
