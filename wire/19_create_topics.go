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
// than silently ignored. TOPIC_ALREADY_EXISTS, INVALID_TOPIC_EXCEPTION and
// INVALID_PARTITIONS as Kafka's ZkAdminManager/ControllerApis answer them.

var apiCreateTopics = api{key: 19, min: 2, max: 7, handle: handleCreateTopics}

func handleCreateTopics(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.CreateTopicsRequest)
	resp := req.ResponseKind().(*kmsg.CreateTopicsResponse)
	created := false
	for _, rt := range req.Topics {
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
		switch {
		case topicname.Problem(rt.Topic) != "":
			fail(fkerr.InvalidTopicException.Code, "topic %q %s", rt.Topic, topicname.Problem(rt.Topic))
		case n < 1 || n > maxTopicPartitions:
			fail(fkerr.InvalidPartitions.Code, "number of partitions must be in [1, %d], got %d", maxTopicPartitions, rt.NumPartitions)
		case rt.ReplicationFactor != -1 && (rt.ReplicationFactor < 1 || int(rt.ReplicationFactor) > len(r.cl.brokers)):
			fail(fkerr.InvalidReplicationFactor.Code, "replication factor %d is outside [1, %d]", rt.ReplicationFactor, len(r.cl.brokers))
		case len(rt.ReplicaAssignment) > 0 || len(rt.Configs) > 0:
			fail(fkerr.InvalidRequest.Code, "coordsim does not take replica assignments or topic configs")
		default:
			if t, ok := r.cl.data.lookup(rt.Topic); ok {
				fail(fkerr.TopicAlreadyExists.Code, "topic '%s' already exists.", rt.Topic)
				st.TopicID = t.id
				break
			}
			st.NumPartitions, st.ReplicationFactor = n, 1
			if req.ValidateOnly {
				break
			}
			t, exists, err := r.cl.data.createTopic(rt.Topic, n)
			if err != nil {
				fail(fkerr.UnknownServerError.Code, "%v", err)
				break
			}
			if exists {
				fail(fkerr.TopicAlreadyExists.Code, "topic '%s' already exists.", rt.Topic)
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
