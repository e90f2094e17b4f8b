package plugin

import (
	"context"
	"errors"
	"fmt"
)

// ErrFenced is returned by a [FencedStore] for a call whose fencing token is
// lower than the highest token the store has seen for the group: the caller
// no longer leads the group's partition, and its call must not take effect.
// It is permanent (retrying the same call cannot succeed) and it is never a
// failure of the store: errors.Is(err, ErrFenced) tells the coordinator that
// a newer owner has taken over.
var ErrFenced = Permanent(errors.New("topology description store call fenced: a newer coordinator owns the group"))

// FencedStore is an optional [Store] extension, coordsim's proposal for
// KIP-1331 (docs/kip1331-v3.md): set and delete carry a fencing token, the
// epoch at which the calling coordinator loaded the group's
// __consumer_offsets partition (Kafka's partition leader epoch, which only
// grows). The store keeps, per group, the highest token it has seen, keeps
// it after a delete, and refuses a call with a lower token with [ErrFenced]
// without changing anything; a call with an equal or higher token runs as
// the plain call does and records the token. A call refused for another
// reason (bad arguments, a closed store) records nothing.
//
// This closes the move window that no unfenced protocol can: a
// deleteTopology issued by a partition's previous coordinator that reaches
// the store after the new coordinator solicited, received and recorded a
// fresh description carries a lower token, so it is refused instead of
// erasing the fresh row.
//
// The plain Store methods stay unfenced: they neither check nor record a
// token. The coordinator's protocol v3 uses the fenced methods when the store
// implements them (see [AsFenced]) and falls back to v2 otherwise; the
// simulator refuses such a store under v3 instead (sim.CapabilityError), so
// that a run that says v3 ran v3.
type FencedStore interface {
	Store
	// SetTopologyFenced is SetTopology guarded by token.
	SetTopologyFenced(ctx context.Context, groupID string, topologyEpoch int32, d *TopologyDescription, token int32) error
	// DeleteTopologyFenced is DeleteTopology guarded by token; the token is
	// kept after the delete.
	DeleteTopologyFenced(ctx context.Context, groupID string, token int32) error
}

// FencingSupport is implemented by wrappers (a fault injector, a switch)
// that have the FencedStore methods whatever they wrap: SupportsFencing
// reports whether the wrapped store really enforces the tokens. [AsFenced]
// consults it, so a wrapper around an unfenced store is not mistaken for a
// fenced one.
type FencingSupport interface {
	SupportsFencing() bool
}

// AsFenced returns s as a FencedStore when it implements the fenced methods
// and, if it is a wrapper (FencingSupport), says the store it wraps enforces
// them.
func AsFenced(s Store) (FencedStore, bool) {
	f, ok := s.(FencedStore)
	if !ok {
		return nil, false
	}
	if fs, ok := s.(FencingSupport); ok && !fs.SupportsFencing() {
		return nil, false
	}
	return f, true
}

// CheckToken reports whether token can fence a call: partition epochs start
// at 0. The error wraps [ErrInvalidArgument].
func CheckToken(token int32) error {
	if token < 0 {
		return fmt.Errorf("%w: negative fencing token %d", ErrInvalidArgument, token)
	}
	return nil
}

// Fence is the rule every FencedStore applies, for stores to share: given
// the highest token seen for the group (ok false when none), it returns
// ErrFenced (wrapped with the tokens) for a lower token, nil otherwise.
func Fence(groupID string, highest int32, ok bool, token int32) error {
	if ok && token < highest {
		return fmt.Errorf("group %q: token %d is below %d: %w", groupID, token, highest, ErrFenced)
	}
	return nil
}

// CheckContext returns a transient error wrapping ctx.Err() when ctx is
// already cancelled or past its deadline, and nil otherwise (also for a nil
// ctx). Stores call it first, so a call whose caller gave up changes nothing.
func CheckContext(ctx context.Context) error {
	if ctx == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return Transient(fmt.Errorf("context done before the call: %w", err))
	}
	return nil
}

// SafeSetFenced calls s.SetTopologyFenced with the protections of [SafeSet];
// a negative token fails permanently without calling the store.
func SafeSetFenced(ctx context.Context, s FencedStore, groupID string, topologyEpoch int32, d *TopologyDescription, token int32) error {
	if s == nil {
		return ErrNoStore
	}
	if err := CheckSetArgs(groupID, topologyEpoch, d); err != nil {
		return err
	}
	if err := CheckToken(token); err != nil {
		return err
	}
	_, err := call(ctx, OpSet, func(ctx context.Context) (*TopologyDescription, error) {
		return nil, s.SetTopologyFenced(ctx, groupID, topologyEpoch, d, token)
	})
	return err
}

// SafeDeleteFenced calls s.DeleteTopologyFenced with the protections of
// [SafeSet]; a negative token fails permanently without calling the store.
func SafeDeleteFenced(ctx context.Context, s FencedStore, groupID string, token int32) error {
	if s == nil {
		return ErrNoStore
	}
	if err := CheckGroupID(groupID); err != nil {
		return err
	}
	if err := CheckToken(token); err != nil {
		return err
	}
	_, err := call(ctx, OpDelete, func(ctx context.Context) (*TopologyDescription, error) {
		return nil, s.DeleteTopologyFenced(ctx, groupID, token)
	})
	return err
}
