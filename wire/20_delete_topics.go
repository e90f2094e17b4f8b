package wire

import (
	"context"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/shard"
)

// DeleteTopics: v1-6 (Kafka 4.x). Topics are named by name (v1-5's
// TopicNames, v6's Topics with a null id) or by id (v6), with the checks
// and messages of Kafka's KRaft ControllerApis.deleteTopics and
// ReplicationControlManager: a v6 row with neither a name nor an id, or
// with both, is INVALID_REQUEST; a name or an id given twice is answered
// once, INVALID_REQUEST "Duplicate topic name." / "Duplicate topic id.", and
// not deleted; a name whose id another row gives is INVALID_REQUEST (and
// neither row deletes); an unknown name is UNKNOWN_TOPIC_OR_PARTITION, an
// unknown id UNKNOWN_TOPIC_ID. Everything else is deleted, answered with
// its name and id. As in Kafka, the server refuses no topic for being
// internal (only the kafka-topics tool does); __consumer_offsets is the
// coordinators' log here, not a data topic, so it is an unknown name.
//
// A deletion is what Kafka's brokers do when the RemoveTopicRecord reaches
// them: the data plane drops the topic's logs (fetches waiting on it wake
// up and answer UNKNOWN_TOPIC_*; a fetch session keeps naming the
// partition, answered with that error, until the client forgets it), the
// share plane drops the share groups' state of it (sharebroker.DeleteTopic),
// every broker's coordinator gets the topic image without it (the groups
// reading it lose its partitions, at a new group epoch) and then
// Coordinator.OnPartitionsDeleted tombstones every group's committed and
// pending offsets on it. A later CreateTopics of the name makes a new topic
// with a new id and empty logs.
//
// What differs from Kafka: the answer comes once every coordinator has
// written its tombstones (Kafka answers when the controller has committed
// the deletion and the brokers catch up after); the rows come in the order
// Kafka builds them (refused rows, then the deleted topics in request
// order) where Kafka shuffles them; TimeoutMillis is not used (nothing
// here takes long); delete.topic.enable is always true; no authorization.

var apiDeleteTopics = api{key: 20, min: 1, max: 6, handle: handleDeleteTopics}

const (
	msgNeitherNameNorID  = "Neither topic name nor id were specified."
	msgBothNameAndID     = "You may not specify both topic name and topic id."
	msgDuplicateName     = "Duplicate topic name."
	msgDuplicateID       = "Duplicate topic id."
	msgNameMapsToGivenID = "The provided topic name maps to an ID that was already supplied."
	// Kafka's Errors.UNKNOWN_TOPIC_OR_PARTITION and UNKNOWN_TOPIC_ID
	// messages, which ApiError carries when it is given none.
	msgUnknownTopic   = "This server does not host this topic-partition."
	msgUnknownTopicID = "This server does not host this topic ID."
)

// deleteTopicRow is one row of the request, as ControllerApis reads it.
type deleteTopicRow struct {
	name *string
	id   [16]byte
}

func handleDeleteTopics(r *request) (kmsg.Response, error) {
	req := r.kreq.(*kmsg.DeleteTopicsRequest)
	resp := req.ResponseKind().(*kmsg.DeleteTopicsResponse)
	var rows []deleteTopicRow
	if req.Version < 6 {
		for i := range req.TopicNames {
			rows = append(rows, deleteTopicRow{name: &req.TopicNames[i]})
		}
	} else {
		for _, t := range req.Topics {
			rows = append(rows, deleteTopicRow{name: t.Topic, id: t.TopicID})
		}
	}
	answer := func(name *string, id [16]byte, code int16, msg string) {
		rt := kmsg.NewDeleteTopicsResponseTopic()
		rt.Topic, rt.TopicID, rt.ErrorCode = name, id, code
		if msg != "" {
			rt.ErrorMessage = &msg
		}
		resp.Topics = append(resp.Topics, rt)
	}

	unlock := r.cl.lockTopics()
	defer unlock()
	plan := planDeletion(rows)
	for _, row := range plan.refused {
		answer(row.name, row.id, fkerr.InvalidRequest.Code, row.msg)
	}
	// Ids to names (ControllerApis' findTopicNames), then names to ids
	// (findTopicIds); a name whose id a row already gave refuses both.
	toDelete := map[[16]byte]string{} // lookups only; order is plan's
	var order [][16]byte
	for _, id := range plan.ids {
		t, ok := r.cl.data.lookupID(id)
		if !ok {
			answer(nil, id, fkerr.UnknownTopicID.Code, msgUnknownTopicID)
			continue
		}
		toDelete[id] = t.name
		order = append(order, id)
	}
	for _, name := range plan.names {
		t, ok := r.cl.data.lookup(name)
		if !ok {
			answer(&name, [16]byte{}, fkerr.UnknownTopicOrPartition.Code, msgUnknownTopic)
			continue
		}
		if _, given := toDelete[t.id]; given || plan.duplicateIDs[t.id] {
			plan.duplicateIDs[t.id] = true
			delete(toDelete, t.id)
			answer(&name, t.id, fkerr.InvalidRequest.Code, msgNameMapsToGivenID)
			continue
		}
		toDelete[t.id] = name
		order = append(order, t.id)
	}
	var deleted []topicInfo
	for _, id := range order {
		name, ok := toDelete[id]
		if !ok {
			continue // refused since: its name came too
		}
		t, ok, err := r.cl.data.deleteTopic(name)
		switch {
		case err != nil:
			answer(&name, id, fkerr.UnknownServerError.Code, err.Error())
		case !ok: // unreachable under lockTopics; kept as Kafka's answer
			answer(&name, id, fkerr.UnknownTopicID.Code, msgUnknownTopicID)
		default:
			answer(&name, id, 0, "")
			deleted = append(deleted, t)
		}
	}
	if len(deleted) > 0 {
		r.cl.afterTopicsDeleted(deleted)
	}
	return resp, nil
}

