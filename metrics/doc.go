// Package metrics is Kafka's client-metrics model (org.apache.kafka.common.metrics)
// rebuilt in Go for a deterministic simulator: metric names with tags, sensors that
// hold stats, Kafka's exact SampledStat/Rate/Meter semantics, gauges, collectors for
// series that come and go, a sorted snapshot, and two exporters (Prometheus text
// exposition and a plain text dump for goldens).
//
// What the package must never do: read a clock, start a goroutine or hold global
// mutable state. Every time is an int64 of milliseconds passed in by the caller
// (the simulator's virtual time, or a live driver's clock), so the same calls give
// the same numbers, and Snapshot output is byte-identical across runs. A Registry
// is not safe for concurrent use; like the shard it belongs to the one goroutine
// that drives it.
//
// # Model
//
// A [Registry] owns [Sensor]s and metrics. A sensor is a named recorder:
// [Sensor.RecordValue] updates every stat of the sensor, then its parents'.
// A stat is added under a [MetricName] and becomes one metric; a [Meter] is added
// under a base name and becomes two, "<base>-rate" (a gauge) and "<base>-count" (a
// counter; the group coordinator's naming, where Kafka's docs say "-total"; see
// [WithCountSuffix]). Gauges computed on demand are added with
// [Registry.AddMetric]; families whose series appear and disappear (group counts
// by state, per-group series) come from a [Collector] registered with
// [Registry.RegisterCollector], called on every snapshot.
//
// The package carries no metric names of its own: callers name their metrics
// as Kafka does, tag values included (the group coordinator's state tags are
// the state enums' toString, "Empty", "NotReady"). The coordinator's list,
// checked against GroupCoordinatorMetrics, is in docs/design.md ("Group
// coordinator metrics, checked against Kafka").
//
// # Semantics kept from Kafka, and decisions
//
//   - Stats follow Kafka's code, not its docs: a SampledStat keeps a ring of
//     Samples+1 samples; a sample is complete when its age reaches TimeWindowMs or
//     its event count reaches EventWindow; samples whose last event is at least
//     Samples*TimeWindowMs old are reset on measure (purged from the last event,
//     not the start); Rate divides by the elapsed time since the oldest sample,
//     padded to Samples-1 full windows and at least 1 ms, in seconds.
//   - Measuring is not read-only, exactly as in Kafka: it purges obsolete
//     samples, and measuring an empty sampled stat opens a sample at that time.
//     Snapshots are therefore part of the deterministic input: take them at the
//     same virtual times to get the same later values.
//   - Rates are per second (Kafka's default TimeUnit); other units are not offered.
//   - Config fields left at zero take Kafka's defaults; every sensor of a registry
//     shares the registry's Config (Kafka allows a per-sensor config; coordsim does
//     not need one). Sensors never expire.
//   - Sensor get-or-create ignores the parents given when the sensor already
//     exists, like Kafka's Metrics.sensor. Removing a sensor removes its metrics
//     and, recursively, its child sensors (Kafka's removeSensor). A removed
//     sensor's handle records nothing, where Kafka would keep feeding its stats
//     and parents.
//   - A stat instance belongs to one sensor; adding it twice is an error.
//   - Names, groups and tag keys are ASCII letters, digits, '-' and '_', starting
//     with a letter, at most 255 bytes, so that snake-casing them gives a valid
//     Prometheus name. Tag values are any valid UTF-8 up to 32767 bytes (Kafka's
//     STRING limit, enough for any group id). The identity of a metric is
//     (name, group, tags); the description is not part of it, as in Kafka.
//   - The Prometheus writer drops the group: a family is prefix+snake(name).
//     Two samples that land on the same series, or one family with two kinds, is
//     an error, and nothing is written.
//   - Recording into a Sensor does not allocate; sampled stats preallocate their
//     ring when they are added.
package metrics
