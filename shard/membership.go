package shard

import (
	"slices"
	"strings"

	"github.com/coordsim/coordsim/kerr"
)

// Membership for consumer (KIP-848), streams (KIP-1071) and share (KIP-932)
// groups: each type has its own heartbeat path (consumer.go,
// streams_heartbeat.go, share_heartbeat.go, dispatched by heartbeatPaths)
// over the shared steps in this file, and answers what those steps ask of
// it through groupSteps (consumer_kind.go, streams_kind.go, share_kind.go).
// The request checks are heartbeat_checks.go.
//
// What is modelled: join (epoch 0), heartbeat, leave (-1), session-timeout
// fencing, group epochs bumped by joins, leaves, fences, subscription and
// topology changes, a target assignment recomputed on the heartbeat that
// finds the group epoch past the assignment epoch, and member epochs. A
// leave or a fence bumps the group epoch and leaves the group ASSIGNING;
// the next heartbeat computes the target, as Kafka does.
//
// Consumer members reconcile as Kafka's CurrentAssignmentBuilder does
// (reconcile.go, consumer.go): a member revokes before others take, a
// partition another member still owns is withheld, the epoch advances once
// the heartbeat's owned partitions acknowledge the revocation, a member that
// does not revoke within its rebalance timeout is fenced, and static members
// (group.instance.id) may leave temporarily (-2) and be replaced. Streams
// members reconcile their tasks the same way through Kafka's streams
// builder (streams_reconcile.go). Share members move to their target at
// their next heartbeat, as Kafka's do. Until every member has reconciled the
// group is RECONCILING.

// heartbeat is the type-independent part of a heartbeat request.
type heartbeat struct {
	typ                GroupType
	groupID            string
	memberID           string
	memberEpoch        int32
	clientID           string
	clientHost         string // the request's address, "" = unknown
	processID          string
	rebalanceTimeoutMs int32
	subscribedTopics   []string  // nil = unchanged
	topology           *Topology // streams join only
	// initialRebalanceScheduled: streams, the group's initial rebalance
	// delay timer is pending (StreamsGroupHeartbeatRequest).
	initialRebalanceScheduled bool
	instanceID                string       // consumer and streams: group.instance.id, "" = dynamic
	taskOffsets               []TaskOffset // streams: reported task offsets, nil = not sent
	taskEndOffsets            []TaskOffset // streams: reported task end offsets, nil = not sent
	// groupTaskOffsets: streams, the task offsets the coordinator keeps
	// for the group's members (StreamsGroupHeartbeatRequest).
	groupTaskOffsets map[string]MemberTaskOffsets
	rackID           string            // client.rack: "" = null (unchanged)
	owned            []TopicPartitions // consumer: TopicPartitions, nil = not sent
	serverAssignor   *string           // consumer: nil = unchanged
	topicRegex       *string           // consumer: nil = unchanged, "" = none
	// streams: the owned active, standby and warm-up tasks; ownedTasksSent
	// is false unless the request carried all three lists (Kafka's null).
	ownedTasks     taskSets
	ownedTasksSent bool
	// userEndpoint: streams, the member's user endpoint; nil = unchanged
	// (Kafka's maybeUpdateUserEndpoint).
	userEndpoint *Endpoint
}

