// Package loadtest drives a Kafka endpoint (coordsim's wire.Cluster, or
// any broker) with real clients over loopback: franz-go producers at a
// constant record rate spread over a topic of many partitions, and a
// consumer group reading it, committing as it goes. It also reads the
// process's memory (VmRSS from /proc/self/status and runtime.MemStats) so
// that a long run can show whether `coordsim serve` stays bounded
// (cmd/servemem, issue 21's "RSS under sustained load is flat").
//
// A Load only counts: records sent, acknowledged, failed and consumed. It
// keeps no per-record state, so its own memory stays flat however long it
// runs, and what grows in a sample is the endpoint's.
//
// What it must never do: run inside a simulation (it reads the wall clock,
// starts goroutines and opens sockets), or connect anywhere it is not
// given.
package loadtest
