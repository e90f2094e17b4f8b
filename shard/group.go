package shard

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/coordsim/coordsim/assignor/javaorder"
)

// GroupType is a group's protocol. One group id has exactly one type.
type GroupType uint8

// Group types, named as Kafka's Group.GroupType.
const (
	Classic GroupType = iota
	Consumer
	Streams
	Share
	numGroupTypes
)

// groupTypeNames are the types' names, as Kafka's group.type spells them.
var groupTypeNames = [numGroupTypes]string{Classic: "classic", Consumer: "consumer", Streams: "streams", Share: "share"}

func (t GroupType) String() string {
	if t >= numGroupTypes {
		return "unknown"
	}
	return groupTypeNames[t]
}

// GroupTypes lists every group type in a fixed order.
var GroupTypes = [...]GroupType{Classic, Consumer, Streams, Share}

// GroupState is a group's state. Not every type uses every state: classic
// simple groups are always EMPTY, share groups are EMPTY or STABLE, and only
// streams groups are NOT_READY.
type GroupState uint8

// Group states, Kafka's names.
const (
	StateEmpty GroupState = iota
	StateNotReady
	StateAssigning
	StateReconciling
	StateStable
	StateDead
	// StatePreparingRebalance and StateCompletingRebalance are the classic
	// protocol's rebalance states (Kafka's ClassicGroupState).
	StatePreparingRebalance
	StateCompletingRebalance
	numGroupStates
)

func (s GroupState) String() string {
	switch s {
	case StateEmpty:
		return "EMPTY"
	case StateNotReady:
		return "NOT_READY"
	case StateAssigning:
		return "ASSIGNING"
	case StateReconciling:
		return "RECONCILING"
	case StateStable:
		return "STABLE"
	case StateDead:
		return "DEAD"
	case StatePreparingRebalance:
		return "PREPARING_REBALANCE"
	case StateCompletingRebalance:
		return "COMPLETING_REBALANCE"
	}
	return "UNKNOWN"
}

// MetricLabel is the state as Kafka's group-coordinator metrics tag it: the
// state enum's toString ("Empty", "NotReady", "Assigning", ...), which is
// what GroupCoordinatorMetrics passes as the "state" tag
// (ConsumerGroupState/StreamsGroupState/ShareGroupState.toString), not the
// lowercase form of ListGroups' filters.
func (s GroupState) MetricLabel() string {
	switch s {
	case StateEmpty:
		return "Empty"
	case StateNotReady:
		return "NotReady"
	case StateAssigning:
		return "Assigning"
	case StateReconciling:
		return "Reconciling"
	case StateStable:
		return "Stable"
	case StateDead:
		return "Dead"
	case StatePreparingRebalance:
		return "PreparingRebalance"
	case StateCompletingRebalance:
		return "CompletingRebalance"
	}
	return "Unknown"
}

// GroupStates lists every state in a fixed order.
var GroupStates = [...]GroupState{StateEmpty, StateNotReady, StateAssigning, StateReconciling, StateStable, StateDead, StatePreparingRebalance, StateCompletingRebalance}

// EpochNone is the "nothing stored" value of the KIP-1331 epochs.
const EpochNone int32 = -1

// EpochUncertain is the KIP-1331 v2 marker (PR #22777): a plugin call that may
// have disturbed the stored row is in flight or its outcome is unknown.
const EpochUncertain int32 = -2

