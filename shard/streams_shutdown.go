package shard

import "fmt"

// KIP-1071's application shutdown. A Streams client whose uncaught-exception
// handler answers SHUTDOWN_APPLICATION sets ShutdownApplication on its
// heartbeat (or on its leave); Kafka's GroupMetadataManager.streamsGroupHeartbeat
// and streamsGroupLeave then call StreamsGroup.setShutdownRequestMemberId,
// which keeps the first requester only, and every later heartbeat answer to
// any member of the group carries SHUTDOWN_APPLICATION, last among the
// statuses, until the group is empty (StreamsGroup.maybeUpdateGroupState
// clears it). Kafka keeps the requester in memory only, in no record: a
// coordinator failover forgets it. The shard may change only in Replay, so
// the requester is the coordinator's soft state: it passes it in
// (StreamsGroupHeartbeatRequest.ShutdownRequestMemberID), the shard answers
// the requester the heartbeat leaves behind (the response's
// ShutdownRequestMemberID), and the coordinator forgets it once the group
// has no member.

// shutdownApplicationDetail is Kafka's SHUTDOWN_APPLICATION StatusDetail.
func shutdownApplicationDetail(requester string) string {
	return fmt.Sprintf("Streams group member %s encountered a fatal error and requested a shutdown for the entire application.", requester)
}

// shutdownRequester is the group's requester after the heartbeat req: the
// one already recorded, else the heartbeating member if it asks
// (StreamsGroup.setShutdownRequestMemberId keeps the first).
func shutdownRequester(req *StreamsGroupHeartbeatRequest) string {
	if req.ShutdownRequestMemberID == "" && req.ShutdownApplication {
		return req.MemberID
	}
	return req.ShutdownRequestMemberID
}

// RederivesStreamsGroup reports whether replaying r re-derives a streams
// group's state, and so may clear its shutdown request (Kafka's
// StreamsGroup methods that replay calls end in maybeUpdateGroupState): a
// streams group record. An offset commit of the group does not.
func RederivesStreamsGroup(r Record) bool {
	switch r.Type() {
	case TypeStreamsGroupMetadata, TypeStreamsGroupTopology, TypeStreamsGroupMemberMetadata,
		TypeStreamsGroupTargetAssignmentMetadata, TypeStreamsGroupTargetAssignmentMember, TypeStreamsGroupCurrentMemberAssignment:
		return true
	}
	return false
}

// StreamsGroupHasMembers reports whether groupID is a streams group with at
// least one member: once it has none, Kafka's StreamsGroup clears its
// shutdown request (maybeUpdateGroupState, on the way to EMPTY).
func (s *Shard) StreamsGroupHasMembers(groupID string) bool {
	g := s.lookup(groupID)
	return g != nil && g.typ == Streams && len(g.members) > 0
}
