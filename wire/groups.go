package wire

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/live"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// partitionCodes indexes a per-partition response's error codes by topic
// and partition.
func partitionCodes(topics []shard.TopicResults) map[topicPartition]int16 {
	out := map[topicPartition]int16{}
	for _, t := range topics {
		for _, p := range t.Partitions {
			code, _ := errCode(p.Err)
			out[topicPartition{t.Topic, p.Partition}] = code
		}
	}
	return out
}

// topicPartition keys partitionCodes.
type topicPartition struct {
	topic     string
	partition int32
}

// derefOr returns *s, or "" for Kafka's null.
func derefOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// nullIfEmpty is derefOr's inverse: "" (a member without an instance id or
// rack) is Kafka's null, as the describe responses send a member's unset
// instanceId and rackId.
func nullIfEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// errCode translates a coordinator or driver error into Kafka's code and
// message. A stopped driver or an abandoned call is COORDINATOR_NOT_AVAILABLE
// (retriable: the client looks the coordinator up again), as Kafka answers
// while its coordinator runtime is shutting down.
func errCode(err error) (int16, *string) {
	if err == nil {
		return 0, nil
	}
	if errors.Is(err, live.ErrStopped) || errors.Is(err, live.ErrNotStarted) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return kerr.CoordinatorNotAvailable.Code, nil
	}
	code := kerr.Code(err)
	var me *kerr.MessageError
	if errors.As(err, &me) {
		msg := me.Message
		return code, &msg
	}
	return code, nil
}

// stateName is Kafka's spelling of a group state on the wire
// (ConsumerGroupState/StreamsGroupState/ShareGroupState.toString).
func stateName(s shard.GroupState) string {
	switch s {
	case shard.StateEmpty:
		return "Empty"
	case shard.StateNotReady:
		return "NotReady"
	case shard.StateAssigning:
		return "Assigning"
	case shard.StateReconciling:
		return "Reconciling"
	case shard.StateStable:
		return "Stable"
	case shard.StateDead:
		return "Dead"
	case shard.StatePreparingRebalance:
		return "PreparingRebalance"
	case shard.StateCompletingRebalance:
		return "CompletingRebalance"
	}
	return "Unknown"
}

// protocolType is the protocol type ListGroups reports for a group type:
// ConsumerProtocol.PROTOCOL_TYPE ("consumer") for consumer groups
// (ConsumerGroup.asListedGroup), StreamsGroup.PROTOCOL_TYPE ("streams")
// for streams groups (Kafka 4.4's StreamsGroup.asListedGroup; the real
// broker lists them so, oracle/brokerdiff), ShareGroup.PROTOCOL_TYPE
// ("share") for share groups; coordsim's classic groups are simple groups
// with none.
func protocolType(t shard.GroupType) string {
	switch t {
	case shard.Consumer:
		return "consumer"
	case shard.Streams:
		return "streams"
	case shard.Share:
		return "share"
	}
	return ""
}

// driverFor is the coordinator driver of the broker that received the
// request. Group requests always go to the local coordinator, which
// answers NOT_COORDINATOR for a group whose partition it does not host.
func (r *request) driver() *live.Driver { return r.b.driver }

// describe reads group descriptions from the local coordinator.
func (r *request) describe(groups []string) ([]coordinator.DescribedGroup, error) {
	return r.driver().DescribeGroups(r.ctx, groups)
}

// describedAs is row i of a describe of ids for a describe API of group
// type want (ConsumerGroupDescribe, ShareGroupDescribe): the group's
// description, or the error to answer in its row. err is the describe's
// own error, every row's.
func describedAs(described []coordinator.DescribedGroup, err error, i int, want shard.GroupType) (shard.GroupDescription, error) {
	if err != nil {
		return shard.GroupDescription{}, err
	}
	row := described[i]
	// The coordinator's describe takes "" as the classic DescribeGroups
	// does; the typed describes refuse it (GroupCoordinatorService's
	// isGroupIdNotEmpty).
	if vErr := shard.ValidateGroupID(row.GroupID); vErr != nil {
		return shard.GroupDescription{}, vErr
	}
	if row.Err == nil && row.Description.Type != want {
		return shard.GroupDescription{}, kerr.GroupIDNotFound.WithMessage("Group %s is not a %s group.", row.Description.GroupID, want)
	}
	return row.Description, row.Err
}

// describedAsCheck is typedDescribeRows' check of a describe that
// succeeded, for a describe API of group type want (describedAs).
func describedAsCheck(described []coordinator.DescribedGroup, want shard.GroupType) func(i int) error {
	return func(i int) error {
		_, err := describedAs(described, nil, i, want)
		return err
	}
}

// groupErr is a describe row's error code and message; GROUP_ID_NOT_FOUND
// always carries Kafka's message (GroupMetadataManager's "Group X not
// found.").
func groupErr(id string, err error) (int16, *string) {
	code, msg := errCode(err)
	if code == kerr.GroupIDNotFound.Code && msg == nil {
		m := fmt.Sprintf("Group %s not found.", id)
		msg = &m
	}
	return code, msg
}

// groupAuthorizedOperations is the AuthorizedOperations a describe answers
// for a group it describes when the request asks for them: KafkaApis sets
// authHelper.authorizedOperations(request, GROUP resource) on every row
// without error, and without an authorizer AuthHelper.authorizedOperations
// grants every operation AclEntry.supportedOperations(GROUP) lists (READ 3,
// DELETE 6, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11), packed by
// Utils.to32BitField. coordsim has no authorizer.
const groupAuthorizedOperations int32 = 1<<3 | 1<<6 | 1<<8 | 1<<10 | 1<<11 // 3400

