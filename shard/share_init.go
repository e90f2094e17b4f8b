package shard

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"strings"
)

// Share-state initialisation (KIP-932; Kafka 4.4's GroupMetadataManager and
// GroupCoordinatorService). A share partition is consumed through its state
// at the share coordinator (the SPSO and its batches), and Kafka assigns a
// share group only the partitions whose state it has initialised:
//
//  1. A share heartbeat computes the target from the initialised
//     partitions alone (withTopicAssignablePartitionsMap, so a new group's
//     first target is empty).
//  2. It then finds the subscribed partitions neither initialised nor being
//     initialised (subscribedTopicsChangeMap; an initialisation older than
//     group.share.initialize.retry.interval.ms counts as failed), records
//     them as initialising in ShareGroupStatePartitionMetadata and asks the
//     persister to initialise them (maybeCreateInitializeShareGroupStateRequest).
//  3. The persister's answer comes back as a write that moves them to
//     initialised (initializeShareGroupState).
//  4. The next heartbeat finds the target short of the initialised
//     partitions (initializedAssignmentPending), bumps the group epoch and
//     assigns them.
//
// Here step 3 is a timer task (TaskShareInitialize, ShareInitializeKey)
// due at the heartbeat's instant, as Kafka's service schedules the
// persister call on a zero-delay timer after the heartbeat's write:
// coordsim's share state needs no initialisation call (the broker side
// creates a partition's state on first use, at share.auto.offset.reset),
// so the task completes the partitions its heartbeat asked for. A
// coordinator move loses the task, as it loses Kafka's in-flight persister
// call: the partitions stay initialising until a heartbeat after the retry
// interval asks again (a load restamps them, as Kafka's replay does).

// shareStatePartitions is a share group's ShareGroupStatePartitionMetadata
// as replayed. Immutable: a record replaces it whole.
type shareStatePartitions struct {
	initializing []TopicPartitions // sorted by topic
	initialized  []TopicPartitions // sorted by topic
	unnamed      []string          // sorted: the record's Unnamed
	deleting     []string          // sorted
	// initializingSinceMs stamps every initialising topic: the time of
	// the last record (Kafka's replay stamps them all with its clock), or
	// of the load. Soft state.
	initializingSinceMs int64
}

// ShareInitializeRetryIntervalMs is Kafka's default
// group.share.initialize.retry.interval.ms.
const ShareInitializeRetryIntervalMs = 30_000

// shareInitializeRetryIntervalMs is the retry interval in force: Kafka
// raises a value below offsets.commit.timeout.ms to it.
func (s *Shard) shareInitializeRetryIntervalMs() int64 {
	if s.cfg.ShareInitializeRetryIntervalMs == 0 {
		return ShareInitializeRetryIntervalMs
	}
	return max(s.cfg.ShareInitializeRetryIntervalMs, 5_000)
}

// ShareInitializeKey is the timer key of one share initialisation (Kafka
// runs it on the service's timer, keyless): the group and the first
// partition asked for. Two initialisations pending at once ask for
// disjoint partitions, so their keys differ.
func ShareInitializeKey(groupID string, partitions []TopicPartitions) string {
	if len(partitions) == 0 || len(partitions[0].Partitions) == 0 {
		return "share-initialize-" + groupID
	}
	return fmt.Sprintf("share-initialize-%s-%s-%d", groupID, partitions[0].Topic, partitions[0].Partitions[0])
}

func (s *Shard) applyShareStatePartitionMetadata(r *ShareGroupStatePartitionMetadata) error {
	if r.Tombstone {
		g, err := s.existingGroup(r, Share)
		if err != nil || g == nil {
			return err
		}
		s.mutableGroup(g.id).shareState = nil
		return nil
	}
	for _, list := range [][]TopicPartitions{r.Initializing, r.Initialized} {
		if err := checkTopicPartitionList(list); err != nil {
			return replayErr(r, "%v", err)
		}
	}
	for i, t := range r.Unnamed {
		if i > 0 && r.Unnamed[i-1] >= t || partitionsOfTopic(r.Initialized, t) == nil {
			return replayErr(r, "unnamed topic %q is not one of the initialised topics, once, in order", t)
		}
	}
	created := s.lookup(r.Group) == nil
	g, err := s.groupForRecord(r, Share, true)
	if err != nil {
		return err
	}
	if created {
		// Kafka's getOrMaybeCreatePersistedShareGroup: a new group object
		// starts at epoch 1 (ModernGroup).
		g.epoch, g.assignmentEpoch = shareSteps{}.initialEpoch(), shareSteps{}.initialEpoch()
	}
	g.shareState = &shareStatePartitions{initializing: r.Initializing, initialized: r.Initialized,
		unnamed: r.Unnamed, deleting: r.Deleting, initializingSinceMs: r.TimestampMs}
	s.refresh(g.id)
	return nil
}

