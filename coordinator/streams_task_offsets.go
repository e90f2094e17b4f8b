package coordinator

import "github.com/coordsim/coordsim/shard"

// Streams members' task offsets (shard/streams_task_offsets.go) are soft
// state, as in Kafka, where StreamsGroup keeps them in a plain HashMap: a
// heartbeat's report is kept before its write and not undone when the
// write fails, a member's go when its member record is tombstoned (Kafka's
// removeMember on replay), and a load starts without any. Only
// StreamsGroupDescribe reads them.

// noteTaskOffsets folds a heartbeat's reported task offsets into what the
// member has (MemberTaskOffsets.update).
func (h *hosted) noteTaskOffsets(groupID, memberID string, resp shard.StreamsGroupHeartbeatResponse) {
	if h == nil || !resp.KeepTaskOffsets {
		return
	}
	if h.streamsTaskOffsets == nil {
		h.streamsTaskOffsets = map[string]map[string]shard.MemberTaskOffsets{}
	}
	members := h.streamsTaskOffsets[groupID]
	if members == nil {
		members = map[string]shard.MemberTaskOffsets{}
		h.streamsTaskOffsets[groupID] = members
	}
	members[memberID] = members[memberID].Update(resp.TaskOffsets, resp.TaskEndOffsets)
}

// forgetReplayedTaskOffsets drops the task offsets of the members whose
// metadata records the replay just tombstoned.
func (h *hosted) forgetReplayedTaskOffsets(records []shard.Record) {
	if len(h.streamsTaskOffsets) == 0 {
		return
	}
	for _, r := range records {
		if m, ok := r.(*shard.StreamsGroupMemberMetadata); ok && m.Tombstone {
			members := h.streamsTaskOffsets[m.Group]
			delete(members, m.MemberID)
			if len(members) == 0 {
				delete(h.streamsTaskOffsets, m.Group)
			}
		}
	}
}

// describeTaskOffsets fills each described member's task offsets.
func (h *hosted) describeTaskOffsets(groupID string, members []shard.MemberDescription) {
	if h == nil {
		return
	}
	kept := h.streamsTaskOffsets[groupID]
	for i := range members {
		t := kept[members[i].MemberID]
		members[i].TaskOffsets, members[i].TaskEndOffsets = t.Offsets, t.EndOffsets
	}
}
