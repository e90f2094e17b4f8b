// Package brokerdiff runs a real Kafka broker as the wire oracle: a
// single-node KRaft cluster (combined controller and broker, loopback,
// ephemeral ports, a temporary log directory) started from the Maven
// artifacts the module in oracle/broker resolves (kafka_2.13 at the
// version its pom pins), and a field-by-field comparison of kmsg responses
// after a documented normalisation (normalise.go) of what legitimately
// differs between two clusters: member and topic ids, node ids, hosts and
// ports, throttle times, the cluster id.
//
// The differential test (brokerdiff_test.go) sends the same scripted
// request sequences to that broker and to coordsim's wire endpoint and
// prints a table of cases and verdicts; wire's round-trip benchmarks use
// Start to add Kafka as one more peer. docs/fidelity.md says how to run
// both.
//
// It must never be imported by the simulator, the coordinator or the wire
// endpoint: it is a test harness, it starts a JVM and reads the wall clock
// while it waits for the broker.
package brokerdiff
