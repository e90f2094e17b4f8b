package shard

// A streams member's client id, client host and process id on a heartbeat
// that is not a join. Kafka's GroupMetadataManager.streamsGroupHeartbeat
// builds the updated member on every heartbeat with StreamsGroupMember.Builder's
// setClientId(clientId), setClientHost(clientHost) (the request context's
// address) and maybeUpdateProcessId(Optional.ofNullable(processId)): the
// client id is the request header's and the host the connection's, always
// taken; the process id is taken when sent and kept when null, on a join as
// on any other heartbeat.
// hasStreamsMemberMetadataChanged then writes the member record and bumps
// the group epoch, so the assignor places the member's tasks anew for its
// new process (GroupMetadataManagerTest.testStreamsUpdatingMemberMetadataTriggersNewTargetAssignment).
// Go has no null: a ProcessID of "" is Kafka's null.

// streamsClientChanged reports whether heartbeat h changes member m's client
// id, client host or process id.
func streamsClientChanged(m *member, h *heartbeat) bool {
	return m.clientID != h.clientID || m.clientHost != h.clientHost || h.processID != "" && m.processID != h.processID
}

// updateStreamsClient applies h's client id, client host and process id to
// m and reports whether any changed.
func updateStreamsClient(m *member, h *heartbeat) bool {
	if !streamsClientChanged(m, h) {
		return false
	}
	m.clientID, m.clientHost = h.clientID, h.clientHost
	if h.processID != "" {
		m.processID = h.processID
	}
	return true
}
