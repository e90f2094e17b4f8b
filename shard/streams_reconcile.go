package shard

import (
	"slices"

	"github.com/coordsim/coordsim/kerr"
)

// Streams-group (KIP-1071) task reconciliation: Kafka's
// GroupMetadataManager.streamsGroupHeartbeat step 5 (maybeReconcile) over
// the shared CurrentAssignmentBuilder of reconcile.go, and the task
// bookkeeping of StreamsGroup (currentActiveTaskProcessId,
// currentStandbyTaskProcessIds, currentWarmupTaskProcessIds) that replay
// maintains.
//
// A member that must give up tasks stays at its epoch (UNREVOKED_TASKS)
// until its heartbeat's owned tasks no longer list them; an active task
// another member still holds is withheld (UNRELEASED_TASKS) until that
// member revokes it, so an active task never has two owners. A standby or
// warm-up task is withheld while another member of the process holds the
// same task, and an active task also while another member of the process
// holds it as a standby or warm-up (Kafka's isUnreleasedTask predicates). A
// task the member itself keeps in another role changes role in place
// (convertRoles), as Kafka 4.4 does.

// ownedTaskSets is Kafka's TasksTuple.fromHeartbeatRequest: the owned tasks
// of a heartbeat count only when it carries all three lists.
func ownedTaskSets(active, standby, warmup []TaskIDs) (taskSets, bool) {
	if active == nil || standby == nil || warmup == nil {
		return taskSets{}, false
	}
	a, s, w := tasksToPartitions3(active, standby, warmup)
	return taskSets{a, s, w}, true
}

// validateOwnedTasks refuses owned-task lists Kafka could not parse: a
// subtopology id must be set and task numbers must not be negative.
func validateOwnedTasks(owned *taskSets) error {
	for _, role := range owned {
		for _, tp := range role {
			if tp.Topic == "" {
				return kerr.InvalidRequest.WithMessage("owned tasks: SubtopologyId can't be empty.")
			}
			for _, p := range tp.Partitions {
				if p < 0 {
					return kerr.InvalidRequest.WithMessage("owned task %s_%d is negative", tp.Topic, p)
				}
			}
		}
	}
	return nil
}

// areOwnedTasksContained is GroupMetadataManager's
// areOwnedTasksContainedInAssignedTasks for every role: a missing owned
// field is never contained.
func areOwnedTasksContained(owned *taskSets, sent bool, assigned *taskSets) bool {
	if !sent {
		return false
	}
	for r := range owned {
		if len(owned[r]) > 0 && !isSubset(owned[r], assigned[r]) {
			return false
		}
	}
	return true
}

// validateStreamsEpoch is Kafka's throwIfStreamsGroupMemberEpochIsInvalid:
// epoch 0 (a rejoin) passes; an older epoch is accepted only when it is the
// previous epoch and the owned tasks are within the assignment (the
// response that carried the new epoch may have been lost).
func validateStreamsEpoch(m *member, epoch int32, h *heartbeat) error {
	return validateMemberEpoch(Streams, m, epoch, func() bool {
		cur := m.currentAssignment()
		return areOwnedTasksContained(&h.ownedTasks, h.ownedTasksSent, &cur.assigned)
	})
}

// validateOwnedTaskIDs is Kafka's throwIfRequestContainsInvalidTasks,
// applied once the topology is ready: an owned task must name a
// subtopology of the topology and a task number below its task count.
// Only a member running the group's topology epoch is checked: one still on
// an older topology (possible only with Config.StreamsTopologyUpdates, ahead
// of Kafka) reports the tasks of the topology it runs until it has revoked
// them.
func (s *Shard) validateOwnedTaskIDs(topo *Topology, memberTopologyEpoch int32, owned *taskSets) error {
	if topo == nil || memberTopologyEpoch != topo.Epoch || owned.empty() || !s.topologyReady(topo) {
		return nil
	}
	for _, role := range owned {
		for _, tp := range role {
			j := -1
			for k := range topo.Subtopologies {
				if topo.Subtopologies[k].ID == tp.Topic {
					j = k
					break
				}
			}
			if j < 0 {
				return kerr.InvalidRequest.WithMessage("Subtopology %s does not exist in the topology.", tp.Topic)
			}
			n := s.numberOfTasks(&topo.Subtopologies[j])
			for _, p := range tp.Partitions {
				if p < 0 || p >= n {
					return kerr.InvalidRequest.WithMessage("Task %d for subtopology %s is invalid. Number of tasks for this subtopology: %d", p, tp.Topic, n)
				}
			}
		}
	}
	return nil
}

// numberOfTasks is a subtopology's task count: its largest source or
// repartition source topic's partition count (taskSpace's rule).
func (s *Shard) numberOfTasks(st *Subtopology) int32 {
	var n int32
	for _, t := range st.SourceTopics {
		n = max(n, s.TopicPartitions(t))
	}
	for _, t := range st.RepartitionSourceTopics {
		n = max(n, s.TopicPartitions(t.Name))
	}
	return n
}

