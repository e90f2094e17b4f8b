package shard

import (
	"cmp"
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Task offsets (KIP-1071): a Streams client reports, every
// streams.task.offset.interval.ms, the changelog offsets of the tasks it
// holds and their end offsets, so that the assignor can judge a warm-up
// task's lag. Kafka keeps them per member in StreamsGroup's plain HashMap
// (updateTaskOffsets: soft state, not timeline, in no record), drops a
// member's with the member (removeMember), and shows them in
// StreamsGroupDescribe. In 4.4.0 nothing else reads them: the assignment
// builder hands them to AssignmentRefiner.refine, which returns the target
// unchanged. The shard checks a report and hands it back; the coordinator
// keeps it (coordinator/streams_task_offsets.go).

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