// authorizedOperations is the AuthorizedOperations of a describe row with
// errorCode, given the row's default (Kafka's -2147483648, "not
// requested"): groupAuthorizedOperations when the request asks for them and
// the row has no error, as KafkaApis.handleConsumerGroupDescribe,
// handleShareGroupDescribe, handleStreamsGroupDescribe and (from v3)
// handleDescribeGroupsRequest decide; an error row keeps the default.
func authorizedOperations(include bool, errorCode int16, def int32) int32 {
	if include && errorCode == 0 {
		return groupAuthorizedOperations
	}
	return def
}

// typedDescribeOrder is the order of a typed describe's rows
// (ConsumerGroupDescribe, ShareGroupDescribe, StreamsGroupDescribe) over
// the request's group ids: GroupCoordinatorService.consumerGroupDescribe
// (shareGroupDescribe and streamsGroupDescribe alike) answers each empty id
// at once, adding its future before those of the __consumer_offsets
// partitions it reads, and FutureUtils.combineFutures keeps that order, so
// the empty ids come first, in request order, then the others. Kafka keeps
// request order within one partition; across partitions its order is a
// HashMap's over TopicPartition, which coordsim does not reproduce: the
// others keep request order. A describe that failed as a whole (err, the
// driver stopped) answers every id in request order, as Kafka's inactive
// coordinator answers getErrorDescribedGroupList(groupIds).
func typedDescribeOrder(ids []string, err error) []int {
	order := make([]int, 0, len(ids))
	for i, id := range ids {
		if id == "" || err != nil {
			order = append(order, i)
		}
	}
	if err != nil {
		return order
	}
	for i, id := range ids {
		if id != "" {
			order = append(order, i)
		}
	}
	return order
}

// describeRow is one row of a typed describe (ConsumerGroupDescribe,
// ShareGroupDescribe, StreamsGroupDescribe): index i of the request's ids,
// and either described (the handler fills the row) or the error code and
// message it answers.
type describeRow struct {
	i         int
	id        string
	described bool
	code      int16
	msg       *string
}

// typedDescribeRows are a typed describe's rows in typedDescribeOrder: an
// empty id is INVALID_GROUP_ID without a message (emptyGroupIDRow); else
// the describe's own error err, or when it succeeded the row's (check), is
// answered with groupErr's code and message; the others are described.
func typedDescribeRows(ids []string, err error, check func(i int) error) []describeRow {
	var rows []describeRow
	for _, i := range typedDescribeOrder(ids, err) {
		row := describeRow{i: i, id: ids[i]}
		switch {
		case emptyGroupIDRow(row.id, err):
			row.code = kerr.InvalidGroupID.Code
		case err != nil:
			row.code, row.msg = groupErr(row.id, err)
		default:
			if rowErr := check(i); rowErr != nil {
				row.code, row.msg = groupErr(row.id, rowErr)
			} else {
				row.described = true
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// emptyGroupIDRow reports whether row id of a typed describe is Kafka's
// empty-id row: INVALID_GROUP_ID with no message
// (GroupCoordinatorService.consumerGroupDescribe's isGroupIdNotEmpty
// branch sets only the group id and the code). err is the describe's own
// error, which takes precedence.
func emptyGroupIDRow(id string, err error) bool {
	return id == "" && err == nil
}

// wireAssignedTopic is a topic of a ConsumerGroupHeartbeat or
// ShareGroupHeartbeat response's assignment (kmsg has one named type for
// each).
type wireAssignedTopic = struct {
	TopicID     [16]byte
	Partitions  []int32
	UnknownTags kmsg.Tags
}

// assignedTopics is a heartbeat's assignment by topic id: an empty list,
// never null, when nothing is assigned.
func assignedTopics[T ~wireAssignedTopic](r *request, tps []shard.TopicPartitions) []T {
	out := make([]T, 0, len(tps))
	for _, tp := range tps {
		out = append(out, T(wireAssignedTopic{TopicID: r.topicID(tp.Topic), Partitions: tp.Partitions}))
	}
	return out
}

// wireDescribedTopic is a topic of a ConsumerGroupDescribe or
// ShareGroupDescribe member's assignment (kmsg has one named type for
// each).
type wireDescribedTopic = struct {
	TopicID     [16]byte
	Topic       string
	Partitions  []int32
	UnknownTags kmsg.Tags
}

// memberAssignment is a described member's assignment, by topic id and name
// (nil when nothing is assigned, as the describes always answered it).
func memberAssignment[T ~wireDescribedTopic](r *request, tps []shard.TopicPartitions) []T {
	var out []T
	for _, tp := range tps {
		out = append(out, T(wireDescribedTopic{TopicID: r.topicID(tp.Topic), Topic: tp.Topic, Partitions: tp.Partitions}))
	}
	return out
}

// topicName resolves a topic id to its name for a request that names
// topics by id; ok is false for an unknown id.
func (r *request) topicName(id [16]byte) (string, bool) {
	t, ok := r.cl.data.lookupID(id)
	return t.name, ok
}

// topicExists reports whether the data plane has the named topic.
func (r *request) topicExists(name string) bool {
	_, ok := r.cl.data.lookup(name)
	return ok
}

// topicID is the id of a named topic, zero when it does not exist.
func (r *request) topicID(name string) [16]byte {
	t, _ := r.cl.data.lookup(name)
	return t.id
}