// reconcileStreams is maybeReconcile for member i of a streams group: one
// CurrentAssignmentBuilder step toward target at targetEpoch (the member's
// target at the assignment epoch, or nothing while the initial rebalance
// delay runs), its record, and the rebalance timer that runs while the
// member must revoke. It reports whether the member's tasks changed.
func (s *Shard) reconcileStreams(nowMs int64, v *view, i int, h *heartbeat, targetEpoch int32, target taskSets) (bool, error) {
	m := v.members[i]
	if err := s.validateOwnedTaskIDs(v.topo, m.topologyEpoch(), &h.ownedTasks); err != nil {
		return false, err
	}
	// Then the task offsets (MemberTaskOffsets.update), as Kafka reads
	// them after the owned tasks.
	if err := checkTaskOffsets(h.taskOffsets, h.taskEndOffsets); err != nil {
		return false, err
	}
	cur := m.currentAssignment()
	if cur.isReconciledTo(targetEpoch) {
		return false, nil
	}
	unreleased := v.streamsUnreleased(m.processID, &cur.assigned)
	if s.cfg.Mutants.SkipStandbyRelease && unreleased != nil {
		unreleased = activeUnreleasedOnly{unreleased} // standby and warm-up never withheld
	}
	b := currentAssignmentBuilder{
		member: cur, targetEpoch: targetEpoch, target: target,
		unreleased:          unreleased,
		owned:               h.ownedTasks,
		ownedSent:           h.ownedTasksSent,
		advanceOnRevocation: true,
		streams:             true,
		skipRevocation:      s.cfg.Mutants.SkipTaskRevocation,
	}
	next, err := b.build()
	if err != nil {
		return false, kerr.FencedMemberEpoch.WithMessage("%s", err.Error())
	}
	if next.equal(&cur) {
		return false, nil
	}
	m = v.own(i)
	m.setCurrentAssignment(next)
	v.records = append(v.records, v.currentAssignmentRecord(m, false))
	v.timers = append(v.timers, rebalanceTimeoutOp(nowMs, Streams, v.id, m))
	return !cur.assigned.equal(&next.assigned), nil
}

// convertRoles is the step Kafka 4.4's streams computeNextAssignment takes
// after the per-role differences: a task the member keeps but whose role the
// target changes moves in place, since its process already holds the task's
// state and no other member can be waiting for it.
//
//   - demoteActiveTasksToStandby: an active task the member holds that the
//     target lists as a standby is granted as a standby now, while the
//     active one is still revoked;
//   - convertReplicaRole: a standby the target lists as a warm-up, or a
//     warm-up it lists as a standby, is granted in its new role now and is
//     no longer pending revocation in its old one;
//   - applyPromotionsToActive: a standby or warm-up the target lists as
//     active is not revoked; the member keeps it in its replica role until
//     the active task is granted, which happens in this step only if
//     nothing else is left to revoke.
func (b *currentAssignmentBuilder) convertRoles(assigned taskSets, newAssigned, newPending, pendingAssignment *taskSets) {
	eachTask(assigned[roleActive], func(topic string, p int32) {
		if removeTask(&pendingAssignment[roleStandby], topic, p) {
			addTask(&newAssigned[roleStandby], topic, p)
		}
	})
	for _, c := range [...]struct{ from, to taskRole }{{roleStandby, roleWarmup}, {roleWarmup, roleStandby}} {
		eachTask(assigned[c.from], func(topic string, p int32) {
			if removeTask(&pendingAssignment[c.to], topic, p) {
				addTask(&newAssigned[c.to], topic, p)
				removeTask(&newPending[c.from], topic, p)
			}
		})
	}
	promoted := func(topic string, p int32) bool { return containsPartition(b.target[roleActive], topic, p) }
	for _, r := range [...]taskRole{roleStandby, roleWarmup} {
		eachTask(assigned[r], func(topic string, p int32) {
			if promoted(topic, p) {
				removeTask(&newPending[r], topic, p)
			}
		})
	}
	revoking := !newPending.empty() && b.ownsRevokedPartitions(newPending)
	for _, r := range [...]taskRole{roleStandby, roleWarmup} {
		eachTask(assigned[r], func(topic string, p int32) {
			grantedNow := !revoking && containsPartition(pendingAssignment[roleActive], topic, p)
			if promoted(topic, p) && !grantedNow {
				addTask(&newAssigned[r], topic, p)
			}
		})
	}
}

// eachTask calls f for every task (partition) of a, in order.
func eachTask(a []TopicPartitions, f func(topic string, p int32)) {
	for _, tp := range a {
		for _, p := range tp.Partitions {
			f(tp.Topic, p)
		}
	}
}

