package sim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/coordsim/coordsim/offsets"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/refmodel"
)

// Invariant 26: the committed shards answer what sim/refmodel, a model of
// the committed log that shares no code with shard's replay, says. The
// models read every record as it commits (the coordinators' OnCommit hook),
// before the log can fold it into a snapshot, which is a replay by shard's
// code; they are compared with the brokers' committed shards through the
// shards' public reads when checkReplay runs.

// foldCommitted feeds partition p's model the records a commit made
// committed.
func (c *checker) foldCommitted(p int32, first int64, records []shard.Record) {
	if err := c.models[p].Fold(first, records); err != nil {
		c.w.violate(InvReferenceModel, fmt.Sprintf("partition %d: %v", p, err))
	}
}

// checkReferenceModel compares each active partition's committed shard with
// its model (26).
func (c *checker) checkReferenceModel() {
	w := c.w
	w.eachServedShard(func(p int32, b int, live *shard.Shard) bool {
		m := c.models[p]
		if hw := w.logs.Partition(p).HighWatermark(); m.Next() != hw {
			w.violate(InvReferenceModel, fmt.Sprintf("partition %d: the model read the log up to %d, its high watermark is %d", p, m.Next(), hw))
			return false
		}
		m.ForgetAsLoaded(live.ForgottenAtLoad()) // what the shard's load forgot, as Kafka's does
		want := m.Facts()
		d := refmodel.Diff(want, liveFacts(live, want))
		if d == "" && live.OffsetCount() != len(want.Offsets) {
			d = fmt.Sprintf("the shard holds %d committed offsets, the log says %d", live.OffsetCount(), len(want.Offsets))
		}
		if d != "" {
			w.violate(InvReferenceModel, fmt.Sprintf("partition %d on broker %d: %s", p, b, d))
			return false
		}
		return true
	})
}

// liveFacts asks s, through its public reads, for the facts the model
// derives. Offsets and transactions are read per group (AscendOffsets,
// HasOpenTransaction, HasPendingOffset), for every group either side knows
// of: an offset of a group neither lists shows in the offset count the
// caller compares; a pending offset of such a group, or of a partition
// neither side has an offset of, is not seen (the shard has no public list
// of pending offsets).
func liveFacts(s *shard.Shard, want refmodel.Facts) refmodel.Facts {
	var f refmodel.Facts
	probe := map[string]bool{}
	s.ListGroups(func(gl shard.GroupListing) bool {
		probe[gl.GroupID] = true
		d, _ := s.DescribeGroup(gl.GroupID)
		g := refmodel.Group{ID: gl.GroupID, Type: gl.Type, Epoch: d.Epoch}
		if gl.Type != shard.Classic {
			g.AssignmentEpoch = d.AssignmentEpoch
			for _, md := range d.Members {
				g.Members = append(g.Members, liveMember(gl.Type, md))
			}
			slices.SortFunc(g.Members, func(a, b refmodel.Member) int { return cmp.Compare(a.ID, b.ID) })
		}
		f.Groups = append(f.Groups, g)
		return true
	})
	refmodel.SortGroups(f.Groups)
	for _, g := range want.Groups {
		probe[g.ID] = true
	}
	for _, o := range want.Offsets {
		probe[o.Key.Group] = true
	}
	for _, g := range want.OpenTxn {
		probe[g] = true
	}
	keys := map[offsets.Key]bool{}
	for _, k := range want.Pending {
		keys[k] = true
	}
	for _, id := range slices.Sorted(maps.Keys(probe)) {
		s.AscendOffsets(id, func(k offsets.Key, v offsets.OffsetAndMetadata) bool {
			f.Offsets = append(f.Offsets, refmodel.Offset{Key: k, Value: v})
			keys[k] = true
			return true
		})
		if s.HasOpenTransaction(id) {
			f.OpenTxn = append(f.OpenTxn, id)
		}
	}
	for _, k := range want.Offsets {
		keys[k.Key] = true
	}
	for _, k := range slices.SortedFunc(maps.Keys(keys), refmodel.CompareKeys) {
		if s.HasPendingOffset(k) {
			f.Pending = append(f.Pending, k)
		}
	}
	return f
}

// liveMember is a member's description in the model's representation: a
// streams member's tasks by role, a consumer or share member's partitions.
func liveMember(t shard.GroupType, md shard.MemberDescription) refmodel.Member {
	m := refmodel.Member{ID: md.MemberID, Epoch: md.MemberEpoch}
	if t == shard.Streams {
		m.Assigned = refmodel.Tasks(md.ActiveTasks, md.StandbyTasks, md.WarmupTasks)
		m.Revoking = refmodel.Tasks(md.ActiveTasksPendingRevocation, md.StandbyTasksPendingRevocation, md.WarmupTasksPendingRevocation)
		m.Target = refmodel.Tasks(md.TargetActiveTasks, md.TargetStandbyTasks, md.TargetWarmupTasks)
		return m
	}
	m.Assigned = refmodel.Partitions("", md.Assignment)
	m.Revoking = refmodel.Partitions("", md.PartitionsPendingRevocation)
	m.Target = refmodel.Partitions("", md.TargetAssignment)
	return m
}
