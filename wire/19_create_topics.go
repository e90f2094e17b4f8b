package wire

import (
	"fmt"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/internal/topicname"
)

// CreateTopics: v2-7 (Kafka 4.x). NumPartitions -1 takes num.partitions; a
// replication factor is accepted when it is -1 or at most the broker count
// (every partition still has one replica: no replication here); explicit
// replica assignments and configs are refused as INVALID_REQUEST rather
// than silently ignored. INVALID_TOPIC_EXCEPTION, TOPIC_ALREADY_EXISTS,
// INVALID_REPLICATION_FACTOR and INVALID_PARTITIONS in the order and with
// the messages of Kafka's ReplicationControlManager.createTopics.
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
	// The duplicated names answer after the others, whichever way the rest
	// of the request ends (resp is a pointer: the rows reach the caller).
	defer func() {
		for _, name := range duplicates {
			st := kmsg.NewCreateTopicsResponseTopic()
			msg := "Duplicate topic name."
			st.Topic, st.NumPartitions, st.ReplicationFactor = name, -1, -1
			st.ErrorCode, st.ErrorMessage = fkerr.InvalidRequest.Code, &msg
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
		st := kmsg.NewCreateTopicsResponseTopic()
		st.Topic = rt.Topic
		st.NumPartitions, st.ReplicationFactor = -1, -1
		fail := func(code int16, format string, args ...any) {
			st.ErrorCode = code
			msg := fmt.Sprintf(format, args...)
			st.ErrorMessage = &msg
		}
		n := rt.NumPartitions
		if n == -1 {
			n = r.cl.cfg.NumPartitions
		}
		// Kafka's ReplicationControlManager.createTopics order: the name,
		// then whether the topic exists, then its own settings.
		existing, exists := r.cl.data.lookup(rt.Topic)
		switch {
		case topicname.Problem(rt.Topic) != "":
			fail(fkerr.InvalidTopicException.Code, "topic %q %s", rt.Topic, topicname.Problem(rt.Topic))
		case exists:
			fail(fkerr.TopicAlreadyExists.Code, "Topic '%s' already exists.", rt.Topic)
			st.TopicID = existing.id
		case len(rt.ReplicaAssignment) > 0 || len(rt.Configs) > 0:
			fail(fkerr.InvalidRequest.Code, "coordsim does not take replica assignments or topic configs")
		case rt.ReplicationFactor < -1 || rt.ReplicationFactor == 0:
			fail(fkerr.InvalidReplicationFactor.Code, "Replication factor must be larger than 0, or -1 to use the default value.")
		case int(rt.ReplicationFactor) > len(r.cl.brokers):
			fail(fkerr.InvalidReplicationFactor.Code, "Unable to replicate the partition %d time(s): The target replication factor of %d cannot be reached because only %d broker(s) are registered.",
				rt.ReplicationFactor, rt.ReplicationFactor, len(r.cl.brokers))
		case rt.NumPartitions < -1 || rt.NumPartitions == 0:
			fail(fkerr.InvalidPartitions.Code, "Number of partitions was set to an invalid non-positive value.")
		case n > maxTopicPartitions: // unreachable past the per-request bound; kept as a limit
			fail(fkerr.InvalidPartitions.Code, "number of partitions must be at most %d, got %d", maxTopicPartitions, n)
		default:
			st.NumPartitions, st.ReplicationFactor = n, 1
			if req.ValidateOnly {
				break
			}
			t, raced, err := r.cl.data.createTopic(rt.Topic, n)
			if err != nil {
				fail(fkerr.UnknownServerError.Code, "%v", err)
				break
			}
			if raced {
				fail(fkerr.TopicAlreadyExists.Code, "Topic '%s' already exists.", rt.Topic)
			}
			st.TopicID = t.id
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