// checkTopicPartitionList refuses a list that is not sorted by topic, names
// a topic twice or holds a negative or unsorted partition.
func checkTopicPartitionList(list []TopicPartitions) error {
	for i, tp := range list {
		if tp.Topic == "" || i > 0 && list[i-1].Topic >= tp.Topic {
			return fmt.Errorf("topics not sorted and distinct at %q", tp.Topic)
		}
		for j, p := range tp.Partitions {
			if p < 0 || j > 0 && tp.Partitions[j-1] >= p {
				return fmt.Errorf("partitions of %s not ascending and non-negative", tp.Topic)
			}
		}
	}
	return nil
}

// initializedPartitions is the share group's initialised partitions of a
// topic (nil for none). An unnamed entry is not the topic's: Kafka keys it
// by the id of a topic the image no longer has.
func (st *shareStatePartitions) initializedPartitions(topic string) []int32 {
	if st == nil || st.isUnnamed(topic) {
		return nil
	}
	return partitionsOfTopic(st.initialized, topic)
}

func (st *shareStatePartitions) isUnnamed(topic string) bool {
	_, ok := slices.BinarySearch(st.unnamed, topic)
	return ok
}

// keepUnnamed is st's unnamed topics still among initialized.
func (st *shareStatePartitions) keepUnnamed(initialized []TopicPartitions) []string {
	var out []string
	for _, t := range st.unnamed {
		if partitionsOfTopic(initialized, t) != nil {
			out = append(out, t)
		}
	}
	return out
}

func partitionsOfTopic(list []TopicPartitions, topic string) []int32 {
	i, ok := slices.BinarySearchFunc(list, topic, func(tp TopicPartitions, t string) int { return strings.Compare(tp.Topic, t) })
	if !ok {
		return nil
	}
	return list[i].Partitions
}

// initializedAssignmentPending is Kafka's method of that name: a share
// group with members whose target lacks some initialised partition of a
// topic it subscribes to (the target's partitions of such a topic differ
// from the initialised ones) needs a new target.
func initializedAssignmentPending(st *shareStatePartitions, members iter.Seq[*member]) bool {
	if st == nil || len(st.initialized) == 0 {
		return false
	}
	subscribed := map[string]bool{}
	inTarget := map[string][]int32{}
	for m := range members {
		for _, t := range m.subscribedTopics {
			subscribed[t] = true
		}
		for _, tp := range m.target {
			inTarget[tp.Topic] = append(inTarget[tp.Topic], tp.Partitions...)
		}
	}
	if len(subscribed) == 0 {
		return false // no members, or none subscribing
	}
	for _, tp := range st.initialized {
		if !subscribed[tp.Topic] || st.isUnnamed(tp.Topic) {
			// Kafka compares the entry's name, "<UNKNOWN>" for an
			// unnamed one, with the subscribed names.
			continue
		}
		// The target's partitions of the topic are exactly the
		// initialised ones.
		got := inTarget[tp.Topic]
		slices.Sort(got)
		if !slices.Equal(slices.Compact(got), tp.Partitions) {
			return true
		}
	}
	return false
}

// shareInitChanges is Kafka's subscribedTopicsChangeMap: for each
// subscribed topic (sorted, distinct) that exists, the partitions neither
// initialised nor initialising within the retry interval; topics sorted.
// Nil when there is none.
func (s *Shard) shareInitChanges(st *shareStatePartitions, subscribed []string, nowMs int64) []TopicPartitions {
	var out []TopicPartitions
	fresh := s.initializingFresh(st, nowMs)
	for _, topic := range subscribed {
		done, ok := s.shareInitDone(st, topic, fresh)
		if ok {
			continue
		}
		var missing []int32
		for p := range s.topics[topic] {
			if _, ok := slices.BinarySearch(done, p); !ok {
				missing = append(missing, p)
			}
		}
		out = append(out, TopicPartitions{Topic: topic, Partitions: missing})
	}
	return out
}

// initializingFresh reports whether the group's initialising partitions
// were asked for within the retry interval.
func (s *Shard) initializingFresh(st *shareStatePartitions, nowMs int64) bool {
	return st != nil && nowMs-st.initializingSinceMs < s.shareInitializeRetryIntervalMs()
}

