package shard

import (
	"slices"
	"strings"

	"github.com/coordsim/coordsim/kerr"
)

// Membership for consumer (KIP-848), streams (KIP-1071) and share (KIP-932)
// groups, in one engine.
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
	processID          string
	rebalanceTimeoutMs int32
	subscribedTopics   []string  // nil = unchanged
	topology           *Topology // streams join only
	// initialRebalanceScheduled: streams, the group's initial rebalance
	// delay timer is pending (StreamsGroupHeartbeatRequest).
	initialRebalanceScheduled bool
	instanceID                string            // consumer: group.instance.id, "" = dynamic
	rackID                    string            // client.rack: "" = null (unchanged)
	owned                     []TopicPartitions // consumer: TopicPartitions, nil = not sent
	serverAssignor            *string           // consumer: nil = unchanged
	topicRegex                *string           // consumer: nil = unchanged, "" = none
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
	hash   int64
	// members is sorted by id. Entries point at the group's own member
	// objects until own copies one for writing: a heartbeat that changes
	// nothing copies nothing.
	members []*member
	topo    *Topology

	records []Record
	timers  []TimerOp
	// regexes is the group's resolved regular expressions as the operation
	// edits them; regexesOwned once it is a copy (regex.go).
	regexes      map[string]resolvedRegex
	regexesOwned bool
	// assignErr is the error of a failed target computation (consumer
	// groups): the operation must fail with it.
	assignErr error
}