// view is a working copy of a group that an operation edits before it turns
// the differences into records. It never aliases the shard's objects in a
// way that could be written.
type view struct {
	s      *Shard
	g      *group // nil for a new group
	typ    GroupType
	id     string
	epoch  int32
	aEpoch int32
	// aTimestampMs is when the target at aEpoch was computed, 0 for none
	// (assignment_interval.go).
	aTimestampMs int64
	// assignmentHeld: the group epoch passed the assignment epoch but the
	// assignment interval held the new target back.
	assignmentHeld bool
	hash           int64
	// members is sorted by id. Entries point at the group's own member
	// objects until own copies one for writing: a heartbeat that changes
	// nothing copies nothing.
	members []*member
	topo    *Topology
	// configured, when set, is the configured topology a delayed streams
	// assignment reads its partition counts from (streams_delay.go).
	configured *ConfiguredTopology
	// taskOffsets is what a streams target reads of the members' reported
	// task offsets (streams_task_offsets.go).
	taskOffsets taskOffsetsView
	// refined is the streams group's refined-assignment cache the
	// heartbeat leaves, nil for unchanged (streams_refined.go).
	refined *refinedAssignment

	records []Record
	timers  []TimerOp
	// regexes is the group's resolved regular expressions as the operation
	// edits them; regexesOwned once it is a copy (regex.go).
	regexes      map[string]resolvedRegex
	regexesOwned bool
	// assignErr is the error of a failed target computation (consumer
	// groups): the operation must fail with it.
	assignErr error
	// assignorChange is the consumer member's server assignor change, set
	// by the operations that compute a target with it (consumer_assignor.go).
	assignorChange assignorChange
	// completions answer parked classic requests: an online upgrade
	// answers the classic group's parked JoinGroup and SyncGroup
	// requests (migration_upgrade.go).
	completions []Completion
	// answeredUpgrade is what an online upgrade that answered parked
	// requests writes when the heartbeat fails after it: the classic
	// group's state without them (convertToConsumerGroup).
	answeredUpgrade []Record
	// removing is set while a member's removal writes the group epoch
	// record: Kafka's fence (streamsGroupFenceMember) writes the group's
	// stored validated topology epoch, where a heartbeat writes the one it
	// just checked.
	removing bool
}

func (s *Shard) newView(g *group, typ GroupType, id string) *view {
	initial := groupKinds[typ].initialEpoch()
	v := &view{s: s, g: g, typ: typ, id: id, epoch: initial, aEpoch: initial}
	if g != nil {
		v.epoch, v.aEpoch, v.aTimestampMs, v.topo, v.hash = g.epoch, g.assignmentEpoch, g.assignmentTimestampMs, g.topology, g.metadataHash
		v.regexes = g.regexes
		// Sorting the member pointers by id, not a list of ids, saves the
		// ids' slice; the ids are unique, so map order does not show.
		// One spare slot: a joining member is inserted without a copy.
		v.members = make([]*member, 0, len(g.members)+1)
		for _, m := range g.members {
			v.members = append(v.members, m)
		}
		slices.SortFunc(v.members, func(a, b *member) int { return strings.Compare(a.id, b.id) })
	}
	return v
}

// own returns member i as a copy the view may write. A member is the
// view's own once it is not the group's object: copied by own, or created
// by the operation (which the group does not hold under its id).
func (v *view) own(i int) *member {
	m := v.members[i]
	if v.g != nil && v.g.members[m.id] == m {
		c := *m
		v.members[i] = &c
	}
	return v.members[i]
}

func (v *view) find(id string) (int, *member) {
	i, ok := slices.BinarySearchFunc(v.members, id, func(m *member, id string) int {
		if m.id < id {
			return -1
		} else if m.id > id {
			return 1
		}
		return 0
	})
	if !ok {
		return i, nil
	}
	return i, v.members[i]
}

// validateHeartbeat runs Kafka's request checks of the heartbeat's type
// (heartbeat_checks.go, on the request as the shard reads it: "" is null,
// and the lists a shard request cannot send as null count as sent), then
// coordsim's own bounds on ids, topic names, owned partitions and tasks,
// and topologies.
func (s *Shard) validateHeartbeat(h *heartbeat) error {
	if err := groupKinds[h.typ].checkRequest(s, h); err != nil {
		return err
	}
	return validateHeartbeatBounds(h)
}

// validateHeartbeatBounds are coordsim's bounds on a heartbeat that passed
// Kafka's checks: ids and topic names it can store, owned partitions and
// tasks it can read, a positive rebalance timeout on a join (Kafka only
// refuses -1), and a topology it can plan.
func validateHeartbeatBounds(h *heartbeat) error {
	if err := ValidateGroupID(h.groupID); err != nil {
		return kerr.InvalidRequest.WithMessage("GroupId is invalid: %v", err)
	}
	if err := validateMemberID(h.memberID); err != nil {
		return err
	}
	if err := validateRackID(h.rackID); err != nil {
		return err
	}
	if err := validateOwnedPartitions(h.owned); err != nil {
		return err
	}
	if err := validateOwnedTasks(&h.ownedTasks); err != nil {
		return err
	}
	for _, t := range h.subscribedTopics {
		if err := validateTopicName(t); err != nil {
			return kerr.InvalidRequest.WithMessage("subscribed topic: %v", err)
		}
	}
	if h.memberEpoch == JoinGroupMemberEpoch && h.rebalanceTimeoutMs == RebalanceTimeoutNotSent && groupKinds[h.typ].rebalanceTimeouts() {
		return kerr.InvalidRequest.WithMessage("RebalanceTimeoutMs must be provided in first request.")
	}
	if h.topology != nil {
		if err := validateTopology(h.topology); err != nil {
			return err
		}
	}
	return nil
}

