package wire

import (
	"testing"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/groupconfig"
	"github.com/coordsim/coordsim/sharebroker"
)

// FuzzParseGroupConfig feeds arbitrary keys and values to the group config
// validation. Whatever the input it must not panic; a config it accepts
// must be accepted by the coordinator and the share plane it is installed
// on (the two validations agree, so an accepted alteration never fails
// half-way), and its normalized values (what DescribeConfigs shows) must
// parse to the same config.
func FuzzParseGroupConfig(f *testing.F) {
	for _, seed := range [][4]string{
		{"consumer.session.timeout.ms", "50000", "consumer.heartbeat.interval.ms", "6000"},
		{"share.auto.offset.reset", "by_duration:P1DT2H3M4.5S", "share.isolation.level", "read_committed"},
		{"share.auto.offset.reset", "by_duration:-PT1S", "share.renew.acknowledge.enable", "FALSE"},
		{"streams.num.standby.replicas", "2", "streams.initial.rebalance.delay.ms", " 0 "},
		{"share.record.lock.duration.ms", "15000", "share.partition.max.record.locks", "100"},
		{"streams.session.timeout.ms", "45000", "streams.heartbeat.interval.ms", "44999"},
		{"unknown", "1", "consumer.session.timeout.ms", "x"},
	} {
		f.Add(seed[0], seed[1], seed[2], seed[3])
	}
	cfg := DefaultConfig()
	cfg.Coordinator.ConsumerMinSessionTimeout, cfg.Coordinator.ConsumerMinHeartbeatInterval = time.Second, time.Second
	cl := &Cluster{cfg: cfg}
	coord, err := coordinator.New(cfg.Coordinator, coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	if err != nil {
		f.Fatal(err)
	}
	sb, err := sharebroker.New(cfg.Share)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, k1, v1, k2, v2 string) {
		props := map[string]string{k1: v1, k2: v2}
		parsed, err := cl.parseGroupConfig(props)
		if err != nil {
			return
		}
		if err := coord.SetGroupConfig("g", parsed.coord); err != nil {
			t.Fatalf("the wire accepted %v, the coordinator refused %+v: %v", props, parsed.coord, err)
		}
		if err := sb.SetGroupConfig("g", parsed.share); err != nil {
			t.Fatalf("the wire accepted %v, the share plane refused %+v: %v", props, parsed.share, err)
		}
		normalized := map[string]string{}
		for name, v := range props {
			k, _ := groupconfig.KeyOf(name)
			normalized[name] = k.Normalize(v)
		}
		again, err := cl.parseGroupConfig(normalized)
		if err != nil {
			t.Fatalf("the normalized %v is refused: %v", normalized, err)
		}
		if !equalParsed(parsed, again) {
			t.Fatalf("%v and its normalized %v parse differently", props, normalized)
		}
	})
}

func equalParsed(a, b parsedGroupConfig) bool {
	eq := func(x, y *int32) bool { return (x == nil) == (y == nil) && (x == nil || *x == *y) }
	ac, bc := a.coord, b.coord
	return a.share == b.share &&
		eq(ac.ConsumerSessionTimeoutMs, bc.ConsumerSessionTimeoutMs) && eq(ac.ConsumerHeartbeatIntervalMs, bc.ConsumerHeartbeatIntervalMs) &&
		eq(ac.ShareSessionTimeoutMs, bc.ShareSessionTimeoutMs) && eq(ac.ShareHeartbeatIntervalMs, bc.ShareHeartbeatIntervalMs) &&
		eq(ac.StreamsSessionTimeoutMs, bc.StreamsSessionTimeoutMs) && eq(ac.StreamsHeartbeatIntervalMs, bc.StreamsHeartbeatIntervalMs) &&
		eq(ac.StreamsNumStandbyReplicas, bc.StreamsNumStandbyReplicas) && eq(ac.StreamsInitialRebalanceDelayMs, bc.StreamsInitialRebalanceDelayMs)
}
