package share

import (
	"github.com/google/btree"

	"github.com/coordsim/coordsim/kerr"
)

// UninitializedStartOffset is the persisted start offset of a share-partition
// whose first offset is still to be resolved by share.auto.offset.reset.
const UninitializedStartOffset int64 = -1

// StateBatch is one persisted run of offsets with the same state and count
// (ShareSnapshotValue.StateBatches). DeliveryState is never Acquired.
type StateBatch struct {
	FirstOffset   int64
	LastOffset    int64
	DeliveryState RecordState
	DeliveryCount int32
}

// PersistedState is a share-partition's durable state, what
// WriteShareGroupState carries and ReadShareGroupState returns: a full
// snapshot here (Kafka writes deltas and merges them; a full snapshot is the
// merge's result, so readers see the same thing).
type PersistedState struct {
	Key                   Key
	StateEpoch            int32
	LeaderEpoch           int32
	StartOffset           int64 // UninitializedStartOffset until resolved
	DeliveryCompleteCount int64
	StateBatches          []StateBatch
}

// clone deep-copies st so neither side aliases the other's batches.
func (st PersistedState) clone() PersistedState {
	st.StateBatches = append([]StateBatch(nil), st.StateBatches...)
	return st
}

// Persister models the share coordinator and its __share_group_state topic
// (§1.10) in memory: one PersistedState per share-partition, with Kafka's
// fencing. A write fault hook lets the simulator fail writes.
type Persister struct {
	states *btree.BTreeG[*persisted]
	writes int64
	fault  func(PersistedState) error
}

type persisted struct {
	key Key
	st  PersistedState
}

// NewPersister returns an empty persister.
func NewPersister() *Persister {
	return &Persister{states: btree.NewG(8, func(a, b *persisted) bool { return a.key.less(b.key) })}
}

// SetWriteFault installs f, called on every write that passes fencing; a
// non-nil answer fails the write (nothing stored). nil removes the hook.
func (p *Persister) SetWriteFault(f func(PersistedState) error) { p.fault = f }

// Writes returns the number of successful writes.
func (p *Persister) Writes() int64 { return p.writes }

func (p *Persister) get(key Key) *persisted {
	it, ok := p.states.Get(&persisted{key: key})
	if !ok {
		return nil
	}
	return it
}

// Initialize is InitializeShareGroupState, sent by the group coordinator
// when a topic is first subscribed (startOffset UninitializedStartOffset)
// or by an admin offset reset (a higher state epoch, which fences the
// current leader's writes). A lower state epoch than stored is
// FENCED_STATE_EPOCH.
func (p *Persister) Initialize(key Key, stateEpoch int32, startOffset int64) error {
	if err := key.validate(); err != nil {
		return err
	}
	if stateEpoch < 0 || startOffset < UninitializedStartOffset {
		return kerr.InvalidRequest.WithMessage("share: bad initialize state epoch %d start offset %d", stateEpoch, startOffset)
	}
	leader := int32(0)
	if old := p.get(key); old != nil {
		if stateEpoch < old.st.StateEpoch {
			return kerr.FencedStateEpoch.WithMessage("share: state epoch %d < stored %d", stateEpoch, old.st.StateEpoch)
		}
		leader = old.st.LeaderEpoch
	}
	p.states.ReplaceOrInsert(&persisted{key: key, st: PersistedState{
		Key: key, StateEpoch: stateEpoch, LeaderEpoch: leader, StartOffset: startOffset,
	}})
	return nil
}

// Delete removes key's state, as the share coordinator tombstones the share
// state of a deleted topic (Kafka's ShareCoordinatorService.onTopicsDeleted):
// a later Initialize starts afresh, at any state epoch. It reports whether
// there was a state; an invalid key is INVALID_REQUEST.
func (p *Persister) Delete(key Key) (bool, error) {
	if err := key.validate(); err != nil {
		return false, err
	}
	_, ok := p.states.Delete(&persisted{key: key})
	return ok, nil
}

// Read is ReadShareGroupState by a (new) partition leader: it returns the
// stored state and records leaderEpoch, so writes by older leaders are
// fenced from now on. An uninitialised key is INVALID_REQUEST; a leader
// epoch below the stored one is FENCED_STATE_EPOCH (Kafka answers
// FENCED_LEADER_EPOCH, which kerr does not model).
func (p *Persister) Read(key Key, leaderEpoch int32) (PersistedState, error) {
	if err := key.validate(); err != nil {
		return PersistedState{}, err
	}
	it := p.get(key)
	if it == nil {
		return PersistedState{}, kerr.InvalidRequest.WithMessage("share: state of %+v is not initialised", key)
	}
	if leaderEpoch < it.st.LeaderEpoch {
		return PersistedState{}, kerr.FencedStateEpoch.WithMessage("share: leader epoch %d < stored %d", leaderEpoch, it.st.LeaderEpoch)
	}
	it.st.LeaderEpoch = leaderEpoch
	return it.st.clone(), nil
}

// Write is WriteShareGroupState with a full snapshot. Fencing: uninitialised
// key → INVALID_REQUEST; leader epoch or state epoch below the stored one →
// FENCED_STATE_EPOCH; a state epoch above the stored one → INVALID_REQUEST.
// The start offset never regresses: a snapshot below the stored start is
// INVALID_REQUEST. Batches must be ascending, non-overlapping, at or above
// the start offset and never ACQUIRED.
func (p *Persister) Write(st PersistedState) error {
	if err := st.Key.validate(); err != nil {
		return err
	}
	it := p.get(st.Key)
	if it == nil {
		return kerr.InvalidRequest.WithMessage("share: write to uninitialised %+v", st.Key)
	}
	switch {
	case st.LeaderEpoch < it.st.LeaderEpoch:
		return kerr.FencedStateEpoch.WithMessage("share: leader epoch %d < stored %d", st.LeaderEpoch, it.st.LeaderEpoch)
	case st.StateEpoch < it.st.StateEpoch:
		return kerr.FencedStateEpoch.WithMessage("share: state epoch %d < stored %d", st.StateEpoch, it.st.StateEpoch)
	case st.StateEpoch > it.st.StateEpoch:
		return kerr.InvalidRequest.WithMessage("share: state epoch %d > stored %d", st.StateEpoch, it.st.StateEpoch)
	case st.StartOffset < it.st.StartOffset:
		return kerr.InvalidRequest.WithMessage("share: start offset %d < stored %d", st.StartOffset, it.st.StartOffset)
	}
	if err := validateBatches(st); err != nil {
		return err
	}
	if p.fault != nil {
		if err := p.fault(st.clone()); err != nil {
			return err
		}
	}
	it.st = st.clone()
	p.writes++
	return nil
}

func validateBatches(st PersistedState) error {
	if st.StartOffset < UninitializedStartOffset || st.DeliveryCompleteCount < 0 {
		return kerr.InvalidRequest.WithMessage("share: bad start offset %d or delivery complete count %d", st.StartOffset, st.DeliveryCompleteCount)
	}
	if st.StartOffset == UninitializedStartOffset && len(st.StateBatches) > 0 {
		return kerr.InvalidRequest.WithMessage("share: state batches without a start offset")
	}
	prev := st.StartOffset - 1
	for i, b := range st.StateBatches {
		if b.FirstOffset <= prev || b.LastOffset < b.FirstOffset || b.DeliveryCount < 0 ||
			b.DeliveryState == Acquired || b.DeliveryState < Available || b.DeliveryState > Archived {
			return kerr.InvalidRequest.WithMessage("share: state batch %d %+v is invalid", i, b)
		}
		prev = b.LastOffset
	}
	return nil
}