// heartbeatResult is the type-independent outcome of a heartbeat.
type heartbeatResult struct {
	memberEpoch    int32
	assignment     []TopicPartitions
	standby        []TopicPartitions // streams
	warmup         []TopicPartitions // streams
	sendAssignment bool
	staleTopology  bool
	// topicStatus is the streams topology's topic configuration when it is
	// not ready (MISSING_SOURCE_TOPICS, INCORRECTLY_PARTITIONED_TOPICS,
	// MISSING_INTERNAL_TOPICS with the topics to create); nil when ready.
	topicStatus *configuredTopology
	// memberTopologyEpoch is the streams member's topology epoch, for the
	// STALE_TOPOLOGY detail.
	memberTopologyEpoch int32
	// converted is the view a conversion of another type's group started
	// from, nil without one; when the heartbeat fails, what it answered
	// stays (view.answeredUpgrade).
	converted *view
	// assignmentDelay: the streams group's initial rebalance delay or its
	// assignment interval held back its target assignment; the
	// ASSIGNMENT_DELAYED status detail saying which, "" for none.
	assignmentDelay string
	// replacedStatic is the static member a streams join replaced (its
	// instance id's member that left with -2), nil for none.
	replacedStatic *member
	view           *view
}

// doHeartbeat runs a heartbeat against the latest state and returns the
// records it implies. It changes nothing in the shard.
func (s *Shard) doHeartbeat(nowMs int64, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if err := s.validateHeartbeat(h); err != nil {
		return out, err
	}
	g := s.lookup(h.groupID)
	if out, ok := s.steadyHeartbeat(nowMs, g, h); ok {
		return out, nil
	}
	if g != nil && g.typ != h.typ {
		v, ok, err := groupKinds[g.typ].convertTo(s, nowMs, g, h)
		if err != nil {
			return heartbeatResult{converted: v}, err
		}
		if !ok {
			return out, notTypeErr(h.groupID, h.typ)
		}
		out, err = heartbeatPaths[h.typ](s, nowMs, v, h)
		out.converted = v
		return out, err
	}
	if g == nil && h.memberEpoch != 0 {
		// Kafka looks the group up first, for a leave too; a leave (-1,
		// -2) looks it up by id alone (GroupMetadataManager.group), so its
		// message names no type.
		if h.memberEpoch < 0 {
			return out, kerr.GroupIDNotFound.WithMessage("Group %s not found.", h.groupID)
		}
		return out, kerr.GroupIDNotFound.WithMessage("%s group %s not found.", groupKinds[h.typ].title(), h.groupID)
	}
	return heartbeatPaths[h.typ](s, nowMs, s.newView(g, h.typ, h.groupID), h)
}