// addTask puts task p of topic into *a, keeping it sorted. It never writes
// into a slice *a shares: the difference's sets may alias a member's.
func addTask(a *[]TopicPartitions, topic string, p int32) {
	*a = mergeAssignments(*a, []TopicPartitions{{Topic: topic, Partitions: []int32{p}}})
}

// removeTask takes task p of topic out of *a and reports whether it was
// there; a topic left empty is dropped. Like addTask it copies.
func removeTask(a *[]TopicPartitions, topic string, p int32) bool {
	for i, tp := range *a {
		if tp.Topic != topic {
			continue
		}
		j, ok := slices.BinarySearch(tp.Partitions, p)
		if !ok {
			return false
		}
		out := slices.Clone(*a)
		if len(tp.Partitions) == 1 {
			*a = slices.Delete(out, i, i+1)
		} else {
			out[i].Partitions = slices.Delete(slices.Clone(tp.Partitions), j, j+1)
			*a = out
		}
		return true
	}
	return false
}

// streamsUnreleased returns Kafka's three isUnreleasedTask predicates for a
// member of process processID holding own, read from the group as stored
// before this heartbeat (whose records change only the heartbeating member).
func (v *view) streamsUnreleased(processID string, own *taskSets) unreleasedTasks {
	if v.g == nil {
		return nil
	}
	return &streamsUnreleasedTasks{holders: groupTaskHolders{v.g}, processID: processID, own: own}
}

// activeUnreleasedOnly withholds active tasks as its unreleasedTasks does
// and standby and warm-up tasks never (the SkipStandbyRelease mutant).
type activeUnreleasedOnly struct{ unreleasedTasks }

func (u activeUnreleasedOnly) unreleased(r taskRole, topic string, p int32) bool {
	return r == roleActive && u.unreleasedTasks.unreleased(r, topic, p)
}

// taskHolders is what the streams predicates read: the process of a task's
// active owner (Kafka's currentActiveTaskProcessId; ok is false when no
// member owns it, process "" when its owner is gone), and whether process
// holds the task in role r, standby or warm-up
// (currentStandbyTaskProcessIds, currentWarmupTaskProcessIds).
type taskHolders interface {
	activeProcess(topic string, p int32) (process string, ok bool)
	onProcess(r taskRole, topic string, p int32, process string) bool
}

// groupTaskHolders reads taskHolders from a group's owner maps.
type groupTaskHolders struct{ g *group }

func (h groupTaskHolders) activeProcess(topic string, p int32) (string, bool) {
	owner, ok := h.g.activeTaskOwners[topicPartition{topic, p}]
	if !ok {
		return "", false
	}
	if m := h.g.members[owner]; m != nil {
		return m.processID, true
	}
	return "", true
}

func (h groupTaskHolders) onProcess(r taskRole, topic string, p int32, process string) bool {
	holders := h.g.standbyTaskHolders
	if r == roleWarmup {
		holders = h.g.warmupTaskHolders
	}
	for _, id := range holders[topicPartition{topic, p}] {
		if m := h.g.members[id]; m != nil && m.processID == process {
			return true
		}
	}
	return false
}

// streamsUnreleasedTasks is the three predicates of Kafka 4.4's streams
// CurrentAssignmentBuilder (isUnreleasedActiveTask, isUnreleasedStandbyTask,
// isUnreleasedWarmupTask) over the group's lookups, for a member of process
// processID that holds own. A task the member itself holds in another role
// does not withhold it: convertRoles moves it in place.
//
//   - an active task is withheld while any member owns it active, or while
//     another member of the process holds it as a standby or warm-up;
//   - a standby while another member of the process runs it active, or any
//     member of the process (the member included) holds it as a standby, or
//     another member holds it as a warm-up;
//   - a warm-up while the process runs it active (the member included), or
//     another member of the process holds it as a standby, or any member as
//     a warm-up.
type streamsUnreleasedTasks struct {
	holders   taskHolders
	processID string
	own       *taskSets
}

func (u *streamsUnreleasedTasks) unreleased(r taskRole, topic string, p int32) bool {
	onProcess := func(role taskRole) bool { return u.holders.onProcess(role, topic, p, u.processID) }
	mine := func(role taskRole) bool { return u.own != nil && containsPartition(u.own[role], topic, p) }
	heldByAnother := func(role taskRole) bool { return onProcess(role) && !mine(role) }
	process, active := u.holders.activeProcess(topic, p)
	runOnProcess := active && process == u.processID
	switch r {
	case roleActive:
		return active || heldByAnother(roleStandby) || heldByAnother(roleWarmup)
	case roleStandby:
		return runOnProcess && !mine(roleActive) || onProcess(roleStandby) || heldByAnother(roleWarmup)
	default:
		return runOnProcess || heldByAnother(roleStandby) || onProcess(roleWarmup)
	}
}