// group is the in-memory state of one group. Objects are shared between a
// shard and its clones, so a group is never mutated unless its gen equals the
// shard's (see Shard.mutableGroup); slices inside are replaced, never written.
type group struct {
	id  string
	typ GroupType
	gen uint64

	epoch           int32 // group epoch; generation for classic
	assignmentEpoch int32
	// assignmentTimestampMs is when the target at assignmentEpoch was
	// computed, 0 for none (assignment_interval.go).
	assignmentTimestampMs int64
	members               map[string]*member // never iterated for output: see sortedMemberIDs; nil until the first member (issue 25: a simple group has none)

	// classic
	protocolType            string
	currentStateTimestampMs int64
	// classic is a classic group's membership state, nil for a group
	// without members; immutable once replayed (classic_state.go).
	classic *ClassicGroupState
	// lastMetadata is the group's last GroupMetadata record, what Kafka's
	// load rebuilds a classic group from (classic_load.go); nil before one.
	lastMetadata *GroupMetadata
	// refined is a streams group's refined-assignment cache: soft state,
	// not replayed (streams_refined.go).
	refined *refinedAssignment

	// metadataHash fingerprints the partition counts of the topics the group
	// reads; a change bumps the group epoch (KIP-848 / KIP-1071).
	metadataHash int64

	// partitionEpochs is Kafka's ConsumerGroup.currentPartitionEpoch: the
	// epoch of the member that owns each partition (assigned or pending
	// revocation), maintained by replay for consumer groups. A partition is
	// in it at most once: replay refuses a record that would give it a
	// second owner (Kafka's IllegalStateException). Only looked up, never
	// iterated for output.
	partitionEpochs map[topicPartition]int32
	// activeTaskOwners, standbyTaskHolders and warmupTaskHolders are
	// Kafka's StreamsGroup.currentActiveTaskProcessId,
	// currentStandbyTaskProcessIds and currentWarmupTaskProcessIds, kept by
	// member id (the process is the member's): who holds each task, as
	// assigned or pending revocation, maintained by replay for streams
	// groups. An active task has at most one owner: replay refuses a record
	// that would give it a second (Kafka's IllegalStateException). Holder
	// lists are sorted and replaced, never written in place. Only looked up,
	// never iterated for output.
	activeTaskOwners   map[topicPartition]string
	standbyTaskHolders map[topicPartition][]string
	warmupTaskHolders  map[topicPartition][]string
	// regexes are the consumer group's resolved regular expressions
	// (Kafka's ConsumerGroup.resolvedRegularExpressions), by regex. Looked
	// up only; described in regex order. Replaced, never written in place.
	regexes map[string]resolvedRegex
	// regexImage is the shard's imageVersion when the regexes were last
	// resolved, and regexesLoaded whether a load replayed them instead:
	// soft state, for staleness only (regexesStale).
	regexImage    uint64
	regexesLoaded bool
	// hashImage is the shard's imageVersion when the group's metadata hash
	// was last written: a later image expires it (maybeBumpGroupEpoch).
	// Soft state, like Kafka's metadataRefreshDeadline.
	hashImage uint64
	// subscribedHash caches groupMetadataHash (what the group's members or
	// topology read, hashed under the topic image) for the steady
	// heartbeat, valid while subscribedHashOK and the image is
	// subscribedHashImage: a replay that changes what the group reads
	// clears it (forgetSubscribedHash), refresh recomputes it. Derived.
	subscribedHash      int64
	subscribedHashImage uint64
	subscribedHashOK    bool
	// severalAssignors caches whether the members name two or more server
	// assignors (namesSeveralAssignors), and anyRegex whether one subscribes
	// to a regular expression (subscribesRegex); valid while
	// severalAssignorsOK: a member record's replay clears them. Derived.
	severalAssignors, anyRegex, severalAssignorsOK bool

	// shareState is a share group's ShareGroupStatePartitionMetadata, nil
	// for none (share_init.go). Immutable: replaced whole.
	shareState *shareStatePartitions
	// shareSettled: the share group's target holds exactly its initialised
	// partitions and its members' subscribed partitions are all
	// initialised, under the topic image of its last replay (derived by
	// refresh; the steady heartbeat reads it, share_init.go).
	shareSettled bool
	// emptyClassic: an Empty classic group with a protocol type, in the
	// shard's emptyClassic index (derived by refresh).
	emptyClassic bool
	// classicLive: classic was last set by a ClassicGroupState record, a
	// state Kafka keeps in memory only; persisted: a GroupMetadata record or
	// an offset commit made the group, so a load keeps it (classic_load.go).
	classicLive, persisted bool

	// streams
	topology               *Topology // immutable once set
	validatedTopologyEpoch int32
	lastNumStandbyReplicas int32 // StreamsGroupMetadata.LastNumStandbyReplicas
	storedEpoch            int32
	failedEpoch            int32

	// memberSlotsLog2 and memberPuts model Kafka's TimelineHashMap of the
	// group's members (new TimelineHashMap<>(registry, 0)): log2 of its
	// table's length (0 meaning its first, 2 slots) and how many members
	// it holds. The table doubles before a put when (size+1)*3/4 would
	// exceed its length (BaseHashTable's MAX_LOAD_FACTOR test: 2 slots
	// hold 2 members, 4 hold 5) and never shrinks; OnLoaded iterates it (timelineMemberOrder).
	memberSlotsLog2 uint8
	memberPuts      int32
	memberPutSeq    uint16 // the last putSeq given

	// derived on replay by refresh
	state     GroupState
	deletable bool // in Shard.deletable
	eligible  bool // in Shard.eligible
}