// steadyHeartbeat answers the common heartbeat that changes nothing (a
// member at its epoch, reconciled, in a group whose assignment is settled
// and whose topic metadata is unchanged) without building a view: no
// records, the session timer re-armed. The slow path gives the same answer;
// the property tests compare their records and responses.
func (s *Shard) steadyHeartbeat(nowMs int64, g *group, h *heartbeat) (heartbeatResult, bool) {
	var out heartbeatResult
	if g == nil || g.typ != h.typ || h.memberEpoch <= 0 || h.topology != nil || h.subscribedTopics != nil {
		return out, false
	}
	m := g.members[h.memberID]
	if m != nil && (h.serverAssignor != nil && *h.serverAssignor != m.consumerPart().serverAssignor ||
		h.topicRegex != nil && *h.topicRegex != m.consumerPart().topicRegex || s.regexRefreshDue(g, m, nowMs)) {
		return out, false
	}
	if m == nil || h.memberEpoch != m.memberEpoch || g.epoch != g.assignmentEpoch || m.memberEpoch != g.assignmentEpoch ||
		m.state != MemberStable || m.classic != nil || !equalAssignment(m.assigned, m.target) || s.steadyMetadataHash(g) != g.metadataHash ||
		!m.streamsPart().heldIsTarget() {
		return out, false
	}
	if h.instanceID != "" && h.instanceID != m.instanceID() || h.rebalanceTimeoutMs != RebalanceTimeoutNotSent && h.rebalanceTimeoutMs != m.rebalanceTimeoutMs ||
		h.rackID != "" && h.rackID != m.rackID || h.userEndpoint != nil && !sameEndpoint(h.userEndpoint, m.userEndpoint()) ||
		groupKinds[h.typ].steadyChanged(s, g, m, h) {
		return out, false
	}
	// The view and its one timer share an allocation: the steady path's only
	// one on the shard.
	st := &struct {
		view  view
		timer [1]TimerOp
	}{
		view: view{s: s, g: g, typ: g.typ, id: g.id, epoch: g.epoch, aEpoch: g.assignmentEpoch, aTimestampMs: g.assignmentTimestampMs,
			hash: g.metadataHash, topo: g.topology},
		timer: [1]TimerOp{{
			Key:        m.timerKey(g.id),
			DeadlineMs: nowMs + int64(s.sessionTimeoutMs(h.typ, g.id)),
			Task:       Task{Kind: TaskSessionTimeout, Type: h.typ, GroupID: g.id, MemberID: m.id},
		}},
	}
	v := &st.view
	v.timers = st.timer[:]
	if s.cfg.Mutants.HeartbeatKeepsSessionTimer {
		v.timers = nil
	}
	out.memberEpoch, out.assignment, out.view = m.memberEpoch, m.assigned, v
	out.standby, out.warmup = m.streamsPart().standby, m.streamsPart().warmup
	out.sendAssignment = h.fullRequest() // a full request that changes nothing
	if g.topology != nil {               // streams groups only
		out.staleTopology, out.memberTopologyEpoch = m.topologyEpoch() < g.topology.Epoch, m.topologyEpoch()
		var err error
		if out.topicStatus, err = s.streamsTopicStatus(g.topology); err != nil {
			return heartbeatResult{}, false // the slow path answers the error
		}
	}
	return out, true
}

// heartbeatPaths are the heartbeat pipelines, one per group type, each in
// its own file and reading top to bottom like Kafka's method
// (consumer.go, streams_heartbeat.go, share_heartbeat.go).
var heartbeatPaths = [numGroupTypes]func(s *Shard, nowMs int64, v *view, h *heartbeat) (heartbeatResult, error){
	Consumer: (*Shard).consumerHeartbeatOn,
	Streams:  (*Shard).streamsHeartbeatOn,
	Share:    (*Shard).shareHeartbeatOn,
}