// deletionPlan is a request's rows sorted out as ControllerApis.deleteTopics
// does before it looks anything up: the rows refused outright, and the
// names and ids given exactly once, in request order.
type deletionPlan struct {
	refused      []refusedRow
	names        []string
	ids          [][16]byte
	duplicateIDs map[[16]byte]bool
}

type refusedRow struct {
	name *string
	id   [16]byte
	msg  string
}

func planDeletion(rows []deleteTopicRow) deletionPlan {
	plan := deletionPlan{duplicateIDs: map[[16]byte]bool{}}
	nameCount := map[string]int{}
	idCount := map[[16]byte]int{}
	for _, row := range rows {
		switch {
		case row.name == nil && row.id == [16]byte{}:
			plan.refused = append(plan.refused, refusedRow{nil, row.id, msgNeitherNameNorID})
		case row.name == nil:
			idCount[row.id]++
		case row.id == [16]byte{}:
			nameCount[*row.name]++
		default:
			plan.refused = append(plan.refused, refusedRow{row.name, row.id, msgBothNameAndID})
		}
	}
	// Duplicates: answered once each, in the order of first mention (Kafka
	// answers them from hash sets); the names and ids given once go on.
	for _, row := range rows {
		switch {
		case row.name != nil && row.id == [16]byte{}:
			name := *row.name
			switch nameCount[name] {
			case 1:
				plan.names = append(plan.names, name)
			case 0:
				continue // answered
			default:
				plan.refused = append(plan.refused, refusedRow{&name, [16]byte{}, msgDuplicateName})
			}
			nameCount[name] = 0
		case row.name == nil && row.id != [16]byte{}:
			switch idCount[row.id] {
			case 1:
				plan.ids = append(plan.ids, row.id)
			case 0:
				continue
			default:
				plan.duplicateIDs[row.id] = true
				plan.refused = append(plan.refused, refusedRow{nil, row.id, msgDuplicateID})
			}
			idCount[row.id] = 0
		}
	}
	return plan
}

// afterTopicsDeleted is what every broker does once topics are gone from
// the cluster metadata, in the order of Kafka's BrokerMetadataPublisher:
// the coordinators get the topic image without them (the groups reading
// them lose their partitions at the next heartbeat), then
// onPartitionsDeleted tombstones the offsets on their partitions. It runs
// on the cluster's context, so a client that goes away mid-request does not
// leave the offsets behind; a coordinator's failure is logged, as Kafka's
// publisher logs it.
func (cl *Cluster) afterTopicsDeleted(deleted []topicInfo) {
	ctx := cl.ctx
	cl.broadcastTopics(ctx)
	var partitions []shard.TopicPartitions
	for _, t := range deleted {
		tp := shard.TopicPartitions{Topic: t.name}
		for p := range t.partitions {
			tp.Partitions = append(tp.Partitions, p)
		}
		partitions = append(partitions, tp)
		cl.log.Info("deleted a topic", "topic", t.name, "partitions", t.partitions)
	}
	for _, b := range cl.brokers {
		rs, err := live.Call(ctx, b.driver, func(c *coordinator.Coordinator) *coordinator.Future[[]coordinator.PartitionResult[int]] {
			return c.OnPartitionsDeleted(partitions)
		})
		logDeletionErrors(ctx, cl, b.node, rs, err)
	}
}

func logDeletionErrors(ctx context.Context, cl *Cluster, node int32, rs []coordinator.PartitionResult[int], err error) {
	if err != nil {
		if ctx.Err() == nil {
			cl.log.Warn("deleting the offsets of deleted topics failed", "broker", node, "err", err)
		}
		return
	}
	for _, r := range rs {
		if r.Err != nil {
			cl.log.Warn("deleting the offsets of deleted topics failed", "broker", node, "partition", r.Partition, "err", r.Err)
		}
	}
}
