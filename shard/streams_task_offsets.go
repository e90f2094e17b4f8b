package shard

import (
	"cmp"
	"slices"

	"github.com/coordsim/coordsim/assignor/taskassignor"
	"github.com/coordsim/coordsim/kerr"
)

// Task offsets (KIP-1071): a Streams client reports, every
// streams.task.offset.interval.ms, the changelog offsets of the tasks it
// holds and their end offsets, so that the assignor can judge a warm-up
// task's lag. Kafka keeps them per member in StreamsGroup's plain HashMap
// (updateTaskOffsets: soft state, not timeline, in no record), drops a
// member's with the member (removeMember), and shows them in
// StreamsGroupDescribe. The sticky task assignor reads the offsets (not
// the end offsets): a member reporting one for a task it holds no standby
// of is a standby candidate for it, ranked after the previous standbys,
// most caught-up first, and an active task without its previous owner goes
// to the least loaded candidate (StickyTaskAssignor.collectStandbyCandidates).
// The shard checks a report and hands it back; the coordinator keeps it in
// a TaskOffsetsBook and hands the group's back with the next heartbeat or
// delayed assignment, whose target reads them.

// TaskOffset is one task's offset: Kafka's StreamsGroupHeartbeatRequest
// TaskOffset and StreamsGroupDescribe's.
type TaskOffset struct {
	SubtopologyID string
	Partition     int32
	Offset        int64
}

// MemberTaskOffsets is a member's last reported task offsets and end
// offsets, each sorted by subtopology id and partition as
// StreamsGroupMember.taskOffsetsFromMap lists them. Immutable.
type MemberTaskOffsets struct {
	Offsets, EndOffsets []TaskOffset
}

// Update is MemberTaskOffsets.update: a list sent replaces the one kept, a
// list not sent (nil) keeps it. The caller has checked them
// (checkTaskOffsets).
func (t MemberTaskOffsets) Update(offsets, endOffsets []TaskOffset) MemberTaskOffsets {
	if offsets != nil {
		t.Offsets = sortedTaskOffsets(offsets)
	}
	if endOffsets != nil {
		t.EndOffsets = sortedTaskOffsets(endOffsets)
	}
	return t
}

func sortedTaskOffsets(in []TaskOffset) []TaskOffset {
	out := slices.Clone(in)
	slices.SortFunc(out, func(a, b TaskOffset) int {
		return cmp.Or(cmp.Compare(a.SubtopologyID, b.SubtopologyID), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// checkTaskOffsets is MemberTaskOffsets.toNestedMap's check, offsets
// first: a subtopology and partition reported twice is INVALID_REQUEST.
func checkTaskOffsets(offsets, endOffsets []TaskOffset) error {
	for _, list := range [2][]TaskOffset{offsets, endOffsets} {
		seen := make(map[TaskOffset]bool, len(list))
		for _, t := range list {
			k := TaskOffset{SubtopologyID: t.SubtopologyID, Partition: t.Partition}
			if seen[k] {
				return kerr.InvalidRequest.WithMessage("Task offsets contain a duplicate entry for subtopology %s and partition %d.", t.SubtopologyID, t.Partition)
			}
			seen[k] = true
		}
	}
	return nil
}

// TaskOffsetsBook is the task offsets a coordinator keeps beside a shard:
// each streams member's last report, by group and member. The zero value
// is empty and ready. It is soft state: Note keeps a heartbeat's report
// before its write (a failed write does not undo it), ForgetReplayed drops
// a member's when its member record is tombstoned (Kafka's removeMember),
// and a load starts with an empty book.
type TaskOffsetsBook struct {
	groups map[string]map[string]MemberTaskOffsets
}

// Note folds a heartbeat's reported task offsets into the member's
// (MemberTaskOffsets.update), when the response says to keep them.
func (b *TaskOffsetsBook) Note(groupID, memberID string, resp StreamsGroupHeartbeatResponse) {
	if !resp.KeepTaskOffsets {
		return
	}
	if b.groups == nil {
		b.groups = map[string]map[string]MemberTaskOffsets{}
	}
	members := b.groups[groupID]
	if members == nil {
		members = map[string]MemberTaskOffsets{}
		b.groups[groupID] = members
	}
	members[memberID] = members[memberID].Update(resp.TaskOffsets, resp.TaskEndOffsets)
}

// ForgetReplayed drops the task offsets of the members whose metadata
// records were just replayed as tombstones.
func (b *TaskOffsetsBook) ForgetReplayed(records []Record) {
	if len(b.groups) == 0 {
		return
	}
	for _, r := range records {
		if m, ok := r.(*StreamsGroupMemberMetadata); ok && m.Tombstone {
			members := b.groups[m.Group]
			delete(members, m.MemberID)
			if len(members) == 0 {
				delete(b.groups, m.Group)
			}
		}
	}
}

// Group is the task offsets kept for the group's members, by member id,
// nil for none. The caller must not change it.
func (b *TaskOffsetsBook) Group(groupID string) map[string]MemberTaskOffsets {
	return b.groups[groupID]
}

// taskOffsetsView is what a streams target computation reads of the task
// offsets: those kept for the group's members, with the heartbeating
// member's replaced by its report folded in (Kafka updates the group's
// before it computes the target).
type taskOffsetsView struct {
	kept   map[string]MemberTaskOffsets
	member string
	own    MemberTaskOffsets
	hasOwn bool
}

// heartbeatTaskOffsets is the view a streams heartbeat computes with.
func heartbeatTaskOffsets(h *heartbeat) taskOffsetsView {
	t := taskOffsetsView{kept: h.groupTaskOffsets}
	if (h.taskOffsets != nil || h.taskEndOffsets != nil) && checkTaskOffsets(h.taskOffsets, h.taskEndOffsets) == nil {
		t.member, t.own, t.hasOwn = h.memberID, h.groupTaskOffsets[h.memberID].Update(h.taskOffsets, h.taskEndOffsets), true
	}
	return t
}

// assignorOffsets is member id's reported offsets as the task assignor
// takes them (MemberMetadataAndStateImpl.taskOffsets), nil for none.
func (t taskOffsetsView) assignorOffsets(id string) []taskassignor.TaskOffset {
	offs := t.kept[id].Offsets
	if t.hasOwn && id == t.member {
		offs = t.own.Offsets
	}
	if len(offs) == 0 {
		return nil
	}
	out := make([]taskassignor.TaskOffset, len(offs))
	for i, o := range offs {
		out[i] = taskassignor.TaskOffset{SubtopologyID: o.SubtopologyID, Partition: o.Partition, OffsetSum: o.Offset}
	}
	return out
}

// Fill sets each described member's task offsets from the book.
func (b *TaskOffsetsBook) Fill(groupID string, members []MemberDescription) {
	kept := b.groups[groupID]
	for i := range members {
		t := kept[members[i].MemberID]
		members[i].TaskOffsets, members[i].TaskEndOffsets = t.Offsets, t.EndOffsets
	}
}