// shareInitDone returns a topic's partitions initialised (and, when
// fresh, initialising) and whether that is all of them; a topic that does
// not exist needs nothing.
func (s *Shard) shareInitDone(st *shareStatePartitions, topic string, fresh bool) ([]int32, bool) {
	n := s.topics[topic]
	if n <= 0 {
		return nil, true
	}
	var done []int32
	if st != nil {
		done = st.initializedPartitions(topic)
		if fresh {
			done = mergePartitions(done, partitionsOfTopic(st.initializing, topic))
		}
	}
	return done, len(done) >= int(n)
}

// mergePartitions is the sorted union of two ascending lists.
func mergePartitions(a, b []int32) []int32 {
	if len(b) == 0 {
		return a
	}
	if len(a) == 0 {
		return b
	}
	out := slices.Concat(a, b)
	slices.Sort(out)
	return slices.Compact(out)
}

// combineTopicPartitions is Kafka's combineInitMaps: the union of two
// topic lists, partitions merged per topic.
func combineTopicPartitions(a, b []TopicPartitions) []TopicPartitions {
	out := slices.Clone(a)
	for _, tp := range b {
		i, ok := slices.BinarySearchFunc(out, tp.Topic, func(x TopicPartitions, t string) int { return strings.Compare(x.Topic, t) })
		if ok {
			out[i] = TopicPartitions{Topic: tp.Topic, Partitions: mergePartitions(out[i].Partitions, tp.Partitions)}
		} else {
			out = slices.Insert(out, i, tp)
		}
	}
	return out
}

// subtractTopicPartitions removes b's partitions from a, dropping topics
// left empty.
func subtractTopicPartitions(a, b []TopicPartitions) []TopicPartitions {
	var out []TopicPartitions
	for _, tp := range a {
		gone := partitionsOfTopic(b, tp.Topic)
		if len(gone) == 0 {
			out = append(out, tp)
			continue
		}
		left := slices.DeleteFunc(slices.Clone(tp.Partitions), func(p int32) bool {
			_, ok := slices.BinarySearch(gone, p)
			return ok
		})
		if len(left) > 0 {
			out = append(out, TopicPartitions{Topic: tp.Topic, Partitions: left})
		}
	}
	return out
}

// requestShareInitialization is the rest of Kafka's
// maybeCreateInitializeShareGroupStateRequest and addInitializingTopicsRecords:
// the partitions to initialise join the initialising ones in a new
// ShareGroupStatePartitionMetadata record (a topic being deleted that is
// initialised again leaves the deleting list), and the initialisation is
// scheduled.
func (s *Shard) requestShareInitialization(nowMs int64, groupID string, st *shareStatePartitions, changes []TopicPartitions) (Record, TimerOp) {
	r := &ShareGroupStatePartitionMetadata{Group: groupID, Initializing: changes, TimestampMs: nowMs}
	if st != nil {
		r.Initializing = combineTopicPartitions(st.initializing, changes)
		r.Initialized, r.Unnamed = st.initialized, st.unnamed
		r.Deleting = slices.DeleteFunc(slices.Clone(st.deleting), func(t string) bool {
			return partitionsOfTopic(changes, t) != nil
		})
	}
	t := Task{Kind: TaskShareInitialize, Type: Share, GroupID: groupID, Partitions: changes}
	return r, TimerOp{Key: t.Key(), DeadlineMs: nowMs, Task: t}
}

// maybeRequestShareInitialization runs step 2 for a share heartbeat: the
// group's subscribed topics are the view's members'.
func (v *view) maybeRequestShareInitialization(nowMs int64) {
	if len(v.s.topics) == 0 {
		return // Kafka: an empty metadata image asks for nothing
	}
	var subscribed []string
	for _, m := range v.members {
		subscribed = append(subscribed, m.subscribedTopics...)
	}
	slices.Sort(subscribed)
	subscribed = slices.Compact(subscribed)
	st := v.shareState()
	changes := v.s.shareInitChanges(st, subscribed, nowMs)
	if len(changes) == 0 {
		return
	}
	r, t := v.s.requestShareInitialization(nowMs, v.id, st, changes)
	v.records = append(v.records, r)
	v.timers = append(v.timers, t)
}

// shareState is the view's group's share-state metadata (nil for a new
// group or none).
func (v *view) shareState() *shareStatePartitions {
	if v.g == nil {
		return nil
	}
	return v.g.shareState
}