// groupSteps is what the shared steps ask of a group type: its name in
// messages, its assignor and its records. Each type's implementation lives
// in its own file (consumer_kind.go, streams_kind.go, share_kind.go), so a
// new type is a new entry in groupKinds, not a new arm in every switch.
type groupSteps interface {
	// title is the type as Kafka's messages name it ("Consumer group g
	// not found.").
	title() string
	// assign computes the group's new target and writes its records (the
	// group epoch has passed the assignment epoch); an assignor's error
	// goes to v.assignErr.
	assign(v *view)
	memberMetadataRecord(v *view, m *member, tombstone bool) Record
	groupEpochRecord(v *view) Record
	targetRecord(v *view, m *member) Record
	targetMemberRecord(v *view, id string, target []TopicPartitions, tombstone bool) Record
	targetEpochRecord(v *view) Record
	currentAssignmentRecord(v *view, m *member, tombstone bool) Record
	// subscribesTo is Kafka's Group.isSubscribedToTopic for the type.
	subscribesTo(g *group, topic string) bool
	// expiresOffsets reports whether Kafka's Group.offsetExpirationCondition
	// is present: without one, cleanupExpiredOffsets expires none of the
	// group's offsets (a classic group in a rebalance).
	expiresOffsets(g *group) bool
	// earlyState is the state maybeUpdateGroupState settles before the
	// epochs are compared (a share group with members is STABLE, a
	// streams group without a ready topology NOT_READY), ok false when the
	// epochs decide.
	earlyState(g *group, ready readiness) (state GroupState, ok bool)
	// setting picks the type's own one of a key Kafka keeps per type
	// (group.streams.*, group.share.*, group.consumer.*).
	setting(streams, share, consumer int32) int32
	// readsTopology: the group's metadata hash covers its topology's
	// source topics (streams), not its members' subscriptions.
	readsTopology() bool
	// rebalanceTimeouts: a member has a rebalance timer to cancel when it
	// leaves (consumer and streams members revoke; share members do not).
	rebalanceTimeouts() bool
	// steadyChanged reports what the type's steady heartbeat path must
	// leave to the slow path beyond the shared checks (steadyHeartbeat).
	steadyChanged(s *Shard, g *group, m *member, h *heartbeat) bool
	// checkMemberRemoval and forgetMember are replay's removal of a
	// member: the type's check of its indexes, then dropping the member
	// from them (the group is mutable by then).
	checkMemberRemoval(r Record, g *group, old *member) error
	forgetMember(g *group, old *member)
	// checkRequest is Kafka's request checks of the type's heartbeat
	// (heartbeat_checks.go) on the shard's request, where "" is null and
	// the lists it cannot send as null count as sent.
	checkRequest(s *Shard, h *heartbeat) error
	// convertsEmptyClassic: a join converts an empty classic group of the
	// same id to this type ("Converted the empty classic group to a
	// <type> group"); share groups do not.
	convertsEmptyClassic() bool

	// The steps below are asked by the shard's shared code outside the
	// heartbeat paths (state, describe, offsets, deletion, the KIP-1331
	// cleanup).

	// deriveState is Kafka's maybeUpdateGroupState for the type; ready is
	// topologyReady over the shard's metadata image.
	deriveState(g *group, ready readiness) GroupState
	// initialEpoch is a new group's group epoch and target assignment
	// epoch, before its first record.
	initialEpoch() int32
	// describeMember fills the type's own fields of a member's
	// description (streams: tasks in place of partitions).
	describeMember(md *MemberDescription, m *member)
	// validateOffsetCommit, validateOffsetFetch and validateOffsetDelete
	// are the type's Group.validateOffsetCommit, validateOffsetFetch and
	// validateOffsetDelete.
	validateOffsetCommit(g *group, req commitRequest) (partitionValidator, error)
	validateOffsetFetch(g *group, memberID string, memberEpoch int32) error
	validateOffsetDelete(g *group) error
	// appendTombstones is Kafka's createGroupTombstoneRecords for the
	// type; appendTimerCancels the timers a deleted group leaves behind
	// (its cancelTimers).
	appendTombstones(records []Record, groupID string) []Record
	appendTimerCancels(ops []TimerOp, groupID string) []TimerOp
	// shouldExpire is Kafka's Group.shouldExpire: the sweep expires the
	// group's offsets and deletes it when empty (share groups: never).
	shouldExpire() bool
	// keepsDescriptionEpochs: the group stores KIP-1331 description
	// epochs, so the topology cleanup cycle lists, defers and clears it
	// (streams).
	keepsDescriptionEpochs() bool
	// convertTo answers a heartbeat of another type (h.typ) to a group of
	// this type: the view h's path goes on with when the group converts
	// (classic: an online upgrade, or an empty group's conversion), ok
	// false when the heartbeat finds a group of another type.
	convertTo(s *Shard, nowMs int64, g *group, h *heartbeat) (v *view, ok bool, err error)
}

// groupKinds are the group types' steps.
var groupKinds = [numGroupTypes]groupSteps{
	Classic:  classicSteps{},
	Consumer: consumerSteps{},
	Streams:  streamsSteps{},
	Share:    shareSteps{},
}

// The steps below are shared by the heartbeat paths, called by name.

// leave is a leaving heartbeat (epoch -1) of a streams or share member:
// the member's tombstones and a group epoch bump (removeMember).
func (v *view) leave(h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	i, m := v.find(h.memberID)
	if m == nil {
		return out, memberUnknown(h.memberID, h.groupID)
	}
	v.removeMember(i)
	out.memberEpoch = -1
	out.view = v
	return out, nil
}