type member struct {
	id       string
	clientID string
	// clientHost is a modern member's address ("/127.0.0.1"), from its
	// last heartbeat (or, for a consumer member, JoinGroup), or its classic
	// member's on an upgrade; "" when the caller gave none (the simulator).
	clientHost          string
	processID           string
	subscribedTopics    []string
	rebalanceTimeoutMs  int32
	memberEpoch         int32
	previousMemberEpoch int32
	// state and hasMetadata sit beside the int32s, where they cost no
	// padding (issue 25).
	state       MemberState
	hasMetadata bool
	// putSeq orders the member's first put into its group's
	// TimelineHashMap of members (group.memberPutSeq); 0 before it.
	// OnLoaded arms the members' timers in that map's order. A uint16 fits
	// the padding after state and hasMetadata; timelinePut renumbers the
	// group's members when it runs out.
	putSeq uint16
	// consumer holds a consumer member's rarer fields (see
	// consumerMember), nil when they are all empty and for every other
	// group type: 72 B most members never use are one pointer (issue 25).
	// Read it with consumerPart(), write it with setConsumer: it is
	// replaced, never written in place.
	consumer *consumerMember
	// rackID is the member's client.rack ("" when it sent none). The
	// consumer assignors place partitions by it; streams and share members
	// keep it on their record only, as Kafka's do.
	rackID string
	// pending (partitions pending revocation) and state, above, are
	// KIP-848's reconciliation state; consumer groups only (see
	// reconcile.go).
	pending []TopicPartitions
	// classic is the metadata of a consumer group member that uses the
	// classic protocol (online migration, migration_types.go); nil for a
	// consumer-protocol member and for other group types. Immutable.
	classic *ClassicMemberMetadata
	// assigned and target hold partitions, or for streams members active
	// tasks with the subtopology id in the Topic field (one engine serves
	// every type).
	assigned []TopicPartitions
	target   []TopicPartitions
	// streams holds a streams member's own fields (see streamsMember), nil
	// when they are all empty and for every other group type: six slice
	// headers, a pointer and an int32 (160 B) that consumer and share
	// members never use are one pointer instead (issue 25). Read it with
	// streamsPart(), write it with setStreams, setTargetRoles and
	// setHeldRoles: it is replaced, never written in place, since a
	// group's clones share their members' copies.
	streams *streamsMember
	// epochs is the member epoch at which each partition (task) was
	// assigned (KIP-1251), derived on replay by stampAssignmentEpochs: one
	// per partition of assigned, in order, then one per partition of
	// pending; nil when the member holds no topic. One flat slice, where a
	// slice per topic and list cost a header each and two allocations
	// (issue 25). Replaced, never written in place.
	epochs     []int32
	sessionKey string // SessionTimeoutKey, built once per member
}

// assignedEpochs returns the epochs of m.assigned, one slice per topic
// (describes only: it allocates).
func (m *member) assignedEpochs() [][]int32 {
	return splitEpochs(m.assigned, m.epochs, 0)
}

// pendingEpochs returns the epochs of m.pending, one slice per topic.
func (m *member) pendingEpochs() [][]int32 {
	return splitEpochs(m.pending, m.epochs, countPartitions(m.assigned))
}

// splitEpochs cuts the flat epochs of held, which start at off, by topic;
// nil when held is empty or the member has no epochs.
func splitEpochs(held []TopicPartitions, epochs []int32, off int) [][]int32 {
	if len(held) == 0 || epochs == nil {
		return nil
	}
	out := make([][]int32, len(held))
	for i, tp := range held {
		k := len(tp.Partitions)
		if off+k > len(epochs) {
			return out[:i]
		}
		out[i], off = epochs[off:off+k:off+k], off+k
	}
	return out
}

