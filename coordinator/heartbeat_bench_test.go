package coordinator

import (
	"testing"

	"github.com/coordsim/coordsim/internal/benchtest"
	"github.com/coordsim/coordsim/shard"
)

// coordinatorBackend runs the heartbeat benchmarks through the service:
// route, the shard's operation, append and replay of its records, the
// timers it schedules, commit (at once) and the response.
type coordinatorBackend struct {
	c     *Coordinator
	clock *benchClock
}

func newCoordinatorBackend(b *testing.B) benchtest.Backend {
	clock := &benchClock{ms: 1_700_000_000_000}
	cfg := DefaultConfig()
	// The streams groups settle without the initial rebalance timer.
	cfg.StreamsInitialRebalanceDelay = 0
	c := newBenchCoordinatorWith(b, cfg, clock)
	if err := c.SetTopics(benchtest.Topics); err != nil {
		b.Fatal(err)
	}
	return &coordinatorBackend{c: c, clock: clock}
}

func (x *coordinatorBackend) ConsumerHeartbeat(req shard.ConsumerGroupHeartbeatRequest) (shard.ConsumerGroupHeartbeatResponse, error) {
	return x.c.ConsumerGroupHeartbeat(req).Result()
}

func (x *coordinatorBackend) StreamsHeartbeat(req shard.StreamsGroupHeartbeatRequest) (shard.StreamsGroupHeartbeatResponse, error) {
	return x.c.StreamsGroupHeartbeat(req).Result()
}

func (x *coordinatorBackend) Describe(group string) (shard.GroupDescription, bool) {
	d := x.c.DescribeGroups([]string{group})[0]
	return d.Description, d.Err == nil
}

func (x *coordinatorBackend) Advance() { x.clock.ms++ }

// BenchmarkConsumerGroupHeartbeat measures one KIP-848 heartbeat through the
// service, over the 50 hosted shards. The cases are benchtest.RunConsumer's,
// as shard.BenchmarkConsumerGroupHeartbeat runs them on a bare shard: the
// service's share of the cost is the difference.
func BenchmarkConsumerGroupHeartbeat(b *testing.B) {
	benchtest.RunConsumer(b, newCoordinatorBackend)
}

// BenchmarkStreamsGroupHeartbeat is BenchmarkConsumerGroupHeartbeat for
// KIP-1071 streams groups (benchtest.RunStreams).
func BenchmarkStreamsGroupHeartbeat(b *testing.B) {
	benchtest.RunStreams(b, newCoordinatorBackend)
}