// initializeShareState is step 3, Kafka's initializeShareGroupState: the
// partitions asked for become initialised and leave the initialising
// ones. Nothing for a group that is gone or a request of nothing.
func (s *Shard) initializeShareState(nowMs int64, groupID string, partitions []TopicPartitions) Result[struct{}] {
	g := s.lookup(groupID)
	if g == nil || g.typ != Share || len(partitions) == 0 {
		return Result[struct{}]{}
	}
	r := &ShareGroupStatePartitionMetadata{Group: groupID, Initialized: partitions, TimestampMs: nowMs}
	var unnamed []string
	if st := g.shareState; st != nil {
		r.Initializing = nilIfEmpty(subtractTopicPartitions(st.initializing, partitions))
		r.Initialized = combineTopicPartitions(st.initialized, partitions)
		r.Deleting = st.deleting
		unnamed = st.unnamed
	}
	// A topic deleted while its state initialised is written under
	// "<UNKNOWN>" (attachInitValue reads its name from the image); one
	// that exists again names its entry.
	for _, tp := range partitions {
		i, found := slices.BinarySearch(unnamed, tp.Topic)
		switch _, exists := s.topics[tp.Topic]; {
		case !exists && !found:
			unnamed = slices.Insert(slices.Clone(unnamed), i, tp.Topic)
		case exists && found:
			unnamed = slices.Delete(slices.Clone(unnamed), i, i+1)
		}
	}
	r.Unnamed = nilIfEmpty(unnamed)
	return Result[struct{}]{Records: []Record{r}}
}

// MaybeCleanupShareGroupState is Kafka's maybeCleanupShareGroupState, the
// write GroupCoordinatorService.onMetadataUpdate makes on every shard for
// deleted topics: each share group's state metadata forgets them (its
// initialising, initialised and deleting topics). Topics are by name; a
// topic no group knows is fine.
func (s *Shard) MaybeCleanupShareGroupState(nowMs int64, deletedTopics []string) Result[struct{}] {
	var res Result[struct{}]
	if len(deletedTopics) == 0 {
		return res
	}
	gone := func(t string) bool { return slices.Contains(deletedTopics, t) }
	drop := func(tp TopicPartitions) bool { return gone(tp.Topic) }
	s.groups.Ascend(func(g *group) bool {
		st := g.shareState
		if st == nil {
			return true
		}
		initializing := slices.DeleteFunc(slices.Clone(st.initializing), drop)
		initialized := slices.DeleteFunc(slices.Clone(st.initialized), drop)
		deleting := slices.DeleteFunc(slices.Clone(st.deleting), gone)
		if len(initializing) == len(st.initializing) && len(initialized) == len(st.initialized) && len(deleting) == len(st.deleting) {
			return true
		}
		res.Records = append(res.Records, &ShareGroupStatePartitionMetadata{Group: g.id, Initializing: nilIfEmpty(initializing),
			Initialized: nilIfEmpty(initialized), Unnamed: nilIfEmpty(st.keepUnnamed(initialized)), Deleting: nilIfEmpty(deleting), TimestampMs: nowMs})
		return true
	})
	return res
}

func nilIfEmpty[T any](s []T) []T {
	if len(s) == 0 {
		return nil
	}
	return s
}

// restampShareInitializations is the load's half: Kafka's replay stamps
// the initialising topics with the load's time, so a load restarts their
// retry interval; and the share groups' settled flags, which the replay
// may have derived before the topic image was installed, are derived
// again.
func (s *Shard) restampShareInitializations(nowMs int64) {
	var ids []string
	s.groups.Ascend(func(g *group) bool {
		if g.shareState != nil && len(g.shareState.initializing) > 0 {
			ids = append(ids, g.id)
		}
		return true
	})
	for _, id := range ids {
		g := s.mutableGroup(id)
		st := *g.shareState
		st.initializingSinceMs = nowMs
		g.shareState = &st
	}
	// The settled flags the replay derived may predate the topic image
	// (a shard replayed before its image is installed): derive them again.
	var stale []string
	s.groups.Ascend(func(g *group) bool {
		if g.typ == Share && g.shareSettled != s.shareSettled(g) {
			stale = append(stale, g.id)
		}
		return true
	})
	for _, id := range stale {
		g := s.mutableGroup(id)
		g.shareSettled = !g.shareSettled
	}
}

// shareSettled derives group.shareSettled: no initialisation is pending
// or wanted, and the target holds exactly the initialised partitions.
func (s *Shard) shareSettled(g *group) bool {
	if initializedAssignmentPending(g.shareState, maps.Values(g.members)) {
		return false
	}
	for _, m := range g.members {
		for _, topic := range m.subscribedTopics {
			if _, ok := s.shareInitDone(g.shareState, topic, false); !ok {
				return false
			}
		}
	}
	return true
}
