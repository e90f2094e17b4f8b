package shard

// A streams member's client id and process id on a heartbeat that is not a
// join. Kafka's GroupMetadataManager.streamsGroupHeartbeat builds the
// updated member on every heartbeat with StreamsGroupMember.Builder's
// setClientId(clientId) and maybeUpdateProcessId(Optional.ofNullable(processId)):
// the client id is the request header's, always taken; the process id is
// taken when sent and kept when null, on a join as on any other heartbeat.
// hasStreamsMemberMetadataChanged then writes the member record and bumps
// the group epoch, so the assignor places the member's tasks anew for its
// new process (GroupMetadataManagerTest.testStreamsUpdatingMemberMetadataTriggersNewTargetAssignment).
// Go has no null: a ProcessID of "" is Kafka's null.

// streamsClientChanged reports whether heartbeat h changes member m's client
// id or process id.
func streamsClientChanged(m *member, h *heartbeat) bool {
	return m.clientID != h.clientID || h.processID != "" && m.processID != h.processID
}

// updateStreamsClient applies h's client id and process id to m and reports
// whether either changed.
func updateStreamsClient(m *member, h *heartbeat) bool {
	if !streamsClientChanged(m, h) {
		return false
	}
	m.clientID = h.clientID
	if h.processID != "" {
		m.processID = h.processID
	}
	return true
}
