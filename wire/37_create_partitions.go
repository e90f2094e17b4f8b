package wire

import (
	"fmt"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// CreatePartitions: v0-3 (Kafka 4.4's CreatePartitionsRequest.json keeps
// v0-1, which segmentio/kafka-go sends; they differ from v2 only in not
// being flexible, which kmsg encodes), as KRaft's
// ControllerApis.createPartitions and ReplicationControlManager.createPartitions
// answer it: a name given twice is INVALID_REQUEST "Duplicate topic name."
// once, first, and not grown; then per topic, in request order (Kafka's
// is a HashSet's): an unknown topic UNKNOWN_TOPIC_OR_PARTITION (null
// message; __consumer_offsets is no data topic here), the same count
// INVALID_PARTITIONS "Topic already has N partition(s).", a smaller one
// INVALID_PARTITIONS "The topic T currently has N partition(s); C would not
// be an increase.", assignments of the wrong count
// INVALID_REPLICA_ASSIGNMENT "Attempted to add A additional partition(s),
// but only M assignment(s) were specified."; any assignment is then
// refused (leaders are fixed here, partition p on broker p mod N). A topic
// over maxTopicPartitions, or more than maxPartitionsPerRequest new
// partitions in one request, is INVALID_PARTITIONS (Kafka bounds a
// controller operation's records; coordsim its memory). ValidateOnly
// checks and changes nothing. A grown topic reaches the share plane, then
// every coordinator's topic image, so groups subscribed to it rebalance
// onto the new partitions.

var apiCreatePartitions = api{key: 37, min: 0, max: 3, handle: handleCreatePartitions}

func handleCreatePartitions(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.CreatePartitionsRequest)
	resp := req.ResponseKind().(*kmsg.CreatePartitionsResponse)
	defer r.cl.lockTopics()() // no creation or deletion interleaves
	count := map[string]int{}
	for _, rt := range req.Topics {
		count[rt.Topic]++
	}
	answered := map[string]bool{}
	row := func(name string, code int16, msg *string) {
		st := kmsg.NewCreatePartitionsResponseTopic()
		st.Topic, st.ErrorCode, st.ErrorMessage = name, code, msg
		resp.Topics = append(resp.Topics, st)
	}
	for _, rt := range req.Topics {
		if count[rt.Topic] > 1 && !answered[rt.Topic] {
			answered[rt.Topic] = true
			row(rt.Topic, fkerr.InvalidRequest.Code, kmsg.StringPtr("Duplicate topic name."))
		}
	}
	grown, added := false, int64(0)
	for _, rt := range req.Topics {
		if count[rt.Topic] > 1 {
			continue
		}
		code, msg := r.createPartitions(rt, req.ValidateOnly, &added)
		row(rt.Topic, code, msg)
		grown = grown || (code == 0 && !req.ValidateOnly)
	}
	if grown {
		r.cl.broadcastTopics(r.ctx)
	}
	return resp, nil
}

// createPartitions checks and (unless validateOnly) grows one topic;
// added counts the request's new partitions so far.
func (r *request) createPartitions(rt kmsg.CreatePartitionsRequestTopic, validateOnly bool, added *int64) (int16, *string) {
	fail := func(code int16, format string, args ...any) (int16, *string) {
		return code, kmsg.StringPtr(fmt.Sprintf(format, args...))
	}
	t, ok := r.cl.data.lookup(rt.Topic)
	if !ok {
		return fkerr.UnknownTopicOrPartition.Code, nil
	}
	switch {
	case rt.Count == t.partitions:
		return fail(fkerr.InvalidPartitions.Code, "Topic already has %d partition(s).", t.partitions)
	case rt.Count < t.partitions:
		return fail(fkerr.InvalidPartitions.Code, "The topic %s currently has %d partition(s); %d would not be an increase.", rt.Topic, t.partitions, rt.Count)
	}
	additional := rt.Count - t.partitions
	if rt.Assignment != nil && int32(len(rt.Assignment)) != additional {
		return fail(fkerr.InvalidReplicaAssignment.Code, "Attempted to add %d additional partition(s), but only %d assignment(s) were specified.", additional, len(rt.Assignment))
	}
	if rt.Assignment != nil {
		return fail(fkerr.InvalidReplicaAssignment.Code, "coordsim places partition p on broker p mod %d and takes no manual assignment", len(r.cl.brokers))
	}
	if rt.Count > maxTopicPartitions || *added+int64(additional) > maxPartitionsPerRequest {
		return fail(fkerr.InvalidPartitions.Code, "coordsim holds at most %d partitions per topic and adds at most %d per request", maxTopicPartitions, maxPartitionsPerRequest)
	}
	*added += int64(additional)
	if validateOnly {
		return 0, nil
	}
	if err := r.cl.data.createPartitions(rt.Topic, rt.Count); err != nil {
		return errCode(err)
	}
	r.cl.log.Info("grew a topic", "topic", rt.Topic, "from", t.partitions, "to", rt.Count)
	return 0, nil
}
