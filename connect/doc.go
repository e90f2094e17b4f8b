// Package connect is the configuration and decision logic of Kafka Connect
// sink tasks, as Connect would run it: WorkerSinkTask on a consumer group,
// and KIP-1302's WorkerShareSinkTask on a share group
// (docs/share-groups.md §3.2, §4.1–§4.2).
//
// Resolve layers a worker's and a connector's properties the way
// Worker.baseConsumerConfigs does (Connect defaults ← worker consumer.* ←
// connector consumer.override.*), picks the task class from the effective
// group.protocol, and for a share sink strips the consumer configs a
// KafkaShareConsumer rejects (§1.12), forces explicit acknowledgement and
// moves the auto.offset.reset intent into the group config
// share.auto.offset.reset. ValidateGroup is the start-up check against a
// group id that already exists as another type. OnConvert,
// OnConvertFailure and OnPut map a record's or a batch's outcome to what
// the task does: acknowledge (ACCEPT, RELEASE, REJECT), fail, retry the
// batch, skip the record, report to Connect's DLQ.
//
// The simulator (package sim) runs the tasks as actors and calls in here
// for every decision. So this package must never read a clock, use
// randomness, start a goroutine, hold mutable global state, modify its
// inputs, or let Go map iteration order reach an output (Props.SortedKeys
// is the order to iterate in). Bad input is a *ConfigError (Kafka's
// ConfigException wording) or a kerr error; a panic is a bug here.
//
// KIP-1302 is under discussion and has no implementation; its page states
// only the motivation, the activation keys and at-least-once delivery
// (§4.1). Everything else follows §4.2, which is "[derived]" from Connect
// and share-consumer code facts, and the choices below are ours where it
// is silent or unsure:
//
//   - Layering follows Worker.baseConsumerConfigs literally, so a worker's
//     consumer.group.id overrides connect-<name> for every connector, as it
//     does in Connect. A connector's bare "group.id" is ignored (with a
//     warning); only consumer.override.group.id changes a sink's group.
//     Override policies other than the default All are not modelled.
//   - group.protocol is compared case-insensitively and untrimmed, as
//     Kafka's validator does; "" or any value other than classic, consumer
//     or share is a ConfigError naming the key as written.
//   - §1.12's rejected keys are stripped for share sinks, including
//     interceptor.classes and group.remote.assignor, which §4.2's list
//     omits but §1.12 names. A stripped key the user set (other than
//     group.protocol, which selected the task class, and
//     auto.offset.reset, which moves to the group) leaves a warning; so does
//     a share.acknowledgement.mode other than explicit.
//   - "Translate Connect's earliest intent" (§4.2): earliest becomes
//     share.auto.offset.reset=earliest, by_duration:D becomes the same
//     by_duration, latest sets nothing (Kafka's default; a group already
//     set to earliest keeps it). none is refused for share sinks: a share
//     group has no none (§1.8), and silently starting at latest would skip
//     the backlog the user asked to guard. A by_duration under 1 ms is
//     refused for share sinks because the simulator counts milliseconds.
//   - Converter/SMT failure with errors.tolerance=all: ACCEPT, or REJECT
//     when the group has a KIP-1191 DLQ (§4.2's "or"). With both DLQs
//     configured the record goes to both: Connect's DLQ through
//     ToConnectDLQ and the broker's through REJECT. With tolerance none the
//     task fails without acknowledging; the record is released on close,
//     so a poison record fails one task per delivery until the delivery
//     limit archives it.
//   - put() throwing RetriableException: a share sink RELEASEs the batch
//     (no local pause-and-retry, §4.2); a consumer sink retries the same
//     batch.
//   - put() throwing any other exception: a share sink REJECTs the batch,
//     as KIP-1302 says ("Fatal Error: Marks records as REJECT (routes to
//     Dead Letter Queue if configured)"), so the task goes on. Without a
//     KIP-1191 dead-letter queue that drops the batch's data, which is why
//     FatalPutFailTask keeps WorkerSinkTask's answer as a named option: the
//     task fails, its close releases the batch, and only the delivery limit
//     ends a poison batch. Choose it when a "fatal" exception may be a
//     misclassified transient one and no DLQ is configured. A consumer
//     sink always fails the task.
//   - share.acquisition.lock.timeout.ms, which KIP-1302 tells users to
//     tune, is no Kafka config. Resolve maps it (connector key,
//     consumer.override.* or the worker's consumer.*) onto the group config
//     share.record.lock.duration.ms in GroupConfigs, which the worker sets
//     through the admin path like share.auto.offset.reset, within Kafka's
//     group bounds [15000, 60000]; any other value is a ConfigError naming
//     the real key. It is never passed to the client nor ignored silently.
//   - A collision answer is what the broker would say (§2.6):
//     GROUP_ID_NOT_FOUND for share sinks and consumer-protocol sinks, but
//     INCONSISTENT_GROUP_PROTOCOL for a classic-protocol sink meeting a
//     share or streams group (classic JoinGroup's answer).
//   - topics are validated with Kafka's topic-name rules at Resolve rather
//     than at subscribe; topics.regex is refused as not modelled.
//
// The outcome enums' zero values are invalid, and every decision function
// returns (Decision, error), so a forgotten field is INVALID_REQUEST rather
// than a silent ACCEPT.
package connect