// shareTarget makes a member that holds exactly its target assignment (every
// STABLE member) share the target's slices instead of keeping an equal copy
// (issue 25: a third of a stable consumer group's bytes were the copies).
// Both are replaced, never written in place, so sharing is safe; an empty
// assignment is left as it is, nil or not, since describes show the
// difference.
func (m *member) shareTarget() {
	if len(m.assigned) > 0 && equalAssignment(m.assigned, m.target) {
		m.assigned = m.target
	}
}

// consumerMember is what only some consumer members have. Replaced, never
// written in place.
type consumerMember struct {
	// instanceID is the static member's group.instance.id ("" for a
	// dynamic member).
	instanceID string
	// serverAssignor is the ConsumerGroupHeartbeat ServerAssignor the
	// member last named ("" for none).
	serverAssignor string
	// topicRegex is the member's SubscribedTopicRegex ("" for none) and
	// regexTopics the topics the group resolved it to (derived from the
	// group's regexes); the member subscribes to subscribedTopics and
	// regexTopics.
	topicRegex  string
	regexTopics []string
}

// consumerPart returns a copy of the member's rarer consumer fields (all
// empty for a member without).
func (m *member) consumerPart() consumerMember {
	if m.consumer == nil {
		return consumerMember{}
	}
	return *m.consumer
}

// setConsumer replaces the member's rarer consumer fields with c, keeping
// no allocation when they are all empty (see setStreams).
func (m *member) setConsumer(c consumerMember) {
	if c.instanceID == "" && c.serverAssignor == "" && c.topicRegex == "" && c.regexTopics == nil {
		m.consumer = nil
		return
	}
	p := new(consumerMember)
	*p = c
	m.consumer = p
}

// setRegex replaces the member's regex and the topics it resolves to.
func (m *member) setRegex(regex string, topics []string) {
	c := m.consumerPart()
	c.topicRegex, c.regexTopics = regex, topics
	m.setConsumer(c)
}

// setStreamsInstanceID replaces the streams member's group.instance.id.
func (m *member) setStreamsInstanceID(id string) {
	p := m.streamsPart()
	p.instanceID = id
	m.setStreams(p)
}

// setInstanceID replaces the consumer member's group.instance.id.
func (m *member) setInstanceID(id string) {
	c := m.consumerPart()
	c.instanceID = id
	m.setConsumer(c)
}

// setServerAssignor replaces the server assignor the member names.
func (m *member) setServerAssignor(name string) {
	c := m.consumerPart()
	c.serverAssignor = name
	m.setConsumer(c)
}

// setRegexTopics replaces the topics the member's regex resolves to.
func (m *member) setRegexTopics(topics []string) {
	m.setRegex(m.consumerPart().topicRegex, topics)
}

// instanceID is the static member's group.instance.id ("" for a dynamic
// member): a consumer member keeps it with its consumer fields, a streams
// member with its streams fields.
func (m *member) instanceID() string {
	switch {
	case m.consumer != nil:
		return m.consumer.instanceID
	case m.streams != nil:
		return m.streams.instanceID
	}
	return ""
}

// streamsMember is what only a streams member has. Replaced, never written
// in place.
type streamsMember struct {
	// Standby and warm-up tasks (Kafka's TasksTuple's other two roles),
	// subtopology id as the Topic: the target, the tasks the member holds,
	// and those pending revocation (member.pending holds the active ones).
	targetStandby, targetWarmup   []TopicPartitions
	standby, warmup               []TopicPartitions
	pendingStandby, pendingWarmup []TopicPartitions
	// userEndpoint is the member's user endpoint (application.server, for
	// interactive queries), nil for none.
	userEndpoint  *Endpoint
	topologyEpoch int32
	// instanceID is a static member's group.instance.id, "" for a
	// dynamic one.
	instanceID string
}

// empty reports whether every field is empty, so that the member needs no
// streamsMember at all.
func (r *streamsMember) empty() bool {
	return len(r.targetStandby)+len(r.targetWarmup)+len(r.standby)+len(r.warmup)+len(r.pendingStandby)+len(r.pendingWarmup) == 0 &&
		r.userEndpoint == nil && r.topologyEpoch == 0 && r.instanceID == ""
}

