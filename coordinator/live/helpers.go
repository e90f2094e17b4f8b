package live

import (
	"context"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/shard"
)

type outcome[T any] struct {
	value T
	err   error
}

// Call starts op on the loop and waits for its future: the way to run any
// coordinator write the typed helpers below do not cover. If ctx ends first it
// returns ctx.Err(): the operation may still complete on the loop, as a
// Kafka request the client stopped waiting for does, and its outcome is
// dropped. If the driver stops first it returns ErrStopped, unless the
// future completed while the loop shut down (pending writes then fail with
// NOT_COORDINATOR, which is returned instead).
func Call[T any](ctx context.Context, d *Driver, op func(*coordinator.Coordinator) *coordinator.Future[T]) (T, error) {
	var zero T
	// With no commit delay a write's future completes before op returns:
	// its outcome is taken on the loop, with no channel to wait on.
	st := &callState[T]{}
	if err := d.Do(ctx, func(c *coordinator.Coordinator) {
		f := op(c)
		if f.Done() {
			st.value, st.err = f.Result()
			st.done = true
			return
		}
		st.ch = make(chan outcome[T], 1) // the callback never blocks the loop
		f.OnDone(func(v T, err error) { st.ch <- outcome[T]{v, err} })
	}); err != nil {
		return zero, err
	}
	if st.done {
		return st.value, st.err
	}
	select {
	case o := <-st.ch:
		return o.value, o.err
	case <-ctx.Done():
		return zero, ctx.Err()
	case <-d.Done():
		select {
		case o := <-st.ch:
			return o.value, o.err
		default:
			return zero, ErrStopped
		}
	}
}

// callState is what a Call's function leaves for its caller: the outcome
// of a future done on the loop, or the channel its outcome will come on.
type callState[T any] struct {
	done  bool
	value T
	err   error
	ch    chan outcome[T]
}

// Read runs a synchronous coordinator read on the loop and returns its
// result, or the driver's error (ErrStopped, ctx.Err()).
func Read[T any](ctx context.Context, d *Driver, fn func(*coordinator.Coordinator) (T, error)) (T, error) {
	var value T
	var err error
	if doErr := d.Do(ctx, func(c *coordinator.Coordinator) { value, err = fn(c) }); doErr != nil {
		var zero T
		return zero, doErr
	}
	return value, err // Do returned nil: fn ran and returned before it did
}

// CommitOffsets handles an OffsetCommit and returns once it is committed.
func (d *Driver) CommitOffsets(ctx context.Context, req shard.OffsetCommitRequest) (shard.OffsetCommitResponse, error) {
	return Call(ctx, d, func(c *coordinator.Coordinator) *coordinator.Future[shard.OffsetCommitResponse] {
		return c.CommitOffsets(req)
	})
}

// ConsumerGroupHeartbeat handles a KIP-848 ConsumerGroupHeartbeat and
// returns its committed response.
func (d *Driver) ConsumerGroupHeartbeat(ctx context.Context, req shard.ConsumerGroupHeartbeatRequest) (shard.ConsumerGroupHeartbeatResponse, error) {
	return Call(ctx, d, func(c *coordinator.Coordinator) *coordinator.Future[shard.ConsumerGroupHeartbeatResponse] {
		return c.ConsumerGroupHeartbeat(req)
	})
}

// StreamsGroupHeartbeat handles a KIP-1071 StreamsGroupHeartbeat and returns
// its committed response, with KIP-1331's TopologyDescriptionRequired set
// when the coordinator solicits a push.
func (d *Driver) StreamsGroupHeartbeat(ctx context.Context, req shard.StreamsGroupHeartbeatRequest) (shard.StreamsGroupHeartbeatResponse, error) {
	return Call(ctx, d, func(c *coordinator.Coordinator) *coordinator.Future[shard.StreamsGroupHeartbeatResponse] {
		return c.StreamsGroupHeartbeat(req)
	})
}

// FetchOffsets reads a group's committed offsets (all of them when topics
// is nil).
func (d *Driver) FetchOffsets(ctx context.Context, groupID string, topics []shard.TopicPartitions, requireStable bool) ([]shard.FetchedOffset, error) {
	return Read(ctx, d, func(c *coordinator.Coordinator) ([]shard.FetchedOffset, error) {
		return c.FetchOffsets(groupID, topics, requireStable)
	})
}

// OffsetFetch reads one group's committed offsets with the member checks of
// an OffsetFetch v9+ (see shard.Shard.OffsetFetch).
func (d *Driver) OffsetFetch(ctx context.Context, req shard.OffsetFetchRequest) ([]shard.FetchedOffset, error) {
	return Read(ctx, d, func(c *coordinator.Coordinator) ([]shard.FetchedOffset, error) {
		return c.OffsetFetch(req)
	})
}

// DescribeGroups describes groups from committed state, in request order;
// per-group errors are in the rows. The error is the driver's (ErrStopped,
// ctx.Err()).
func (d *Driver) DescribeGroups(ctx context.Context, groupIDs []string) ([]coordinator.DescribedGroup, error) {
	return Read(ctx, d, func(c *coordinator.Coordinator) ([]coordinator.DescribedGroup, error) {
		return c.DescribeGroups(groupIDs), nil
	})
}