// updateSubscription sets the member's subscribed topic names when the
// heartbeat sends new ones; a change is a metadata change that bumps the
// group epoch.
func updateSubscription(m *member, h *heartbeat) (changed, bump bool) {
	if h.subscribedTopics == nil {
		return false, false
	}
	subs := sortedTopics(h.subscribedTopics)
	if slices.Equal(subs, m.subscribedTopics) {
		return false, false
	}
	m.subscribedTopics = subs
	return true, true
}

// metadataHashChanged reports (and takes) a change in the partition counts
// or racks of what the group reads, which bumps the group epoch so that a
// topic that appears, grows or moves racks gets assigned anew.
func (v *view) metadataHashChanged() bool {
	hash := v.metadataHash()
	if hash == v.hash {
		return false
	}
	v.hash = hash
	return true
}

// sessionTimer (re-)arms a member's session timeout.
func (s *Shard) sessionTimer(nowMs int64, typ GroupType, groupID string, m *member) TimerOp {
	return TimerOp{
		Key:        m.timerKey(groupID),
		DeadlineMs: nowMs + int64(s.sessionTimeoutMs(typ, groupID)),
		Task:       Task{Kind: TaskSessionTimeout, Type: typ, GroupID: groupID, MemberID: m.id},
	}
}

// removeMember writes a leaving or fenced member's tombstones and bumps the
// group epoch (Kafka: current assignment, target assignment, member metadata,
// then the group epoch; consumerGroupFenceMembers). The target is not
// recomputed here: the group stays ASSIGNING until the next heartbeat. The
// one exception is the last member's removal: Kafka 4.4 then writes the
// target assignment epoch at the new group epoch (an empty group's target is
// empty), so that the group reads EMPTY, not ASSIGNING, at once.
func (v *view) removeMember(i int) { v.removeMembers(v.members[i].id) }

// removeMembers removes several members at once, each with its tombstones
// and timers, and bumps the group epoch once (a classic LeaveGroup of
// several members of a consumer group, consumerGroupFenceMembers).
func (v *view) removeMembers(ids ...string) {
	for _, id := range ids {
		i, m := v.find(id)
		if m == nil {
			continue
		}
		v.records = append(v.records,
			v.currentAssignmentRecord(m, true),
			v.targetMemberRecord(m.id, nil, true),
			v.memberMetadataRecord(m, true))
		v.members = slices.Delete(v.members, i, i+1)
		v.maybeForgetRegex(m.consumerPart().topicRegex) // only consumer members have one
		v.timers = append(v.timers, TimerOp{Key: SessionTimeoutKey(v.id, m.id), Cancel: true})
		if groupKinds[v.typ].rebalanceTimeouts() {
			v.timers = append(v.timers, TimerOp{Key: RebalanceTimeoutKey(v.id, m.id), Cancel: true})
		}
		if m.classic != nil {
			v.timers = append(v.timers, classicMemberTimerCancels(v.id, m.id)...)
		}
	}
	if !groupKinds[v.typ].readsTopology() {
		// Consumer and share groups hash what the remaining members
		// subscribe to; a streams group's removal keeps the group's hash
		// (streamsGroupFenceMember writes group.metadataHash()), so a
		// topic change is seen, and bumps, at the next heartbeat.
		v.hash = v.metadataHash()
	}
	v.epoch++
	v.removing = true
	v.records = append(v.records, v.groupEpochRecord())
	v.removing = false
	if len(v.members) == 0 {
		v.aEpoch, v.aTimestampMs = v.epoch, 0 // no target computed: the next may be at once
		v.records = append(v.records, v.targetEpochRecord())
	}
}

// maybeAssign recomputes the target assignment when the group epoch has
// passed the assignment epoch and the group's assignment interval allows
// (assignment_interval.go), writing the targets that changed and then the
// new assignment epoch.
func (v *view) maybeAssign(nowMs int64) {
	if v.epoch <= v.aEpoch {
		return
	}
	if !v.canComputeTarget(nowMs) {
		v.assignmentHeld = true
		return
	}
	v.aTimestampMs = nowMs
	// Each group type has its assignor: share groups the KIP-932 simple
	// assignor (share_assignor.go), which may share a partition among
	// several members; consumer groups the broker's server assignors
	// (consumer_assignor.go); streams groups the sticky task assignor
	// (streams_assignor.go). An assignor's error fails the heartbeat.
	groupKinds[v.typ].assign(v)
}