// heldIsTarget reports whether the member holds exactly its target
// standby and warm-up tasks.
func (r streamsMember) heldIsTarget() bool {
	return equalAssignment(r.standby, r.targetStandby) && equalAssignment(r.warmup, r.targetWarmup)
}

// streamsPart returns a copy of the member's streams fields (all empty for
// a member without): a copy, so that no caller can write the shared value.
func (m *member) streamsPart() streamsMember {
	if m.streams == nil {
		return streamsMember{}
	}
	return *m.streams
}

// userEndpoint is a streams member's user endpoint, nil for none.
func (m *member) userEndpoint() *Endpoint {
	if m.streams == nil {
		return nil
	}
	return m.streams.userEndpoint
}

// topologyEpoch is a streams member's topology epoch, 0 for other types.
func (m *member) topologyEpoch() int32 {
	if m.streams == nil {
		return 0
	}
	return m.streams.topologyEpoch
}

// setStreams replaces the member's streams fields with r, keeping no
// allocation when they are all empty. r is taken by value and copied into
// a new value only when kept, so that a consumer or share member's empty
// update allocates nothing.
func (m *member) setStreams(r streamsMember) {
	if r.empty() {
		m.streams = nil
		return
	}
	p := new(streamsMember)
	*p = r
	m.streams = p
}

// setTargetRoles replaces the member's target standby and warm-up tasks.
func (m *member) setTargetRoles(standby, warmup []TopicPartitions) {
	r := m.streamsPart()
	r.targetStandby, r.targetWarmup = standby, warmup
	m.setStreams(r)
}

// setHeldRoles replaces the standby and warm-up tasks the member holds and
// those pending revocation.
func (m *member) setHeldRoles(standby, warmup, pendingStandby, pendingWarmup []TopicPartitions) {
	r := m.streamsPart()
	r.standby, r.warmup, r.pendingStandby, r.pendingWarmup = standby, warmup, pendingStandby, pendingWarmup
	m.setStreams(r)
}

// timerKey is the member's session-timer key, built on first use.
func (m *member) timerKey(groupID string) string {
	if m.sessionKey == "" {
		return SessionTimeoutKey(groupID, m.id)
	}
	return m.sessionKey
}

func newGroup(id string, typ GroupType) *group {
	return &group{
		id:              id,
		typ:             typ,
		epoch:           groupKinds[typ].initialEpoch(),
		assignmentEpoch: groupKinds[typ].initialEpoch(),
		storedEpoch:     EpochNone,
		failedEpoch:     EpochNone,
		state:           StateEmpty,
	}
}

func (g *group) clone() *group {
	c := *g
	c.members = nil
	if g.members != nil {
		c.members = make(map[string]*member, len(g.members))
	}
	for id, m := range g.members {
		mc := *m
		c.members[id] = &mc
	}
	if g.partitionEpochs != nil {
		c.partitionEpochs = maps.Clone(g.partitionEpochs)
	}
	if g.activeTaskOwners != nil {
		c.activeTaskOwners = maps.Clone(g.activeTaskOwners)
	}
	if g.standbyTaskHolders != nil {
		c.standbyTaskHolders = maps.Clone(g.standbyTaskHolders)
	}
	if g.warmupTaskHolders != nil {
		c.warmupTaskHolders = maps.Clone(g.warmupTaskHolders)
	}
	return &c
}

// topicPartition keys partitionEpochs.
type topicPartition struct {
	topic     string
	partition int32
}

// currentAssignment is the member's reconciliation state.
func (m *member) currentAssignment() memberAssignment {
	r := m.streamsPart()
	return memberAssignment{state: m.state, epoch: m.memberEpoch, previousEpoch: m.previousMemberEpoch,
		assigned: taskSets{m.assigned, r.standby, r.warmup}, pending: taskSets{m.pending, r.pendingStandby, r.pendingWarmup}}
}

func (m *member) setCurrentAssignment(a memberAssignment) {
	m.state, m.memberEpoch, m.previousMemberEpoch = a.state, a.epoch, a.previousEpoch
	m.assigned, m.pending = a.assigned[roleActive], a.pending[roleActive]
	m.setHeldRoles(a.assigned[roleStandby], a.assigned[roleWarmup], a.pending[roleStandby], a.pending[roleWarmup])
}

