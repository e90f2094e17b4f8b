// Package wire is a Kafka broker endpoint for coordsim: it serves Kafka's
// wire protocol on loopback so that real clients (franz-go's kgo and kadm,
// or any other) run against coordsim's group coordinator.
//
// A Cluster is a few brokers, each a listener and a coordinator.Coordinator
// run on the wall clock by a coordinator/live Driver, over one shared set of
// __consumer_offsets logs (so a partition can move between brokers), with an
// in-memory data plane (topics with the topic configs set at creation,
// topicconfig.go, changed by AlterConfigs; partition logs of record batches
// bounded by size and time retention, compacted when the topic says so,
// and all together by Config.MaxDataBytes: retention.go, compaction.go;
// high watermarks and
// log start offsets, per-partition idempotent producer state expiring
// after producer.id.expiration.ms on Config.Clock: producer_state.go), a
// KIP-227 fetch session cache per
// broker, and the cluster's group configs (the strings
// IncrementalAlterConfigs set on GROUP resources, groupconfig.go), which
// every alteration installs on each broker's coordinator and on the share
// plane, as Kafka's brokers take them from the cluster metadata. Every
// topic change installs the topic image on each coordinator: partition
// counts and, when the brokers have racks (Config.BrokerRacks), each
// partition's replica racks, the same replicas Metadata reports.
// __consumer_offsets is the coordinators' log, never a data topic: Metadata
// shows it as Kafka's internal topic, led by the coordinators, and it never
// enters the topic image (internal_topics.go).
//
// Requests are decoded and responses encoded by franz-go's kmsg; this
// package never hand-writes the codec. Each API key has one file, named by
// its key number as franz-go's kfake names them (00_produce.go,
// 68_consumer_group_heartbeat.go), holding a thin handler: check the
// request, call the coordinator (through the live driver) or the data
// plane, build the response. Handlers hold no group logic: membership,
// assignment, offsets and their errors are the coordinator's. The one
// exception is where Kafka's own broker layer decides: the heartbeats'
// request checks (GroupCoordinatorService's throwIf...RequestIsInvalid, in
// heartbeat_validation.go, which read null and empty apart as Go cannot)
// and a v0 consumer join's generated member id.
//
// Connections follow Kafka's SocketServer: one request at a time per
// connection, answered in order; a frame longer than
// socket.request.max.bytes, a frame that does not decode, an unknown API
// key or an unsupported version (except ApiVersions, which is answered at
// v0 with UNSUPPORTED_VERSION, KIP-511) closes the connection with a log
// line. A client that stops mid-frame is cut off by a read deadline. Each
// connection has one reader goroutine that reads frames through a buffer
// (one read per frame in the common case) while the previous request is
// served, so a client that goes away wakes its parked Fetch, ShareFetch or
// JoinGroup at once instead of holding a goroutine until its timeout.
//
// What it must never do: hold group state of its own (group configs are
// cluster metadata, not group state), bind anything but the
// address it is given (loopback by default; it has no authentication and no
// TLS), or run inside a simulation (it reads the wall clock and starts
// goroutines, two per connection).
package wire