// setTargets gives each member its new target, then writes the new
// assignment epoch.
func (v *view) setTargets(targets []taskSets) {
	v.records = slices.Grow(v.records, len(v.members)+2)
	for i := range v.members {
		v.setTarget(i, targets[i])
	}
	v.aEpoch = v.epoch
	v.records = append(v.records, v.targetEpochRecord())
}

// activeOnly wraps per-member partitions as targets with no standby or
// warm-up tasks (consumer and share groups).
func activeOnly(targets [][]TopicPartitions) []taskSets {
	out := make([]taskSets, len(targets))
	for i, t := range targets {
		out[i][roleActive] = t
	}
	return out
}

// taskSpace maps a streams topology onto the assignor's topic space: each
// subtopology is a "topic" with as many partitions as it has tasks, the
// largest partition count among its source topics (0 when one is missing,
// which leaves the group NOT_READY and unassigned).
func (v *view) taskSpace() ([]string, func(string) int32) {
	partitionsOf, ready := v.s.TopicPartitions, v.topo != nil && v.s.topologyReady(v.topo)
	if c := v.configured; c != nil {
		// The delayed assignment reads the configured topology's counts.
		partitionsOf, ready = c.partitionsOf, topologyReady(v.topo, c.partitionsOf)
	}
	// Kafka computes no assignment while the topology is not ready.
	if !ready {
		return nil, func(string) int32 { return 0 }
	}
	tasks := map[string]int32{}
	var ids []string
	if v.topo.hasInternalTopics() {
		// InternalTopicManager's computeNumberOfTasks over the decided
		// repartition counts (internal_topics.go).
		c, _ := configureTopics(v.topo, partitionsOf)
		for _, st := range v.topo.Subtopologies {
			tasks[st.ID] = c.numberOfTasks(st.ID)
			ids = append(ids, st.ID)
		}
		slices.Sort(ids)
		return ids, func(id string) int32 { return tasks[id] }
	}
	for _, st := range v.topo.Subtopologies {
		var n int32
		ready := true
		for _, t := range st.SourceTopics {
			p := partitionsOf(t)
			if p == 0 {
				ready = false
			}
			n = max(n, p)
		}
		for _, t := range st.RepartitionSourceTopics {
			n = max(n, partitionsOf(t.Name))
		}
		if !ready {
			n = 0
		}
		tasks[st.ID] = n
		ids = append(ids, st.ID)
	}
	slices.Sort(ids)
	return ids, func(id string) int32 { return tasks[id] }
}

// setTarget gives member i a new target assignment (for a streams member
// its active, standby and warm-up tasks; other types use roleActive only)
// and writes its target record when the target changed.
func (v *view) setTarget(i int, target taskSets) {
	m := v.members[i]
	if cur := m.targets(); cur.equal(&target) {
		return
	}
	m = v.own(i)
	m.target = target[roleActive]
	m.setTargetRoles(target[roleStandby], target[roleWarmup])
	v.records = append(v.records, v.targetRecord(m))
}

// The records of the shared steps are each group type's own (groupKind).

func (v *view) memberMetadataRecord(m *member, tombstone bool) Record {
	return groupKinds[v.typ].memberMetadataRecord(v, m, tombstone)
}

func (v *view) groupEpochRecord() Record { return groupKinds[v.typ].groupEpochRecord(v) }

// targetRecord is member m's target assignment record.
func (v *view) targetRecord(m *member) Record { return groupKinds[v.typ].targetRecord(v, m) }

func (v *view) targetMemberRecord(id string, target []TopicPartitions, tombstone bool) Record {
	return groupKinds[v.typ].targetMemberRecord(v, id, target, tombstone)
}

func (v *view) targetEpochRecord() Record { return groupKinds[v.typ].targetEpochRecord(v) }

func (v *view) currentAssignmentRecord(m *member, tombstone bool) Record {
	return groupKinds[v.typ].currentAssignmentRecord(v, m, tombstone)
}