// targets is the member's target assignment as a taskSets.
func (m *member) targets() taskSets {
	r := m.streamsPart()
	return taskSets{m.target, r.targetStandby, r.targetWarmup}
}

// partitionOwned reports whether a member of the group holds the partition
// (Kafka's currentPartitionEpoch(topic, partition) != -1).
func (g *group) partitionOwned(topic string, p int32) bool {
	_, ok := g.partitionEpochs[topicPartition{topic, p}]
	return ok
}

// staticMemberOf returns the member with the instance id, or nil (Kafka's
// ConsumerGroup.staticMember). It scans the members: only joins and errors
// of static members need it.
func staticMemberOf(members []*member, instanceID string) (int, *member) {
	for i, m := range members {
		if m.instanceID() == instanceID {
			return i, m
		}
	}
	return -1, nil
}

// staticMember is staticMemberOf over the group's member map. Instance
// ids are unique within a group, so the map's order cannot change the
// answer.
func (g *group) staticMember(instanceID string) *member {
	for _, m := range g.members {
		if m.instanceID() == instanceID {
			return m
		}
	}
	return nil
}

// timelinePut is Kafka's members.put of m (ModernGroup.updateMember and
// StreamsGroup.updateMember) replayed: the table grows first if the put
// would fill it, and a new member takes the next place in its slot.
func (g *group) timelinePut(m *member) {
	if javaorder.TimelineGrows(int(g.memberPuts), g.memberSlots()) {
		g.memberSlotsLog2 = max(g.memberSlotsLog2, 1) + 1
	}
	if m.putSeq == 0 {
		if g.memberPutSeq == math.MaxUint16 {
			g.renumberPuts()
		}
		g.memberPutSeq++
		m.putSeq = g.memberPutSeq
		g.memberPuts++
	}
}

// renumberPuts gives the members the map holds the puts 1..n in the order
// they had, so that a group whose members came and went 65 535 times
// keeps counting. (A group of more members than that would share the last
// number, and order ties by id.)
func (g *group) renumberPuts() {
	held := make([]*member, 0, len(g.members))
	for _, m := range g.members {
		if m.putSeq != 0 {
			held = append(held, m)
		}
	}
	slices.SortFunc(held, func(a, b *member) int { return cmp.Compare(a.putSeq, b.putSeq) })
	g.memberPutSeq = 0
	for _, m := range held {
		if g.memberPutSeq < math.MaxUint16-1 {
			g.memberPutSeq++
		}
		m.putSeq = g.memberPutSeq
	}
}

func (g *group) memberSlots() int { return 1 << max(g.memberSlotsLog2, 1) }

