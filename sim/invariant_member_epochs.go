package sim

import (
	"fmt"

	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/sim/invariants"
)

// InvMemberEpochs holds every current-assignment record a write carries to
// KIP-848's and KIP-1071's epoch transitions, against the member as the
// latest state (the one the write ran on) has it. Issue 27: a member still
// revoking that got the target epoch was caught by nothing, since the
// clients' one-owner check only sees partitions change hands.
const InvMemberEpochs = invariants.MemberEpochs

// checkMemberEpochs checks one write's records (22).
func (c *checker) checkMemberEpochs(latest *shard.Shard, records []shard.Record) {
	for _, r := range records {
		var group, member, typ string
		var epoch int32
		var revoking, streams bool
		switch r := r.(type) {
		case *shard.ConsumerGroupCurrentMemberAssignment:
			group, member, typ, epoch = r.Group, r.MemberID, "consumer", r.MemberEpoch
			revoking = r.State == shard.MemberUnrevokedPartitions && !r.Tombstone
			c.noteRevocation(latest, group, member, epoch, revoking)
			if r.Tombstone {
				continue
			}
		case *shard.StreamsGroupCurrentMemberAssignment:
			group, member, typ, epoch, streams = r.Group, r.MemberID, "streams", r.MemberEpoch, true
			revoking = r.State == shard.StreamsMemberUnrevokedTasks && !r.Tombstone
			c.noteRevocation(latest, group, member, epoch, revoking)
			if r.Tombstone {
				continue
			}
		default:
			continue
		}
		old, found := latest.MemberEpoch(group, member)
		if !found {
			continue // a new member: nothing to move from
		}
		switch {
		case epoch == shard.LeaveGroupStaticMemberEpoch:
			// A static member that left keeps its place at -2 until it
			// rejoins or its session times out (consumerGroupStaticMemberGroupLeave).
			c.w.mark("static-member-left-at-minus-two")
		case epoch < old:
			c.w.violate(InvMemberEpochs, fmt.Sprintf("%s member %s of %s moved back from epoch %d to %d", typ, member, group, old, epoch))
			return
		case revoking && epoch != old:
			// The streams builder reconciles a member that acknowledged
			// its revocation from its epoch + 1, and may find more to
			// revoke there.
			if st, _ := latest.MemberState(group, member); streams && st == shard.MemberUnrevokedPartitions && epoch == old+1 {
				c.w.mark("streams-revoking-again")
				continue
			}
			c.w.violate(InvMemberEpochs, fmt.Sprintf("%s member %s of %s must still revoke but moved from epoch %d to %d", typ, member, group, old, epoch))
			return
		case revoking:
			c.w.mark("revoking-kept-epoch")
		}
	}
}
