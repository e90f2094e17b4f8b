package metrics_test

import (
	"fmt"
	"os"

	"github.com/coordsim/coordsim/metrics"
)

// ExampleRegistry records offset commits into a sensor with a Meter, the way
// Kafka's group coordinator does, on virtual time, and exposes the result as
// Prometheus text.
func ExampleRegistry() {
	reg, err := metrics.NewRegistry(metrics.Config{}) // 2 samples of 30 s
	if err != nil {
		panic(err)
	}
	commits, err := reg.Sensor("OffsetCommits")
	if err != nil {
		panic(err)
	}
	base := metrics.MustMetricName("offset-commit", "group-coordinator-metrics", "Committed offsets")
	if err := commits.AddMeter(base, metrics.NewMeter()); err != nil {
		panic(err)
	}
	_, err = reg.RegisterCollector(func(nowMs int64, emit func(metrics.MetricName, metrics.Kind, float64)) {
		emit(metrics.MustMetricName("group-count", "group-coordinator-metrics", "Groups by protocol", "protocol", "consumer"), metrics.KindGauge, 3)
	})
	if err != nil {
		panic(err)
	}

	// A commit of 10 offsets at t=0 and one of 5 at t=40 s; the rate at
	// t=45 s is 15 offsets over 45 s.
	commits.RecordValue(10, 0)
	commits.RecordValue(5, 40_000)

	if err := metrics.WritePrometheus(os.Stdout, reg.Snapshot(45_000), "kafka_coordinator_"); err != nil {
		fmt.Println(err)
	}
	// Output:
	// # HELP kafka_coordinator_group_count Groups by protocol
	// # TYPE kafka_coordinator_group_count gauge
	// kafka_coordinator_group_count{protocol="consumer"} 3
	// # HELP kafka_coordinator_offset_commit_rate Committed offsets
	// # TYPE kafka_coordinator_offset_commit_rate gauge
	// kafka_coordinator_offset_commit_rate 0.3333333333333333
	// # HELP kafka_coordinator_offset_commit_total Committed offsets
	// # TYPE kafka_coordinator_offset_commit_total counter
	// kafka_coordinator_offset_commit_total 15
}