// fenceMember is the session-timeout path: the same records as a leave
// (Kafka's consumerGroupFenceMemberOperation). With epoch >= 0 it is the
// rebalance-timeout path, which fences the member only if it is still at
// that epoch (scheduleConsumerGroupRebalanceTimeout).
func (s *Shard) fenceMember(nowMs int64, typ GroupType, groupID, memberID string, epoch int32) (Result[struct{}], bool) {
	var res Result[struct{}]
	g := s.lookup(groupID)
	if g == nil || g.typ != typ {
		return res, false
	}
	v := s.newView(g, typ, groupID)
	_, m := v.find(memberID)
	if m == nil || epoch >= 0 && m.memberEpoch != epoch {
		return res, false
	}
	v.fenceMembers(nowMs, m.id)
	res.Records, res.Timers = v.records, v.timers
	return res, true
}

// metadataHash fingerprints the topics the group reads with their partition
// counts: subscriptions for consumer and share groups, the topology's source
// topics for streams groups. 0 means "reads nothing".
func (v *view) metadataHash() int64 {
	var h topicHasher
	if groupKinds[v.typ].readsTopology() {
		h.topology(v.topo)
	} else {
		for _, m := range v.members {
			h.member(m)
		}
	}
	return h.sum(v.s)
}

// groupMetadataHash is metadataHash for a group as stored, without a view.
// The hash is a sum, so the members' order (the map's) does not matter. It
// loops over the map itself rather than taking an iterator shared with
// metadataHash: ranging over an iterator function moved the hasher and the
// loop body to the heap, three allocations per steady-state heartbeat.
func (s *Shard) groupMetadataHash(g *group) int64 {
	var h topicHasher
	if groupKinds[g.typ].readsTopology() {
		h.topology(g.topology)
	} else {
		for _, m := range g.members {
			h.member(m)
		}
	}
	return h.sum(s)
}

// topicHasher collects the unique topics of a group and hashes them. The
// hash of the set is the sum of each topic's FNV-1a hash (over its name,
// partition count and, when the image has them, its partitions' racks:
// topicMetadataHash), so it needs neither sorting nor, for up to eight
// topics, any allocation: a steady-state heartbeat computes it for free.
type topicHasher struct {
	small [8]string
	n     int
	more  map[string]bool // beyond eight unique topics; only looked up
}

func (h *topicHasher) add(topics ...string) {
	for _, t := range topics {
		if h.has(t) {
			continue
		}
		if h.n < len(h.small) {
			h.small[h.n] = t
			h.n++
			continue
		}
		if h.more == nil {
			h.more = map[string]bool{}
		}
		h.more[t] = true
	}
}

// member adds what a consumer or share member reads.
func (h *topicHasher) member(m *member) {
	h.add(m.subscribedTopics...)
	h.add(m.consumerPart().regexTopics...)
}

func (h *topicHasher) has(t string) bool {
	for _, x := range h.small[:h.n] {
		if x == t {
			return true
		}
	}
	return h.more[t]
}

func (h *topicHasher) topology(t *Topology) {
	if t == nil {
		return
	}
	for _, st := range t.Subtopologies {
		h.add(st.SourceTopics...)
		h.add(st.RepartitionSourceTopicNames()...)
		h.add(st.StateChangelogTopicNames()...)
	}
}

// sum is order-independent: the map part is summed, never iterated for
// output order. Each topic's FNV-1a hash is mixed (fmix64) before it is
// added: FNV's last step moves a hash by plus or minus the prime when the
// last byte's low bit flips, so two topics created together (partition
// counts 0 to 1) could cancel out in a plain sum and hide the change (the
// differential runner's streams-validated-epoch-bump).
func (h *topicHasher) sum(s *Shard) int64 {
	var total uint64
	for _, t := range h.small[:h.n] {
		total += fmix64(s.topicMetadataHash(t))
	}
	for t := range h.more {
		total += fmix64(s.topicMetadataHash(t))
	}
	return int64(total)
}

// fmix64 is MurmurHash3's 64-bit finalizer: every input bit reaches every
// output bit.
func fmix64(k uint64) uint64 {
	k ^= k >> 33
	k *= 0xff51afd7ed558ccd
	k ^= k >> 33
	k *= 0xc4ceb93fe53a87c3
	k ^= k >> 33
	return k
}

func topicHash(t string, partitions int32) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(t); i++ {
		h = (h ^ uint64(t[i])) * 1099511628211
	}
	//lint:ignore SA4016 FNV-1a over the separator byte 0 between name and count; h ^ 0 is h, spelled out
	h = (h ^ 0) * 1099511628211
	return fnvInt32(h, partitions)
}