// applyStreamsCurrentAssignment replays a streams member's reconciliation
// state and moves its tasks in the group's owner maps (Kafka's
// StreamsGroup.updateMember with maybeUpdateTaskProcessId). A record that
// would give an active task a second owner is refused before anything
// changes: Kafka throws IllegalStateException there.
func (s *Shard) applyStreamsCurrentAssignment(r *StreamsGroupCurrentMemberAssignment) error {
	if r.MemberID == "" {
		return replayErr(r, "empty member id")
	}
	g := s.lookup(r.Group)
	if g != nil && g.typ != Streams {
		return replayErr(r, "group is a %s group", g.typ)
	}
	if r.Tombstone && (g == nil || g.members[r.MemberID] == nil) {
		return nil
	}
	next := memberAssignment{}
	if !r.Tombstone {
		next = memberAssignment{state: memberStateFromStreams(r.State), epoch: r.MemberEpoch, previousEpoch: r.PreviousMemberEpoch,
			assigned: taskSets{tasksToPartitions(r.ActiveTasks), tasksToPartitions(r.StandbyTasks), tasksToPartitions(r.WarmupTasks)},
			pending: taskSets{tasksToPartitions(r.ActiveTasksPendingRevocation), tasksToPartitions(r.StandbyTasksPendingRevocation),
				tasksToPartitions(r.WarmupTasksPendingRevocation)}}
	}
	var owners map[topicPartition]string
	if g != nil {
		owners = g.activeTaskOwners
	}
	if err := checkActiveClaims(r, &next, "active task %s_%d", func(k topicPartition) error {
		if owner, ok := owners[k]; ok && owner != r.MemberID {
			return replayErr(r, "cannot set the owner of active task %s_%d to %s because the task is still owned by member %s",
				k.topic, k.partition, r.MemberID, owner)
		}
		return nil
	}); err != nil {
		return err
	}
	return s.updateMemberAssignment(r, Streams, r.MemberID, &next, (*group).removeTaskOwners, (*group).addTaskOwners)
}

// removeTaskOwners forgets member m's tasks in every role (Kafka's
// maybeRemoveTaskProcessId).
func (g *group) removeTaskOwners(m *member) {
	for k := range heldPartitions(m.assigned, m.pending) {
		if g.activeTaskOwners[k] == m.id {
			delete(g.activeTaskOwners, k)
		}
	}
	removeHolder(g.standbyTaskHolders, m.id, m.streamsPart().standby, m.streamsPart().pendingStandby)
	removeHolder(g.warmupTaskHolders, m.id, m.streamsPart().warmup, m.streamsPart().pendingWarmup)
}

// addTaskOwners records member m's tasks in every role (Kafka's
// addTaskProcessId); the caller has checked the active ones.
func (g *group) addTaskOwners(m *member) {
	for k := range heldPartitions(m.assigned, m.pending) {
		if g.activeTaskOwners == nil {
			g.activeTaskOwners = map[topicPartition]string{}
		}
		g.activeTaskOwners[k] = m.id
	}
	if len(m.streamsPart().standby)+len(m.streamsPart().pendingStandby) > 0 && g.standbyTaskHolders == nil {
		g.standbyTaskHolders = map[topicPartition][]string{}
	}
	addHolder(g.standbyTaskHolders, m.id, m.streamsPart().standby, m.streamsPart().pendingStandby)
	if len(m.streamsPart().warmup)+len(m.streamsPart().pendingWarmup) > 0 && g.warmupTaskHolders == nil {
		g.warmupTaskHolders = map[topicPartition][]string{}
	}
	addHolder(g.warmupTaskHolders, m.id, m.streamsPart().warmup, m.streamsPart().pendingWarmup)
}

// removeHolder takes member id off the holder lists of its standby or
// warm-up tasks (assigned and pending revocation).
func removeHolder(holders map[topicPartition][]string, id string, assigned, pending []TopicPartitions) {
	for k := range heldPartitions(assigned, pending) {
		cur := holders[k]
		if j, ok := slices.BinarySearch(cur, id); ok {
			if len(cur) == 1 {
				delete(holders, k)
			} else {
				holders[k] = slices.Delete(slices.Clone(cur), j, j+1)
			}
		}
	}
}

// addHolder puts member id on the holder lists of its standby or warm-up
// tasks (assigned and pending revocation), keeping each list sorted.
func addHolder(holders map[topicPartition][]string, id string, assigned, pending []TopicPartitions) {
	for k := range heldPartitions(assigned, pending) {
		cur := holders[k]
		if j, ok := slices.BinarySearch(cur, id); !ok {
			holders[k] = slices.Insert(slices.Clone(cur), j, id)
		}
	}
}
