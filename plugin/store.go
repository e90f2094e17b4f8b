package plugin

import (
	"context"
	"fmt"
	"unicode/utf8"
)

// Store is the topology-description store a broker is configured with: Kafka's
// StreamsGroupTopologyDescriptionPlugin (group.streams.topology.description.plugin.class)
// as a synchronous, context-aware Go interface. The coordinator makes the calls
// asynchronous itself (docs/design.md, "Plugin calls and asynchrony").
//
// Implementations must be safe for concurrent use: the coordinator may call any method
// from several goroutines at once, including several SetTopology calls for the same
// (group, epoch) with identical descriptions, and a DeleteTopology racing a
// SetTopology of the same group.
//
// Every error should be classified with [Permanent] or [Transient]: a permanent
// failure makes the coordinator stop soliciting the description until the topology
// epoch advances; a transient one arms a back-off and the description is asked for
// again. An unclassified error counts as transient.
//
// A Store must not retain the description passed to SetTopology, and the description
// returned by GetTopology belongs to the caller: neither side may see the other's later
// mutations. The conformance suite in package plugintest checks every rule stated
// here.
type Store interface {
	// SetTopology stores d as the description of groupID at topologyEpoch. It must be
	// idempotent: setting the same (group, epoch, description) again succeeds and
	// changes nothing. A set at a newer epoch replaces what the group had. What a set
	// at an older epoch than the stored one does is the store's choice; it must
	// document it.
	SetTopology(ctx context.Context, groupID string, topologyEpoch int32, d *TopologyDescription) error

	// GetTopology returns the description stored for groupID at topologyEpoch. It
	// returns (nil, nil) when nothing is stored for that group at that epoch (a
	// description stored at another epoch is not returned), which is a normal answer.
	// A non-nil error means the store could not answer; it must then return a nil
	// description.
	GetTopology(ctx context.Context, groupID string, topologyEpoch int32) (*TopologyDescription, error)

	// DeleteTopology removes whatever is stored for groupID, at every epoch. It is
	// keyed by the group id only and is idempotent: deleting a group with nothing
	// stored succeeds.
	DeleteTopology(ctx context.Context, groupID string) error

	// Close releases the store. Every call after Close returns an error, preferably
	// one that wraps [ErrClosed], and never panics.
	Close() error
}

// Op names one Store operation. Its String is Kafka's method name, so logs and traces
// read like the broker's.
type Op uint8

// The Store operations.
const (
	OpSet    Op = iota + 1 // SetTopology
	OpGet                  // GetTopology
	OpDelete               // DeleteTopology
	OpClose                // Close
)

// String returns Kafka's name of the operation, e.g. "setTopology".
func (o Op) String() string {
	switch o {
	case OpSet:
		return "setTopology"
	case OpGet:
		return "getTopology"
	case OpDelete:
		return "deleteTopology"
	case OpClose:
		return "close"
	default:
		return fmt.Sprintf("Op(%d)", uint8(o))
	}
}

// MaxGroupIDBytes bounds a group id's length in UTF-8 bytes. Kafka sets no limit, but
// every store needs one (bbolt keys stop at 32 KiB), and no real group id comes near
// it, so the bound is checked once here rather than failing differently in each store.
const MaxGroupIDBytes = 16 << 10

// CheckGroupID reports whether groupID can name a group in a store: it must be
// non-empty, valid UTF-8 (Kafka group ids are Java strings) and at most
// MaxGroupIDBytes long. The error wraps [ErrInvalidArgument].
func CheckGroupID(groupID string) error {
	switch {
	case groupID == "":
		return fmt.Errorf("%w: empty group id", ErrInvalidArgument)
	case len(groupID) > MaxGroupIDBytes:
		return fmt.Errorf("%w: group id of %d bytes exceeds %d", ErrInvalidArgument, len(groupID), MaxGroupIDBytes)
	case !utf8.ValidString(groupID):
		return fmt.Errorf("%w: group id %q is not valid UTF-8", ErrInvalidArgument, groupID)
	}
	return nil
}

// CheckEpoch reports whether topologyEpoch can be stored or asked for: Kafka's
// topology epochs start at 0, and -1 (and KIP-1331's -2) are markers that never reach
// a store. The error wraps [ErrInvalidArgument].
func CheckEpoch(topologyEpoch int32) error {
	if topologyEpoch < 0 {
		return fmt.Errorf("%w: negative topology epoch %d", ErrInvalidArgument, topologyEpoch)
	}
	return nil
}

// CheckSetArgs checks the arguments of a SetTopology call: a valid group id, a
// non-negative epoch and a non-nil description that passes Validate. Stores call it
// first so that bad input fails the same way everywhere; the error is permanent
// (it wraps [ErrInvalidArgument] or [ErrInvalidDescription]).
func CheckSetArgs(groupID string, topologyEpoch int32, d *TopologyDescription) error {
	if err := CheckGroupID(groupID); err != nil {
		return err
	}
	if err := CheckEpoch(topologyEpoch); err != nil {
		return err
	}
	if d == nil {
		return fmt.Errorf("%w: nil topology description", ErrInvalidArgument)
	}
	return d.Validate()
}
