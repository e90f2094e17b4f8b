package shard

// The assignment interval (Kafka 4.4's group.consumer.assignment.interval.ms,
// group.share.assignment.interval.ms and group.streams.assignment.interval.ms,
// each 1 s by default, and the groups' consumer.assignment.interval.ms,
// share.assignment.interval.ms and streams.assignment.interval.ms): a group
// computes a new target assignment at most once per interval.
// GroupMetadataManager.canComputeNextTargetAssignment:
//
//   - the target's metadata record carries when it was computed
//     (assignmentTimestamp); a target nobody computed (the group emptied,
//     or was converted from a classic group) carries 0;
//   - a heartbeat that finds the group epoch past the assignment epoch
//     computes the target when the last one carries 0, the interval is 0,
//     or the interval has passed since; otherwise the member reconciles
//     toward the last target at the last assignment epoch, and a later
//     heartbeat (any member's) computes it;
//   - a streams member held back is told so: ASSIGNMENT_DELAYED
//     "Assignment delayed due to the configured assignment interval.".
//
// Kafka 4.4 also offloads the computation to a background thread by
// default (group.*.assignor.offload.enable); coordsim computes inline, as
// Kafka does with offloading off, so a target is never computed after the
// heartbeat that could compute it.

// The details of a streams member's ASSIGNMENT_DELAYED status.
const (
	initialRebalanceDelay   = "Assignment delayed due to the configured initial rebalance delay."
	assignmentIntervalDelay = "Assignment delayed due to the configured assignment interval."
)

// canComputeTarget reports whether the group's assignment interval lets
// the view compute a new target at nowMs.
func (v *view) canComputeTarget(nowMs int64) bool {
	if v.aTimestampMs == 0 {
		return true
	}
	interval := int64(v.s.assignmentIntervalMs(v.typ, v.id))
	return interval == 0 || nowMs >= v.aTimestampMs+interval
}

// assignmentIntervalMs is the group's assignment interval: its group
// config for its type, else the broker's.
func (s *Shard) assignmentIntervalMs(typ GroupType, groupID string) int32 {
	if gt, ok := s.groupTimeouts[groupID]; ok {
		if v := pickSetting(typ, gt.StreamsAssignmentIntervalMs, gt.ShareAssignmentIntervalMs, gt.ConsumerAssignmentIntervalMs); v.Set {
			return v.Ms
		}
	}
	return groupKinds[typ].setting(s.cfg.StreamsAssignmentIntervalMs, s.cfg.ShareAssignmentIntervalMs, s.cfg.ConsumerAssignmentIntervalMs)
}

// pickSetting is groupSteps.setting for values of any type: the one of a
// per-type triple a group of type typ reads.
func pickSetting[T any](typ GroupType, streams, share, consumer T) T {
	return [...]T{consumer, share, streams}[groupKinds[typ].setting(2, 1, 0)]
}
