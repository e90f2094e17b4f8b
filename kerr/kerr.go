// Package kerr holds Kafka's protocol errors as typed Go values.
//
// Every error a coordsim entry point returns for bad input or an unavailable
// coordinator wraps one of the sentinels below, so callers can use errors.Is
// with the sentinel, or Code and Name to get Kafka's wire code and error name.
// The package is a leaf: it imports nothing from coordsim and holds no mutable
// state.
package kerr

import (
	"errors"
	"fmt"
)

// Error is one of Kafka's protocol errors (org.apache.kafka.common.protocol.Errors).
// The sentinels below are the only values; compare with errors.Is.
type Error struct {
	// Name is Kafka's error name, e.g. "NOT_COORDINATOR".
	Name string
	// Code is Kafka's wire code.
	Code int16
	// Retriable mirrors Kafka's RetriableException marker.
	Retriable bool
}

func (e *Error) Error() string { return e.Name }

// WithMessage returns an error that wraps e and carries a message, printed as
// "NAME: message" (Kafka's ApiError with a message).
func (e *Error) WithMessage(format string, args ...any) error {
	return &MessageError{Err: e, Message: fmt.Sprintf(format, args...)}
}

// MessageError is a Kafka error with a message, like Kafka's ApiError.
type MessageError struct {
	Err     *Error
	Message string
}

func (m *MessageError) Error() string { return m.Err.Name + ": " + m.Message }

// Unwrap returns the Kafka error so errors.Is matches the sentinel.
func (m *MessageError) Unwrap() error { return m.Err }

// The Kafka errors coordsim returns. Codes are Kafka's.
var (
	UnknownServerError                     = &Error{"UNKNOWN_SERVER_ERROR", -1, false}
	NotLeaderOrFollower                    = &Error{"NOT_LEADER_OR_FOLLOWER", 6, true}
	RequestTimedOut                        = &Error{"REQUEST_TIMED_OUT", 7, true}
	MessageTooLarge                        = &Error{"MESSAGE_TOO_LARGE", 10, false}
	NetworkException                       = &Error{"NETWORK_EXCEPTION", 13, true}
	RecordListTooLarge                     = &Error{"RECORD_LIST_TOO_LARGE", 18, false}
	NotEnoughReplicas                      = &Error{"NOT_ENOUGH_REPLICAS", 19, true}
	KafkaStorageError                      = &Error{"KAFKA_STORAGE_ERROR", 56, true}
	UnknownTopicOrPartition                = &Error{"UNKNOWN_TOPIC_OR_PARTITION", 3, true}
	OffsetMetadataTooLarge                 = &Error{"OFFSET_METADATA_TOO_LARGE", 12, false}
	CoordinatorLoadInProgress              = &Error{"COORDINATOR_LOAD_IN_PROGRESS", 14, true}
	CoordinatorNotAvailable                = &Error{"COORDINATOR_NOT_AVAILABLE", 15, true}
	NotCoordinator                         = &Error{"NOT_COORDINATOR", 16, true}
	InvalidTopicException                  = &Error{"INVALID_TOPIC_EXCEPTION", 17, false}
	IllegalGeneration                      = &Error{"ILLEGAL_GENERATION", 22, false}
	InconsistentGroupProtocol              = &Error{"INCONSISTENT_GROUP_PROTOCOL", 23, false}
	InvalidGroupID                         = &Error{"INVALID_GROUP_ID", 24, false}
	UnknownMemberID                        = &Error{"UNKNOWN_MEMBER_ID", 25, false}
	InvalidSessionTimeout                  = &Error{"INVALID_SESSION_TIMEOUT", 26, false}
	RebalanceInProgress                    = &Error{"REBALANCE_IN_PROGRESS", 27, false}
	InvalidCommitOffsetSize                = &Error{"INVALID_COMMIT_OFFSET_SIZE", 28, false}
	UnsupportedVersion                     = &Error{"UNSUPPORTED_VERSION", 35, false}
	InvalidConfig                          = &Error{"INVALID_CONFIG", 40, false}
	InvalidRequest                         = &Error{"INVALID_REQUEST", 42, false}
	NonEmptyGroup                          = &Error{"NON_EMPTY_GROUP", 68, false}
	GroupIDNotFound                        = &Error{"GROUP_ID_NOT_FOUND", 69, false}
	MemberIDRequired                       = &Error{"MEMBER_ID_REQUIRED", 79, false}
	GroupMaxSizeReached                    = &Error{"GROUP_MAX_SIZE_REACHED", 81, false}
	FencedInstanceID                       = &Error{"FENCED_INSTANCE_ID", 82, false}
	GroupSubscribedToTopic                 = &Error{"GROUP_SUBSCRIBED_TO_TOPIC", 86, false}
	UnstableOffsetCommit                   = &Error{"UNSTABLE_OFFSET_COMMIT", 88, true}
	FencedMemberEpoch                      = &Error{"FENCED_MEMBER_EPOCH", 110, false}
	UnreleasedInstanceID                   = &Error{"UNRELEASED_INSTANCE_ID", 111, false}
	UnsupportedAssignor                    = &Error{"UNSUPPORTED_ASSIGNOR", 112, false}
	StaleMemberEpoch                       = &Error{"STALE_MEMBER_EPOCH", 113, false}
	InvalidRecordState                     = &Error{"INVALID_RECORD_STATE", 121, false}
	ShareSessionNotFound                   = &Error{"SHARE_SESSION_NOT_FOUND", 122, true}
	InvalidShareSessionEpoch               = &Error{"INVALID_SHARE_SESSION_EPOCH", 123, true}
	FencedStateEpoch                       = &Error{"FENCED_STATE_EPOCH", 124, false}
	InvalidRegularExpression               = &Error{"INVALID_REGULAR_EXPRESSION", 128, false}
	StreamsInvalidTopology                 = &Error{"STREAMS_INVALID_TOPOLOGY", 130, false}
	StreamsInvalidTopologyEpoch            = &Error{"STREAMS_INVALID_TOPOLOGY_EPOCH", 131, false}
	StreamsTopologyFenced                  = &Error{"STREAMS_TOPOLOGY_FENCED", 132, false}
	ShareSessionLimitReached               = &Error{"SHARE_SESSION_LIMIT_REACHED", 133, true}
	GroupDeletionFailed                    = &Error{"GROUP_DELETION_FAILED", 134, false}
	StreamsTopologyDescriptionUpdateFailed = &Error{"STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED", 135, false}
)

// As returns the Kafka error err wraps, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

// Code returns the Kafka code of err: 0 for nil, UNKNOWN_SERVER_ERROR's -1 for
// an error that wraps no Kafka error.
func Code(err error) int16 {
	if err == nil {
		return 0
	}
	if e := As(err); e != nil {
		return e.Code
	}
	return UnknownServerError.Code
}

// Name returns the Kafka name of err: "NONE" for nil, "UNKNOWN_SERVER_ERROR"
// for an error that wraps no Kafka error.
func Name(err error) string {
	if err == nil {
		return "NONE"
	}
	if e := As(err); e != nil {
		return e.Name
	}
	return UnknownServerError.Name
}