func (s *Shard) newView(g *group, typ GroupType, id string) *view {
	v := &view{s: s, g: g, typ: typ, id: id}
	if g != nil {
		v.epoch, v.aEpoch, v.topo, v.hash = g.epoch, g.assignmentEpoch, g.topology, g.metadataHash
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

func (s *Shard) maxSize(typ GroupType) int {
	switch typ {
	case Streams:
		return s.cfg.StreamsMaxSize
	case Share:
		return s.cfg.ShareMaxSize
	}
	return s.cfg.ConsumerMaxSize
}

// validateHeartbeat is Kafka's throwIf*HeartbeatRequestIsInvalid.
func validateHeartbeat(h *heartbeat) error {
	if h.groupID == "" {
		return kerr.InvalidRequest.WithMessage("GroupId can't be empty.")
	}
	if err := ValidateGroupID(h.groupID); err != nil {
		return kerr.InvalidRequest.WithMessage("GroupId is invalid: %v", err)
	}
	if h.memberID == "" {
		return kerr.InvalidRequest.WithMessage("MemberId can't be empty.")
	}
	if err := validateMemberID(h.memberID); err != nil {
		return err
	}
	if err := validateRackID(h.rackID); err != nil {
		return err
	}
	if h.memberEpoch < -2 {
		return kerr.InvalidRequest.WithMessage("MemberEpoch is %d, but must be greater than or equal to -2.", h.memberEpoch)
	}
	if h.typ == Share && h.memberEpoch == -2 {
		// Share groups have no static members, so no temporary leave.
		return kerr.InvalidRequest.WithMessage("MemberEpoch is -2, but share groups have no static members.")
	}
	if h.typ == Consumer {
		if err := validateConsumerFields(h); err != nil {
			return err
		}
	}
	if h.typ == Streams {
		if err := validateOwnedTasks(&h.ownedTasks); err != nil {
			return err
		}
	}
	for _, t := range h.subscribedTopics {
		if err := validateTopicName(t); err != nil {
			return kerr.InvalidRequest.WithMessage("subscribed topic: %v", err)
		}
	}
	if h.memberEpoch == 0 {
		if h.rebalanceTimeoutMs <= 0 && h.typ != Share {
			return kerr.InvalidRequest.WithMessage("RebalanceTimeoutMs must be provided in first request.")
		}
		if h.typ == Share && len(h.subscribedTopics) == 0 {
			return kerr.InvalidRequest.WithMessage("SubscribedTopicNames must be set in first request.")
		}
		if h.typ == Consumer && h.subscribedTopics == nil && h.topicRegex == nil {
			// Kafka accepts an empty list (a member subscribed to nothing);
			// only a missing one is refused.
			return kerr.InvalidRequest.WithMessage("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.")
		}
		if h.typ == Streams && h.topology == nil {
			return kerr.InvalidRequest.WithMessage("Topology must be non-null when (re-)joining.")
		}
	} else if h.topology != nil {
		return kerr.InvalidRequest.WithMessage("Topology can only be provided when (re-)joining.")
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
	// assignmentDelayed: the streams group's initial rebalance delay held
	// back its target assignment (ASSIGNMENT_DELAYED).
	assignmentDelayed bool
	view              *view
}

// doHeartbeat runs a heartbeat against the latest state and returns the
// records it implies. It changes nothing in the shard.
func (s *Shard) doHeartbeat(nowMs int64, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if err := validateHeartbeat(h); err != nil {
		return out, err
	}
	g := s.lookup(h.groupID)
	if out, ok := s.steadyHeartbeat(nowMs, g, h); ok {
		return out, nil
	}
	if g != nil && g.typ != h.typ {
		if g.typ == Classic && !g.notEmpty() && h.memberEpoch == 0 && h.typ != Share {
			// "Converted the empty classic group to a <type> group": its
			// tombstone goes first; offsets, keyed by group id, stay.
			v := s.newView(nil, h.typ, h.groupID)
			v.records = append(v.records, &GroupMetadata{Group: h.groupID, Tombstone: true})
			if h.typ == Consumer {
				return s.consumerHeartbeatOn(nowMs, v, h)
			}
			return s.heartbeatOn(nowMs, v, h)
		}
		return out, notTypeErr(h.groupID, h.typ)
	}
	if g == nil && h.memberEpoch != 0 {
		// Kafka looks the group up first, for a leave too.
		return out, kerr.GroupIDNotFound.WithMessage("%s group %s not found.", groupTitle(h.typ), h.groupID)
	}
	if h.typ == Consumer {
		return s.consumerHeartbeatOn(nowMs, s.newView(g, h.typ, h.groupID), h)
	}
	return s.heartbeatOn(nowMs, s.newView(g, h.typ, h.groupID), h)
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
	if m != nil && (h.serverAssignor != nil && *h.serverAssignor != m.serverAssignor ||
		h.topicRegex != nil && *h.topicRegex != m.topicRegex || s.regexRefreshDue(g, nowMs)) {
		return out, false
	}
	if m == nil || h.memberEpoch != m.memberEpoch || g.epoch != g.assignmentEpoch || m.memberEpoch != g.assignmentEpoch ||
		m.state != MemberStable || !equalAssignment(m.assigned, m.target) || s.groupMetadataHash(g) != g.metadataHash ||
		!equalAssignment(m.standby, m.targetStandby) || !equalAssignment(m.warmup, m.targetWarmup) {
		return out, false
	}
	if h.instanceID != "" && h.instanceID != m.instanceID || h.rebalanceTimeoutMs > 0 && h.rebalanceTimeoutMs != m.rebalanceTimeoutMs ||
		h.rackID != "" && h.rackID != m.rackID || h.userEndpoint != nil && !sameEndpoint(h.userEndpoint, m.userEndpoint) ||
		h.typ == Streams && streamsClientChanged(m, h) {
		return out, false
	}
	if h.typ == Streams && s.validateOwnedTaskIDs(g.topology, m.topologyEpoch, &h.ownedTasks) != nil {
		return out, false // the slow path refuses the request
	}
	if h.typ == Streams && g.lastNumStandbyReplicas != s.streamsNumStandbyReplicas(g.id) {
		return out, false // the slow path bumps the group epoch
	}
	// The view and its one timer share an allocation: the steady path's only
	// one on the shard.
	st := &struct {
		view  view
		timer [1]TimerOp
	}{
		view: view{s: s, g: g, typ: g.typ, id: g.id, epoch: g.epoch, aEpoch: g.assignmentEpoch, hash: g.metadataHash, topo: g.topology},
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
	out.standby, out.warmup = m.standby, m.warmup
	out.sendAssignment = h.fullRequest() // a full request that changes nothing
	if h.typ == Streams && g.topology != nil {
		out.staleTopology, out.memberTopologyEpoch = m.topologyEpoch < g.topology.Epoch, m.topologyEpoch
		var err error
		if out.topicStatus, err = s.streamsTopicStatus(g.topology); err != nil {
			return heartbeatResult{}, false // the slow path answers the error
		}
	}
	return out, true
}

func groupTitle(t GroupType) string {
	switch t {
	case Streams:
		return "Streams"
	case Share:
		return "Share"
	}
	return "Consumer"
}

func (s *Shard) heartbeatOn(nowMs int64, v *view, h *heartbeat) (heartbeatResult, error) {
	var out heartbeatResult
	if h.memberEpoch < 0 {
		i, m := v.find(h.memberID)
		if m == nil {
			return out, memberUnknown(h.memberID, h.groupID)
		}
		v.removeMember(i)
		out.memberEpoch = -1
		out.view = v
		return out, nil
	}
	i, m := v.find(h.memberID)
	bump := false
	if m == nil && h.typ == Share && len(v.members) >= s.maxSize(h.typ) {
		// Kafka's throwIfShareGroupIsFull runs before the member lookup, so
		// an unknown member of a full share group is refused for the size
		// whatever its epoch (docs/share-groups.md §2.2 steps 3-4).
		return out, groupFull(h.typ, s.maxSize(h.typ))
	}
	switch {
	case m == nil && h.memberEpoch != 0:
		return out, memberUnknown(h.memberID, h.groupID)
	case m == nil:
		if len(v.members) >= s.maxSize(h.typ) {
			return out, groupFull(h.typ, s.maxSize(h.typ))
		}
		m = &member{id: h.memberID, hasMetadata: true}
		v.members = slices.Insert(v.members, i, m)
		bump = true
	case h.typ == Streams:
		// Kafka's getOrMaybeCreateDynamicStreamsGroupMember validates an
		// existing member's epoch on every heartbeat; a rejoin (epoch 0)
		// passes (validateMemberEpoch).
		if err := validateStreamsEpoch(m, h.memberEpoch, h); err != nil {
			return out, err
		}
	default:
		// getOrMaybeSubscribeShareGroupMember: the same for share members.
		if err := validateMemberEpoch(Share, m, h.memberEpoch, nil); err != nil {
			return out, err
		}
	}
	// The assignment goes out on a join or rejoin (epoch 0), on a share
	// member's full request (SubscribedTopicNames set: Kafka's
	// shareGroupHeartbeat isFullRequest, which a client sends after an
	// error) and when it changed (below).
	out.sendAssignment = h.memberEpoch == 0 || h.fullRequest()
	m = v.own(i) // the heartbeating member may change; a copy is cheap
	changed := bump
	if h.typ == Streams {
		changed = updateStreamsClient(m, h) || changed // any epoch (streams_member_update.go)
	}
	if h.memberEpoch == 0 && h.typ != Streams {
		changed = changed || m.clientID != h.clientID || m.processID != h.processID || m.rebalanceTimeoutMs != h.rebalanceTimeoutMs
		m.clientID, m.processID, m.rebalanceTimeoutMs = h.clientID, h.processID, h.rebalanceTimeoutMs
	} else if h.memberEpoch == 0 {
		changed = changed || m.rebalanceTimeoutMs != h.rebalanceTimeoutMs
		m.rebalanceTimeoutMs = h.rebalanceTimeoutMs
	} else if h.rebalanceTimeoutMs > 0 && h.rebalanceTimeoutMs != m.rebalanceTimeoutMs {
		// Kafka's maybeUpdateRebalanceTimeoutMs: a heartbeat that sends a
		// rebalance timeout sets it, join or not (the consumer path does the
		// same in consumerHeartbeatOn).
		m.rebalanceTimeoutMs, changed = h.rebalanceTimeoutMs, true
	}
	changed = updateRack(m, h) || changed
	if h.userEndpoint != nil && !sameEndpoint(h.userEndpoint, m.userEndpoint) {
		// maybeUpdateUserEndpoint: a streams member metadata change (the
		// group epoch bumps below, as for any).
		e := *h.userEndpoint
		m.userEndpoint, changed = &e, true
	}
	if h.serverAssignor != nil && *h.serverAssignor != m.serverAssignor {
		// Kafka writes the member record; the group epoch is not bumped.
		m.serverAssignor, changed = *h.serverAssignor, true
	}
	if h.subscribedTopics != nil {
		subs := sortedTopics(h.subscribedTopics)
		if !slices.Equal(subs, m.subscribedTopics) {
			m.subscribedTopics = subs
			changed, bump = true, true
		}
	}
	var regexRecords []Record
	if h.typ == Consumer {
		// The member's regex, then a refresh of the group's (regex.go).
		recs, c, b, err := v.updateRegularExpressions(nowMs, i, h.topicRegex)
		if err != nil {
			return out, err
		}
		m = v.members[i]
		regexRecords, changed, bump = recs, changed || c, bump || b
	}
	if h.typ == Streams && h.memberEpoch == 0 {
		t := cloneTopology(h.topology) // the group and the record must not alias the request
		install, err := s.topologyOnJoin(v.topo, &t)
		if err != nil {
			return out, err
		}
		if install {
			v.topo = &t
			v.records = append(v.records, &StreamsGroupTopology{Group: v.id, Topology: t})
			bump = true
		}
		if m.topologyEpoch != t.Epoch {
			m.topologyEpoch = t.Epoch
			changed, bump = true, true
		}
	}
	if changed {
		v.records = append(v.records, v.memberMetadataRecord(m, false))
		// Kafka's hasStreamsMemberMetadataChanged: any change to a streams
		// member's metadata (rack, client, process, rebalance timeout,
		// topology epoch) bumps the group epoch; consumer and share groups
		// bump only for their subscriptions.
		bump = bump || h.typ == Streams
	}
	v.records = append(v.records, regexRecords...)
	// A change in the partition counts or racks of what the group reads
	// bumps the group epoch, so a topic that appears, grows or moves racks
	// gets assigned anew.
	if hash := v.metadataHash(); hash != v.hash {
		v.hash, bump = hash, true
	}
	if v.typ == Streams && v.assignmentConfigsChanged() {
		bump = true
	}
	if bump {
		v.bumpGroupEpoch()
	}
	var targetEpoch int32
	var target []TopicPartitions
	if v.typ == Streams && v.streamsInitialRebalanceDelay(nowMs, h) {
		// Kafka gives the members no tasks, at epoch max(1, assignment
		// epoch), until the delay's timer computes the target (streams_delay.go).
		targetEpoch, target, out.assignmentDelayed = max(1, v.aEpoch), nil, true
	} else {
		v.maybeAssign()
		targetEpoch, target = v.aEpoch, v.members[i].target
	}
	if h.typ == Streams {
		// Reconcile with revocation (streams_reconcile.go).
		targetTasks := taskSets{}
		if !out.assignmentDelayed {
			targetTasks = v.members[i].targets()
		}
		changed, err := s.reconcileStreams(nowMs, v, i, h, targetEpoch, targetTasks)
		if err != nil {
			return out, err
		}
		m = v.members[i]
		out.sendAssignment = out.sendAssignment || changed
	} else if m.memberEpoch != targetEpoch || !equalAssignment(m.assigned, target) {
		// Share members move straight to their target, as Kafka's do.
		prev := m.memberEpoch
		m.previousMemberEpoch, m.memberEpoch, m.assigned = prev, targetEpoch, target
		v.records = append(v.records, v.currentAssignmentRecord(m, false))
		out.sendAssignment = true
	}
	v.timers = append(v.timers, TimerOp{
		Key:        m.timerKey(v.id),
		DeadlineMs: nowMs + int64(s.sessionTimeoutMs(h.typ, v.id)),
		Task:       Task{Kind: TaskSessionTimeout, Type: h.typ, GroupID: v.id, MemberID: m.id},
	})
	out.memberEpoch = m.memberEpoch
	out.assignment, out.standby, out.warmup = m.assigned, m.standby, m.warmup
	if h.typ == Streams && v.topo != nil {
		out.staleTopology, out.memberTopologyEpoch = m.topologyEpoch < v.topo.Epoch, m.topologyEpoch
		var err error
		if out.topicStatus, err = s.streamsTopicStatus(v.topo); err != nil {
			return out, err // Kafka: configureTopics throws StreamsInvalidTopologyException
		}
	}
	out.view = v
	return out, nil
}

// removeMember writes a leaving or fenced member's tombstones and bumps the
// group epoch (Kafka: current assignment, target assignment, member metadata,
// then the group epoch; consumerGroupFenceMembers). The target is not
// recomputed here: the group stays ASSIGNING until the next heartbeat.
func (v *view) removeMember(i int) {
	m := v.members[i]
	v.records = append(v.records,
		v.currentAssignmentRecord(m, true),
		v.targetMemberRecord(m.id, nil, true),
		v.memberMetadataRecord(m, true))
	v.members = slices.Delete(v.members, i, i+1)
	if v.typ == Consumer {
		v.maybeForgetRegex(m.topicRegex)
	}
	v.hash = v.metadataHash()
	v.epoch++
	v.records = append(v.records, v.groupEpochRecord())
	v.timers = append(v.timers, TimerOp{Key: SessionTimeoutKey(v.id, m.id), Cancel: true})
	if v.typ == Consumer || v.typ == Streams {
		v.timers = append(v.timers, TimerOp{Key: RebalanceTimeoutKey(v.id, m.id), Cancel: true})
	}
}

// maybeAssign recomputes the target assignment when the group epoch has
// passed the assignment epoch, writing the targets that changed and then the
// new assignment epoch.
func (v *view) maybeAssign() {
	if v.epoch <= v.aEpoch {
		return
	}
	// Each group type has its assignor: share groups the KIP-932 simple
	// assignor (share_assignor.go), which may share a partition among
	// several members; consumer groups the broker's server assignors
	// (consumer_assignor.go); streams groups the sticky task assignor
	// (streams_assignor.go). An assignor's error fails the heartbeat.
	var targets []taskSets
	switch v.typ {
	case Share:
		in := make([]assignee, 0, len(v.members))
		for _, m := range v.members {
			in = append(in, assignee{id: m.id, subs: m.subscribedTopics, previous: m.target})
		}
		targets = activeOnly(assignShareSimple(in, v.s.TopicPartitions))
	case Consumer:
		var active [][]TopicPartitions
		if active, v.assignErr = v.assignConsumer(); v.assignErr != nil {
			return
		}
		// A target record per member at most, the epoch record, and the
		// heartbeat's own member's current assignment. The target records
		// of one computation share one array: they are written, replayed
		// and superseded together.
		v.records = slices.Grow(v.records, len(v.members)+2)
		changed := 0
		for i, m := range v.members {
			if cur := m.targets(); !cur.equal(&taskSets{roleActive: active[i]}) {
				changed++
			}
		}
		slab := make([]ConsumerGroupTargetAssignmentMember, changed)
		for i, m := range v.members {
			if cur := m.targets(); cur.equal(&taskSets{roleActive: active[i]}) {
				continue
			}
			m = v.own(i)
			m.target, m.targetStandby, m.targetWarmup = active[i], nil, nil
			slab[0] = ConsumerGroupTargetAssignmentMember{Group: v.id, MemberID: m.id, Partitions: m.target}
			v.records = append(v.records, &slab[0])
			slab = slab[1:]
		}
		v.aEpoch = v.epoch
		v.records = append(v.records, v.targetEpochRecord())
		return
	case Streams:
		if targets, v.assignErr = v.assignStreams(); v.assignErr != nil {
			return
		}
	}
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
	// Kafka computes no assignment while the topology is not ready.
	if v.topo == nil || !v.s.topologyReady(v.topo) {
		return nil, func(string) int32 { return 0 }
	}
	tasks := map[string]int32{}
	var ids []string
	if v.topo.hasInternalTopics() {
		// InternalTopicManager's computeNumberOfTasks over the decided
		// repartition counts (internal_topics.go).
		c, _ := configureTopics(v.topo, v.s.TopicPartitions)
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
			p := v.s.TopicPartitions(t)
			if p == 0 {
				ready = false
			}
			n = max(n, p)
		}
		for _, t := range st.RepartitionSourceTopics {
			n = max(n, v.s.TopicPartitions(t.Name))
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

func (v *view) memberMetadataRecord(m *member, tombstone bool) Record {
	switch v.typ {
	case Streams:
		return &StreamsGroupMemberMetadata{Group: v.id, MemberID: m.id, ProcessID: m.processID, ClientID: m.clientID, RackID: m.rackID,
			RebalanceTimeoutMs: m.rebalanceTimeoutMs, TopologyEpoch: m.topologyEpoch, UserEndpoint: m.userEndpoint, Tombstone: tombstone}
	case Share:
		return &ShareGroupMemberMetadata{Group: v.id, MemberID: m.id, ClientID: m.clientID, RackID: m.rackID,
			SubscribedTopics: m.subscribedTopics, Tombstone: tombstone}
	}
	if tombstone {
		return &ConsumerGroupMemberMetadata{Group: v.id, MemberID: m.id, Tombstone: true}
	}
	return &ConsumerGroupMemberMetadata{Group: v.id, MemberID: m.id, InstanceID: m.instanceID, ClientID: m.clientID, RackID: m.rackID,
		ServerAssignor: m.serverAssignor, SubscribedTopics: m.subscribedTopics, SubscribedTopicRegex: m.topicRegex,
		RebalanceTimeoutMs: m.rebalanceTimeoutMs}
}

func (v *view) groupEpochRecord() Record {
	switch v.typ {
	case Streams:
		r := &StreamsGroupMetadata{Group: v.id, Epoch: v.epoch, MetadataHash: v.hash,
			StoredDescriptionTopologyEpoch: EpochNone, FailedDescriptionTopologyEpoch: EpochNone,
			LastNumStandbyReplicas: v.streamsNumStandbyReplicas()}
		if v.g != nil {
			r.ValidatedTopologyEpoch = v.g.validatedTopologyEpoch
			r.StoredDescriptionTopologyEpoch, r.FailedDescriptionTopologyEpoch = v.g.storedEpoch, v.g.failedEpoch
		}
		if v.topo != nil {
			// Kafka's validatedTopologyEpoch: the topology's epoch once its
			// topics are configured (ConfiguredTopology.isReady), else -1.
			r.ValidatedTopologyEpoch = -1
			if v.s.topologyReady(v.topo) {
				r.ValidatedTopologyEpoch = v.topo.Epoch
			}
		}
		return r
	case Share:
		return &ShareGroupMetadata{Group: v.id, Epoch: v.epoch, MetadataHash: v.hash}
	}
	return &ConsumerGroupMetadata{Group: v.id, Epoch: v.epoch, MetadataHash: v.hash}
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
	m.target, m.targetStandby, m.targetWarmup = target[roleActive], target[roleStandby], target[roleWarmup]
	v.records = append(v.records, v.targetRecord(m))
}

// targetRecord is member m's target assignment record.
func (v *view) targetRecord(m *member) Record {
	if v.typ == Streams {
		active, standby, warmup := partitionsToTasks3(m.target, m.targetStandby, m.targetWarmup)
		return &StreamsGroupTargetAssignmentMember{Group: v.id, MemberID: m.id, ActiveTasks: active,
			StandbyTasks: standby, WarmupTasks: warmup}
	}
	return v.targetMemberRecord(m.id, m.target, false)
}

func (v *view) targetMemberRecord(id string, target []TopicPartitions, tombstone bool) Record {
	switch v.typ {
	case Streams:
		return &StreamsGroupTargetAssignmentMember{Group: v.id, MemberID: id, ActiveTasks: partitionsToTasks(target), Tombstone: tombstone}
	case Share:
		return &ShareGroupTargetAssignmentMember{Group: v.id, MemberID: id, Partitions: target, Tombstone: tombstone}
	}
	return &ConsumerGroupTargetAssignmentMember{Group: v.id, MemberID: id, Partitions: target, Tombstone: tombstone}
}

func (v *view) targetEpochRecord() Record {
	switch v.typ {
	case Streams:
		return &StreamsGroupTargetAssignmentMetadata{Group: v.id, AssignmentEpoch: v.aEpoch}
	case Share:
		return &ShareGroupTargetAssignmentMetadata{Group: v.id, AssignmentEpoch: v.aEpoch}
	}
	return &ConsumerGroupTargetAssignmentMetadata{Group: v.id, AssignmentEpoch: v.aEpoch}
}

func (v *view) currentAssignmentRecord(m *member, tombstone bool) Record {
	switch v.typ {
	case Streams:
		if tombstone {
			return &StreamsGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, Tombstone: true}
		}
		active, standby, warmup := partitionsToTasks3(m.assigned, m.standby, m.warmup)
		pActive, pStandby, pWarmup := partitionsToTasks3(m.pending, m.pendingStandby, m.pendingWarmup)
		return &StreamsGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, MemberEpoch: m.memberEpoch,
			PreviousMemberEpoch: m.previousMemberEpoch, State: streamsState(m.state),
			ActiveTasks: active, StandbyTasks: standby, WarmupTasks: warmup,
			ActiveTasksPendingRevocation: pActive, StandbyTasksPendingRevocation: pStandby, WarmupTasksPendingRevocation: pWarmup}
	case Share:
		return &ShareGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, MemberEpoch: m.memberEpoch,
			PreviousMemberEpoch: m.previousMemberEpoch, Partitions: m.assigned, Tombstone: tombstone}
	}
	if tombstone {
		return &ConsumerGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, Tombstone: true}
	}
	return &ConsumerGroupCurrentMemberAssignment{Group: v.id, MemberID: m.id, MemberEpoch: m.memberEpoch,
		PreviousMemberEpoch: m.previousMemberEpoch, State: m.state, Partitions: m.assigned, PartitionsPendingRevocation: m.pending}
}

// fenceMember is the session-timeout path: the same records as a leave
// (Kafka's consumerGroupFenceMemberOperation). With epoch >= 0 it is the
// rebalance-timeout path, which fences the member only if it is still at
// that epoch (scheduleConsumerGroupRebalanceTimeout).
func (s *Shard) fenceMember(typ GroupType, groupID, memberID string, epoch int32) (Result[struct{}], bool) {
	var res Result[struct{}]
	g := s.lookup(groupID)
	if g == nil || g.typ != typ {
		return res, false
	}
	v := s.newView(g, typ, groupID)
	i, m := v.find(memberID)
	if m == nil || epoch >= 0 && m.memberEpoch != epoch {
		return res, false
	}
	v.removeMember(i)
	res.Records, res.Timers = v.records, v.timers
	return res, true
}

// metadataHash fingerprints the topics the group reads with their partition
// counts: subscriptions for consumer and share groups, the topology's source
// topics for streams groups. 0 means "reads nothing".
func (v *view) metadataHash() int64 {
	var h topicHasher
	if v.typ == Streams {
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
	if g.typ == Streams {
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
	h.add(m.regexTopics...)
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
// output order.
func (h *topicHasher) sum(s *Shard) int64 {
	var total uint64
	for _, t := range h.small[:h.n] {
		total += s.topicMetadataHash(t)
	}
	for t := range h.more {
		total += s.topicMetadataHash(t)
	}
	return int64(total)
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