// timelineMemberOrder is the group's member ids in the iteration order of
// Kafka's TimelineHashMap of members: by slot, and within a slot the last
// put first. Members the map never held (a target record replayed alone)
// come last, by id.
func (g *group) timelineMemberOrder() []string {
	type entry struct {
		id   string
		slot int
		seq  uint16
	}
	n := g.memberSlots()
	es := make([]entry, 0, len(g.members))
	for id, m := range g.members {
		slot := n // after every slot
		if m.putSeq != 0 {
			slot = javaorder.TimelineSlot(id, n)
		}
		es = append(es, entry{id, slot, m.putSeq})
	}
	slices.SortFunc(es, func(a, b entry) int {
		if a.slot != b.slot {
			return a.slot - b.slot
		}
		if a.seq != b.seq {
			if a.seq > b.seq {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
	ids := make([]string, len(es))
	for i, e := range es {
		ids[i] = e.id
	}
	return ids
}

func (g *group) sortedMemberIDs() []string {
	ids := make([]string, 0, len(g.members))
	for id := range g.members {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

func (g *group) member(id string) *member {
	if m, ok := g.members[id]; ok {
		return m
	}
	m := &member{id: id, sessionKey: SessionTimeoutKey(g.id, id)}
	if g.members == nil {
		g.members = map[string]*member{}
	}
	g.members[id] = m
	return m
}

// isSubscribedToTopic is Kafka's Group.isSubscribedToTopic for the types we
// model: classic simple groups subscribe to nothing; consumer and share groups
// to the union of their members' subscriptions; streams groups, once empty, to
// nothing (KAFKA-19372), otherwise to their topology's source topics.
func (g *group) isSubscribedToTopic(topic string) bool {
	return groupKinds[g.typ].subscribesTo(g, topic)
}

// keepsOffsetsOf is cleanupExpiredOffsets' test of a topic before it looks
// at the offsets' deadlines: the group has no offset expiration condition
// (nothing of it expires) or subscribes to the topic.
func (g *group) keepsOffsetsOf(topic string) bool {
	k := groupKinds[g.typ]
	return !k.expiresOffsets(g) || k.subscribesTo(g, topic)
}

// readiness answers topologyReady over a metadata image: the shard (its
// memo), or a test's fresh computation. An interface rather than a func, so
// refresh, which runs on every replayed record, passes the shard without
// allocating a method value.
type readiness interface {
	topologyReady(t *Topology) bool
}

// deriveState is Kafka's maybeUpdateGroupState for the group's type; ready
// is topologyReady over the shard's metadata image.
func (g *group) deriveState(ready readiness) GroupState {
	return groupKinds[g.typ].deriveState(g, ready)
}

// modernState is maybeUpdateGroupState of the KIP-848 types (consumer,
// streams, share): empty, the type's early state, then the epochs.
func (g *group) modernState(ready readiness) GroupState {
	if len(g.members) == 0 {
		return StateEmpty
	}
	if state, ok := groupKinds[g.typ].earlyState(g, ready); ok {
		return state
	}
	if g.epoch > g.assignmentEpoch {
		return StateAssigning
	}
	for _, m := range g.members {
		// Kafka's isReconciledTo: at the target epoch and STABLE (a static
		// member away at epoch -2 keeps the group reconciling).
		if m.memberEpoch != g.assignmentEpoch || m.state != MemberStable {
			return StateReconciling
		}
	}
	return StateStable
}

// topologyReady is Kafka's ConfiguredTopology.isReady for t over the image:
// every source topic exists and, for a topology with internal topics or
// copartition groups, InternalTopicManager.configureTopics finds nothing
// missing or mispartitioned (internal_topics.go).
func topologyReady(t *Topology, topicPartitions func(string) int32) bool {
	if t.hasInternalTopics() {
		c, err := configureTopics(t, topicPartitions)
		return err == nil && c.isReady()
	}
	for _, st := range t.Subtopologies {
		for _, topic := range st.SourceTopics {
			if topicPartitions(topic) <= 0 {
				return false
			}
		}
	}
	return true
}

// offsetExpiryBase is ClassicGroup.offsetExpirationCondition's base for an
// Empty classic group with a protocol type: the retention counts from when
// it became Empty (its current state timestamp), or from each offset's
// commit time when it has none (an old record). Other groups count from
// commit times (false).
func (g *group) offsetExpiryBase() (int64, bool) {
	if !g.emptyClassic || g.currentStateTimestampMs < 0 {
		return 0, false
	}
	return g.currentStateTimestampMs, true
}

// namesSeveralAssignors reports whether g's members name two or more
// server assignors, the only groups whose preferred assignor can move on a
// heartbeat that keeps the member's (preferredAssignorChanged): from the
// cache refresh keeps, else counted. A nil group names none. It never
// writes g, which may be shared with a committed view.
func (g *group) namesSeveralAssignors() bool {
	if g == nil {
		return false
	}
	if g.severalAssignorsOK {
		return g.severalAssignors
	}
	several, _ := countMembers(g)
	return several
}

// subscribesRegex reports whether a member of g subscribes to a regular
// expression: the group's regexes may need a refresh at any heartbeat
// (updateRegularExpressions), so its heartbeats take the full path. It
// never writes g.
func (g *group) subscribesRegex() bool {
	if g.severalAssignorsOK {
		return g.anyRegex
	}
	_, regex := countMembers(g)
	return regex
}

// countMembers counts what namesSeveralAssignors and subscribesRegex cache.
func countMembers(g *group) (severalAssignors, regex bool) {
	first := ""
	for _, m := range g.members { // any order: only counts are read
		c := m.consumerPart()
		regex = regex || c.topicRegex != ""
		if name := c.serverAssignor; name != "" && name != first {
			severalAssignors = severalAssignors || first != ""
			first = name
		}
	}
	return severalAssignors, regex
}
