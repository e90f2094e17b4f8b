package connect

import (
	"fmt"

	"github.com/coordsim/coordsim/kerr"
)

// GroupType is what the cluster reports for an existing group id when a
// connector starts (Admin list/describe groups by type): Kafka's GroupType
// names, lower-cased.
type GroupType string

// The group types a group id can exist as; a group id has exactly one type
// (§2.6).
const (
	// GroupNone means no group with that id exists.
	GroupNone GroupType = ""
	// GroupConsumer is a KIP-848 consumer group.
	GroupConsumer GroupType = "consumer"
	// GroupClassic is a classic-protocol consumer group.
	GroupClassic GroupType = "classic"
	// GroupShare is a KIP-932 share group.
	GroupShare GroupType = "share"
	// GroupStreams is a KIP-1071 streams group.
	GroupStreams GroupType = "streams"
)

func (g GroupType) valid() bool {
	switch g {
	case GroupNone, GroupConsumer, GroupClassic, GroupShare, GroupStreams:
		return true
	}
	return false
}

// GroupCollisionError refuses to start a sink whose group id already exists
// as a group of a type its task class cannot join (§4.2, derived). Starting
// anyway would only fail later and less clearly, on the first heartbeat.
type GroupCollisionError struct {
	// GroupID is the colliding group id.
	GroupID string
	// Existing is the type the group id already has.
	Existing GroupType
	// Wanted is the sink's task class.
	Wanted SinkKind
	// Answer is what the broker would answer the sink's first request:
	// GROUP_ID_NOT_FOUND for a ShareGroupHeartbeat or ConsumerGroupHeartbeat
	// on another type, INCONSISTENT_GROUP_PROTOCOL for a classic JoinGroup on
	// a share or streams group (§2.6).
	Answer *kerr.Error
}

// Error says which group collides and exactly which admin step resolves
// it: the delete command for the existing group's type, or a new group id.
func (e *GroupCollisionError) Error() string {
	msg := fmt.Sprintf("group %s already exists as a %s group; a %s sink needs a new group id (consumer.override.group.id) or the %s group deleted (the broker would answer %s)",
		e.GroupID, e.Existing, e.Wanted, e.Existing, kerr.Name(e.unwrapped()))
	if step := e.AdminStep(); step != "" {
		msg += ". " + step
	}
	return msg
}

// AdminStep is the admin command that deletes the colliding group, with
// what it costs, or "" for a type without one. Rolling a share sink back to
// a consumer sink (KIP-1302) meets the share group the share sink left
// behind under the same default connect-<name> id; deleting it is the step
// that lets the consumer sink start.
func (e *GroupCollisionError) AdminStep() string {
	switch e.Existing {
	case GroupShare:
		return fmt.Sprintf("To roll back, stop the share sink's tasks, then run: kafka-share-groups.sh --bootstrap-server <broker> --delete --group %s (Admin.deleteShareGroups; the group must be EMPTY, and its share-partition state is deleted with it)", e.GroupID)
	case GroupConsumer, GroupClassic:
		return fmt.Sprintf("To delete it: kafka-consumer-groups.sh --bootstrap-server <broker> --delete --group %s (Admin.deleteConsumerGroups; its committed offsets are lost: to start the share sink there, alter the new share group's offsets from them first)", e.GroupID)
	case GroupStreams:
		return fmt.Sprintf("To delete it: kafka-streams-groups.sh --bootstrap-server <broker> --delete --group %s (Admin.deleteStreamsGroups)", e.GroupID)
	}
	return ""
}

// Unwrap returns the broker's answer, so errors.Is(err, kerr.GroupIDNotFound)
// holds where the broker would answer GROUP_ID_NOT_FOUND.
func (e *GroupCollisionError) Unwrap() error { return e.unwrapped() }

// unwrapped avoids a typed-nil error when Answer is unset.
func (e *GroupCollisionError) unwrapped() error {
	if e.Answer == nil {
		return nil
	}
	return e.Answer
}

// ValidateGroup is the start-up check of §4.2 (derived): a share sink
// refuses a group id that exists as any non-share group; a consumer sink
// refuses one that exists as a share or streams group. Consumer and classic
// groups interoperate (Kafka converts between them), so a consumer sink
// accepts both. The refusal is a *GroupCollisionError; a cfg that did not
// come from Resolve or an unknown existing type is INVALID_REQUEST.
func ValidateGroup(cfg SinkConfig, existing GroupType) error {
	if !cfg.Kind.valid() {
		return kerr.InvalidRequest.WithMessage("connect: sink kind %v: the config did not come from Resolve", cfg.Kind)
	}
	if !existing.valid() {
		return kerr.InvalidRequest.WithMessage("connect: unknown group type %q for group %s", string(existing), cfg.GroupID)
	}
	if existing == GroupNone {
		return nil
	}
	var answer *kerr.Error
	switch {
	case cfg.Kind == ShareSink && existing != GroupShare:
		answer = kerr.GroupIDNotFound // ShareGroupHeartbeat: "Group X is not a share group."
	case cfg.Kind == ConsumerSink && (existing == GroupShare || existing == GroupStreams):
		answer = kerr.GroupIDNotFound // ConsumerGroupHeartbeat: "Group X is not a consumer group."
		if cfg.GroupProtocol != protocolConsumer {
			answer = kerr.InconsistentGroupProtocol // classic JoinGroup on a non-consumer group
		}
	default:
		return nil
	}
	return &GroupCollisionError{GroupID: cfg.GroupID, Existing: existing, Wanted: cfg.Kind, Answer: answer}
}
