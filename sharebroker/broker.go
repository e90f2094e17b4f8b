package sharebroker

import (
	"cmp"
	"github.com/coordsim/coordsim/groupconfig"
	"math"
	"sort"
	"strings"

	"github.com/google/btree"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/internal/topicname"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// Limits (TIGER_STYLE: a limit on everything). Requests beyond them are
// INVALID_REQUEST and change nothing.
const (
	// DefaultMaxShareSessions is group.share.max.share.sessions' default.
	DefaultMaxShareSessions = 2000
	// MaxMaxShareSessions bounds Config.MaxShareSessions.
	MaxMaxShareSessions = 1_000_000
	// MaxTopics bounds the topics of one broker.
	MaxTopics = 10_000
	// MaxPartitionsPerTopic bounds CreateTopic's partition count.
	MaxPartitionsPerTopic int32 = 10_000
	// MaxPartitionsPerRequest bounds the partitions one ShareFetch fetches,
	// the partitions one request acknowledges, and one admin call's offsets.
	MaxPartitionsPerRequest = 10_000
	// MaxRecordsPerProduce bounds the records of one produced batch.
	MaxRecordsPerProduce int32 = 100_000
	// MaxLogBatches bounds the live batches of one topic partition's log.
	MaxLogBatches = 1 << 24
	// MaxTopicNameLength is Kafka's topic name limit.
	MaxTopicNameLength = topicname.MaxLength
	// MaxIDLength bounds group and member ids: share.New's bound on a
	// share-partition key's group id.
	MaxIDLength = share.MaxGroupIDLength
	// MaxGroupConfigs bounds the groups with a dynamic config.
	MaxGroupConfigs = 100_000
	// MaxCachedSharePartitions bounds the share-partitions cached at once;
	// a fetch that would create one more gets INVALID_REQUEST for that
	// partition (Kafka has no such limit but memory).
	MaxCachedSharePartitions = 1_000_000
	// MaxDLQWriteDelayMs bounds Config.DLQWriteDelayMs.
	MaxDLQWriteDelayMs int64 = 3_600_000
)

// TopicPartition names one partition of a data topic.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// Config is the broker's static configuration.
type Config struct {
	// MaxShareSessions is group.share.max.share.sessions (0 → 2000): the
	// sessions the cache holds across all groups before an epoch-0 request
	// for a new (group, member) gets SHARE_SESSION_LIMIT_REACHED.
	MaxShareSessions int
	// Defaults is the broker-level share-partition config (group.share.*);
	// zero fields take share's defaults. BatchSize is the MaxRecords a fetch
	// asking for 0 gets. DLQEnabled must be false: the DLQ is per group
	// (GroupConfig.DLQTopic).
	Defaults share.Config
	// DLQWriteDelayMs is how long a KIP-1191 dead-letter write takes (≥0);
	// ARCHIVING records stay ARCHIVING that long.
	DLQWriteDelayMs int64
	// WideBounds lifts Kafka's config bounds (below) to share's own wider
	// ones, so that Kafka's unit tests (100 ms locks, 20 records in flight)
	// can be reproduced. Off by default: a broker takes only what Kafka's
	// would.
	WideBounds bool
	// Mutants are deliberate bugs for the simulator's own tests; the zero
	// value changes nothing.
	Mutants mutant.Set
}

// Kafka's bounds on share configs, enforced unless Config.WideBounds
// (ShareGroupConfig's broker ranges; GroupConfig validates a group's value
// within the broker's group.share.min/max.* settings, whose defaults these
// are). A value outside them is INVALID_CONFIG, as IncrementalAlterConfigs
// answers.
const (
	// Broker: group.share.delivery.count.limit,
	// group.share.record.lock.duration.ms,
	// group.share.partition.max.record.locks.
	BrokerDeliveryCountLimitMin int32 = 2
	BrokerDeliveryCountLimitMax int32 = 10
	BrokerRecordLockDurationMin int64 = 1000
	BrokerRecordLockDurationMax int64 = 3_600_000
	BrokerMaxRecordLocksMin     int64 = 100
	BrokerMaxRecordLocksMax     int64 = 10_000
	// Group: share.delivery.count.limit within
	// [group.share.min.delivery.count.limit, group.share.max.delivery.count.limit],
	// share.record.lock.duration.ms within
	// [group.share.min.record.lock.duration.ms, group.share.max.record.lock.duration.ms].
	// Their values are package groupconfig's.
	GroupDeliveryCountLimitMin int32 = groupconfig.ShareDeliveryCountLimitMin
	GroupDeliveryCountLimitMax int32 = groupconfig.ShareDeliveryCountLimitMax
	GroupRecordLockDurationMin int64 = groupconfig.ShareRecordLockDurationMinMs
	GroupRecordLockDurationMax int64 = groupconfig.ShareRecordLockDurationMaxMs
	// share.partition.max.record.locks within
	// [group.share.min.partition.max.record.locks,
	// group.share.max.partition.max.record.locks].
	GroupMaxRecordLocksMin int64 = groupconfig.SharePartitionMaxRecordLocksMin
	GroupMaxRecordLocksMax int64 = groupconfig.SharePartitionMaxRecordLocksMax
)

// checkBrokerBounds refuses broker defaults outside Kafka's ranges.
func checkBrokerBounds(c share.Config) error {
	switch {
	case c.MaxDeliveryCount != 0 && (c.MaxDeliveryCount < BrokerDeliveryCountLimitMin || c.MaxDeliveryCount > BrokerDeliveryCountLimitMax):
		return kerr.InvalidConfig.WithMessage("sharebroker: group.share.delivery.count.limit %d outside [%d, %d]", c.MaxDeliveryCount, BrokerDeliveryCountLimitMin, BrokerDeliveryCountLimitMax)
	case c.RecordLockDurationMs != 0 && (c.RecordLockDurationMs < BrokerRecordLockDurationMin || c.RecordLockDurationMs > BrokerRecordLockDurationMax):
		return kerr.InvalidConfig.WithMessage("sharebroker: group.share.record.lock.duration.ms %d outside [%d, %d]", c.RecordLockDurationMs, BrokerRecordLockDurationMin, BrokerRecordLockDurationMax)
	case c.MaxInFlightRecords != 0 && (c.MaxInFlightRecords < BrokerMaxRecordLocksMin || c.MaxInFlightRecords > BrokerMaxRecordLocksMax):
		return kerr.InvalidConfig.WithMessage("sharebroker: group.share.partition.max.record.locks %d outside [%d, %d]", c.MaxInFlightRecords, BrokerMaxRecordLocksMin, BrokerMaxRecordLocksMax)
	}
	return nil
}

// checkGroupBounds refuses a group config outside Kafka's group ranges:
// groupconfig's rule (GroupConfig.validateValues over the share keys), so a
// config set here is refused as IncrementalAlterConfigs refuses it.
func checkGroupBounds(gc GroupConfig) error {
	ints := map[string]int64{}
	for key, v := range map[string]int64{
		groupconfig.ShareDeliveryCountLimit:      int64(gc.MaxDeliveryCount),
		groupconfig.ShareRecordLockDurationMs:    gc.RecordLockDurationMs,
		groupconfig.SharePartitionMaxRecordLocks: gc.MaxRecordLocks,
	} {
		if v != 0 { // zero takes the broker default
			ints[key] = v
		}
	}
	return groupconfig.CheckValues(ints, groupconfig.Bounds{Ranges: groupconfig.ShareRanges()})
}

// GroupConfig is the per-group dynamic config (share.* group configs,
// KIP-1240). Zero fields take the broker Defaults. SetGroupConfig applies it
// to the group's live share-partitions at once (share.UpdateConfig), except
// DLQTopic, which a live share-partition keeps until it is rebuilt.
type GroupConfig struct {
	// AutoOffsetReset is share.auto.offset.reset; the zero value (latest)
	// means "broker default" unless AutoOffsetResetSet, which makes it the
	// group's even when it is latest (over a broker default of earliest).
	// AutoOffsetResetDurationMs goes with it.
	AutoOffsetReset           share.AutoOffsetReset
	AutoOffsetResetDurationMs int64
	AutoOffsetResetSet        bool
	// MaxDeliveryCount is share.delivery.count.limit.
	MaxDeliveryCount int32
	// RecordLockDurationMs is share.record.lock.duration.ms.
	RecordLockDurationMs int64
	// MaxRecordLocks is share.partition.max.record.locks (the records in
	// flight per share-partition), within
	// [group.share.min.partition.max.record.locks,
	// group.share.max.partition.max.record.locks]; it applies from the
	// next fetch.
	MaxRecordLocks int64
	// RenewDisabled is share.renew.acknowledge.enable=false.
	RenewDisabled bool
	// DLQTopic is errors.deadletterqueue.topic.name; "" = off; it must be
	// an existing topic.
	DLQTopic string
}

// partitionLog is one topic partition: its log of producer batches and its
// leader epoch. batches holds the live batches only (none entirely below
// logStart), ascending and contiguous, the last ending at logEnd − 1.
type partitionLog struct {
	batches     []share.LogBatch
	logStart    int64
	logEnd      int64
	leaderEpoch int32
}

// firstBatchFrom returns the index of the first batch containing or after
// offset (binary search; batches are ascending).
func (l *partitionLog) firstBatchFrom(offset int64) int {
	return sort.Search(len(l.batches), func(i int) bool { return l.batches[i].LastOffset >= offset })
}

// searchTimestamp returns the index of the first batch with a max
// timestamp at or after sinceMs (timestamps ascend: the clock never goes
// back), or len(batches).
func searchTimestamp(batches []share.LogBatch, sinceMs int64) int {
	return sort.Search(len(batches), func(i int) bool { return batches[i].MaxTimestampMs >= sinceMs })
}

func (l *partitionLog) append(nowMs int64, records int64) share.LogBatch {
	b := share.LogBatch{BaseOffset: l.logEnd, LastOffset: l.logEnd + records - 1, MaxTimestampMs: nowMs}
	l.batches = append(l.batches, b)
	l.logEnd += records
	return b
}

// Broker is the share-group side of a Kafka cluster's brokers (see the
// package doc). The zero value is not usable; call New.
type Broker struct {
	cfg       Config
	persister *share.Persister

	topics       map[string][]*partitionLog // lookups only; listings sort
	groupConfigs map[string]GroupConfig

	sessions      map[sessionKey]*session
	groupSessions map[string]int // sessions per group

	entries map[share.Key]*entry
	byGroup *btree.BTreeG[*entry] // (group, topic, partition)
	byTopic *btree.BTreeG[*entry] // (topic, partition, group)
	known   *btree.BTreeG[share.Key]

	timers   *coordinator.TimerQueue[timerPayload]
	dlqFault func(share.Key, share.DLQWrite) bool

	lastNowMs int64
	retired   share.Stats // stats of share-partition objects no longer cached
	evictions int64
	pollGen   uint64
}

// New returns a broker with no topics, sessions or state.
func New(cfg Config) (*Broker, error) {
	if cfg.MaxShareSessions < 0 || cfg.MaxShareSessions > MaxMaxShareSessions {
		return nil, kerr.InvalidRequest.WithMessage("sharebroker: max share sessions %d outside [0, %d]", cfg.MaxShareSessions, MaxMaxShareSessions)
	}
	if cfg.DLQWriteDelayMs < 0 || cfg.DLQWriteDelayMs > MaxDLQWriteDelayMs {
		return nil, kerr.InvalidRequest.WithMessage("sharebroker: DLQ write delay %d ms outside [0, %d]", cfg.DLQWriteDelayMs, MaxDLQWriteDelayMs)
	}
	if cfg.Defaults.DLQEnabled {
		return nil, kerr.InvalidRequest.WithMessage("sharebroker: the DLQ is enabled per group (GroupConfig.DLQTopic)")
	}
	if err := validateShareConfig(cfg.Defaults); err != nil {
		return nil, err
	}
	if !cfg.WideBounds {
		if err := checkBrokerBounds(cfg.Defaults); err != nil {
			return nil, err
		}
	}
	if cfg.MaxShareSessions == 0 {
		cfg.MaxShareSessions = DefaultMaxShareSessions
	}
	if cfg.Defaults.BatchSize == 0 {
		cfg.Defaults.BatchSize = share.DefaultBatchSize
	}
	return &Broker{
		cfg:           cfg,
		persister:     share.NewPersister(),
		topics:        make(map[string][]*partitionLog),
		groupConfigs:  make(map[string]GroupConfig),
		sessions:      make(map[sessionKey]*session),
		groupSessions: make(map[string]int),
		entries:       make(map[share.Key]*entry),
		byGroup:       btree.NewG(8, func(a, b *entry) bool { return keyLess(a.key, b.key) }),
		byTopic:       btree.NewG(8, func(a, b *entry) bool { return topicKeyLess(a.key, b.key) }),
		known:         btree.NewG(8, keyLess),
		timers:        coordinator.NewTimerQueue[timerPayload](),
	}, nil
}

// validateShareConfig runs share's own config validation (unexported there)
// by building a throw-away share-partition without a persister.
func validateShareConfig(c share.Config) error {
	_, err := share.New(share.Key{Group: "validate", Topic: "validate"}, c, 0, nil)
	return err
}

// keyLess orders share-partitions by group, topic and partition (byGroup,
// known); topicKeyLess by topic, partition and group (byTopic). They run on
// every btree step: strings.Compare compares two strings once where
// cmp.Compare may twice.
func keyLess(a, b share.Key) bool {
	return cmp.Or(strings.Compare(a.Group, b.Group), strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition)) < 0
}

func topicKeyLess(a, b share.Key) bool {
	return cmp.Or(strings.Compare(a.Topic, b.Topic), cmp.Compare(a.Partition, b.Partition), strings.Compare(a.Group, b.Group)) < 0
}

// checkNow refuses a time before the last one seen: share-partitions refuse
// it too, and checking here keeps a refused request from changing anything.
func (b *Broker) checkNow(nowMs int64) error {
	if nowMs < 0 || nowMs < b.lastNowMs {
		return kerr.InvalidRequest.WithMessage("sharebroker: time %d ms before %d ms", nowMs, b.lastNowMs)
	}
	return nil
}

func checkID(what, id string) error {
	if id == "" || len(id) > MaxIDLength {
		return kerr.InvalidRequest.WithMessage("sharebroker: %s id of length %d outside [1, %d]", what, len(id), MaxIDLength)
	}
	return nil
}

// CreateTopic creates a topic of partitions empty partitions, leader epoch
// 0. kerr has no TOPIC_ALREADY_EXISTS, so a duplicate is INVALID_REQUEST; an
// illegal name is INVALID_TOPIC_EXCEPTION.
func (b *Broker) CreateTopic(name string, partitions int32) error {
	if reason := topicname.Problem(name); reason != "" {
		return kerr.InvalidTopicException.WithMessage("sharebroker: topic %q %s", name, reason)
	}
	if partitions < 1 || partitions > MaxPartitionsPerTopic {
		return kerr.InvalidRequest.WithMessage("sharebroker: %d partitions outside [1, %d]", partitions, MaxPartitionsPerTopic)
	}
	if _, ok := b.topics[name]; ok {
		return kerr.InvalidRequest.WithMessage("sharebroker: topic %q already exists", name)
	}
	if len(b.topics) >= MaxTopics {
		return kerr.InvalidRequest.WithMessage("sharebroker: %d topics reached", MaxTopics)
	}
	logs := make([]*partitionLog, partitions)
	for i := range logs {
		logs[i] = &partitionLog{}
	}
	b.topics[name] = logs
	return nil
}

// CreatePartitions grows topic name to total partitions, the new ones
// empty, as Kafka's CreatePartitions adds partitions to a topic: share
// groups see them at their next assignment. A count that is not an
// increase, or over MaxPartitionsPerTopic, is INVALID_REQUEST; an unknown
// topic UNKNOWN_TOPIC_OR_PARTITION. Nothing changes on an error.
func (b *Broker) CreatePartitions(name string, total int32) error {
	logs, ok := b.topics[name]
	if !ok {
		return kerr.UnknownTopicOrPartition.WithMessage("sharebroker: unknown topic %q", name)
	}
	if int(total) <= len(logs) || total > MaxPartitionsPerTopic {
		return kerr.InvalidRequest.WithMessage("sharebroker: %d partitions is no increase over %d within [1, %d]", total, len(logs), MaxPartitionsPerTopic)
	}
	for range int(total) - len(logs) {
		logs = append(logs, &partitionLog{})
	}
	b.topics[name] = logs
	return nil
}

// log returns tp's log, or UNKNOWN_TOPIC_OR_PARTITION.
func (b *Broker) log(tp TopicPartition) (*partitionLog, error) {
	logs, ok := b.topics[tp.Topic]
	if !ok || tp.Partition < 0 || int(tp.Partition) >= len(logs) {
		return nil, kerr.UnknownTopicOrPartition.WithMessage("sharebroker: unknown topic partition %s-%d", tp.Topic, tp.Partition)
	}
	return logs[tp.Partition], nil
}

// Produce appends one log batch of records records (1..100000), with
// MaxTimestampMs = nowMs, to tp and returns it. The log end is the high
// watermark: produced records are at once fetchable.
func (b *Broker) Produce(nowMs int64, tp TopicPartition, records int32) (share.LogBatch, error) {
	if err := b.checkNow(nowMs); err != nil {
		return share.LogBatch{}, err
	}
	l, err := b.log(tp)
	if err != nil {
		return share.LogBatch{}, err
	}
	if records < 1 || records > MaxRecordsPerProduce {
		return share.LogBatch{}, kerr.InvalidRequest.WithMessage("sharebroker: %d records outside [1, %d]", records, MaxRecordsPerProduce)
	}
	if len(l.batches) >= MaxLogBatches {
		return share.LogBatch{}, kerr.InvalidRequest.WithMessage("sharebroker: log of %s-%d holds %d batches", tp.Topic, tp.Partition, MaxLogBatches)
	}
	b.lastNowMs = nowMs
	return l.append(nowMs, int64(records)), nil
}

// EndOffset returns tp's log end offset, which is also its high watermark
// (exclusive).
func (b *Broker) EndOffset(tp TopicPartition) (int64, error) {
	l, err := b.log(tp)
	if err != nil {
		return 0, err
	}
	return l.logEnd, nil
}

// LogStartOffset returns tp's log start offset: records below it are gone.
func (b *Broker) LogStartOffset(tp TopicPartition) (int64, error) {
	l, err := b.log(tp)
	if err != nil {
		return 0, err
	}
	return l.logStart, nil
}

// DeleteRecords moves tp's log start to beforeOffset (Kafka's
// DeleteRecords; it never moves back, a lower offset changes nothing;
// above the log end is INVALID_REQUEST). Every cached share-partition of tp
// archives its AVAILABLE records below it (share's UpdateLogStartOffset);
// share-partitions not cached catch up on their next fetch.
func (b *Broker) DeleteRecords(nowMs int64, tp TopicPartition, beforeOffset int64) error {
	if err := b.checkNow(nowMs); err != nil {
		return err
	}
	l, err := b.log(tp)
	if err != nil {
		return err
	}
	if beforeOffset < 0 || beforeOffset > l.logEnd {
		return kerr.InvalidRequest.WithMessage("sharebroker: delete before %d outside [0, %d]", beforeOffset, l.logEnd)
	}
	b.lastNowMs = nowMs
	if beforeOffset <= l.logStart {
		return nil
	}
	l.logStart = beforeOffset
	l.batches = l.batches[l.firstBatchFrom(beforeOffset):]
	for _, e := range b.entriesOfTopicPartition(tp) {
		res, err := e.sp.UpdateLogStartOffset(beforeOffset)
		invariant(err == nil || e.sp.Fenced() != nil, "UpdateLogStartOffset failed on a live partition")
		b.afterOp(nowMs, e, res.DLQ)
	}
	return nil
}

// SetGroupConfig sets group's dynamic config after validating it: Kafka's
// group bounds (INVALID_CONFIG; share's wider ones with Config.WideBounds),
// the reset settings as share validates them (INVALID_REQUEST), and the DLQ
// topic must exist. The group's live share-partitions follow it at once, as
// trunk's SharePartition reads the group config on every use (see
// share.SharePartition.UpdateConfig: a lower delivery limit archives records
// at or over it, a new lock duration applies to new acquisitions); dead-letter
// writes it causes are scheduled from the broker's last time. A live
// share-partition keeps its DLQ topic (on or off) until it is rebuilt: first
// fetch after an eviction, or a leader move.
func (b *Broker) SetGroupConfig(group string, gc GroupConfig) error {
	if err := checkID("group", group); err != nil {
		return err
	}
	if !b.cfg.WideBounds {
		if err := checkGroupBounds(gc); err != nil {
			return err
		}
	}
	if gc.DLQTopic != "" {
		if _, ok := b.topics[gc.DLQTopic]; !ok {
			return kerr.InvalidRequest.WithMessage("sharebroker: DLQ topic %q does not exist", gc.DLQTopic)
		}
	}
	if err := validateShareConfig(b.shareConfig(gc)); err != nil {
		return err
	}
	if _, ok := b.groupConfigs[group]; !ok && len(b.groupConfigs) >= MaxGroupConfigs {
		return kerr.InvalidRequest.WithMessage("sharebroker: %d group configs reached", MaxGroupConfigs)
	}
	b.groupConfigs[group] = gc
	for _, e := range b.entriesOfGroup(group) {
		c := b.shareConfig(gc)
		c.DLQEnabled = e.dlqTopic != ""
		res, err := e.sp.UpdateConfig(c)
		invariant(err == nil, "UpdateConfig refused a validated config")
		b.afterOp(b.lastNowMs, e, res.DLQ)
	}
	return nil
}

// GroupConfig returns group's dynamic config as set (zero when never set).
func (b *Broker) GroupConfig(group string) GroupConfig { return b.groupConfigs[group] }

// RecordLockDurationMs is the acquisition lock duration of group's
// records: its share.record.lock.duration.ms when set, else the broker
// default (Kafka's ShareGroupConfigProvider.recordLockDurationMsOrDefault,
// which SharePartition locks with and ShareFetch and ShareAcknowledge
// answers report as AcquisitionLockTimeoutMs). Any group id may be asked.
func (b *Broker) RecordLockDurationMs(group string) int64 {
	if d := b.shareConfig(b.groupConfigs[group]).RecordLockDurationMs; d > 0 {
		return d
	}
	return share.DefaultRecordLockDurationMs
}

// shareConfig merges gc over the broker defaults. BatchSize is
// share.MaxBatchSize: the broker bounds each fetch by its log window (see
// the package doc), so share's own budget must never bind first.
func (b *Broker) shareConfig(gc GroupConfig) share.Config {
	c := b.cfg.Defaults
	c.Mutants = b.cfg.Mutants
	if gc.AutoOffsetReset != share.ResetLatest || gc.AutoOffsetResetSet {
		c.AutoOffsetReset, c.AutoOffsetResetDurationMs = gc.AutoOffsetReset, gc.AutoOffsetResetDurationMs
	} else if gc.AutoOffsetResetDurationMs != 0 {
		// A duration without by_duration is invalid: let share say so.
		c.AutoOffsetResetDurationMs = gc.AutoOffsetResetDurationMs
	}
	if gc.MaxDeliveryCount != 0 {
		c.MaxDeliveryCount = gc.MaxDeliveryCount
	}
	if gc.RecordLockDurationMs != 0 {
		c.RecordLockDurationMs = gc.RecordLockDurationMs
	}
	if gc.MaxRecordLocks != 0 {
		c.MaxInFlightRecords = gc.MaxRecordLocks
	}
	c.RenewDisabled = c.RenewDisabled || gc.RenewDisabled
	c.DLQEnabled = gc.DLQTopic != ""
	c.BatchSize = share.MaxBatchSize
	return c
}

// SetPersistFault installs a persister write-fault hook: a non-nil answer
// fails that write (share.Persister.SetWriteFault). nil removes it.
func (b *Broker) SetPersistFault(f func(share.Key) error) {
	if f == nil {
		b.persister.SetWriteFault(nil)
		return
	}
	b.persister.SetWriteFault(func(st share.PersistedState) error { return f(st.Key) })
}

// SetDLQFault installs a DLQ write-fault hook: true fails that write (the
// records still go ARCHIVED, KIP-1191: a DLQ failure never blocks
// progress). nil removes it.
func (b *Broker) SetDLQFault(f func(share.Key, share.DLQWrite) bool) { b.dlqFault = f }

// Persister returns the share coordinator model every share-partition
// writes to.
func (b *Broker) Persister() *share.Persister { return b.persister }

// invariant panics when cond is false: reaching it is a bug in this
// package or in share, which must stop the test or the simulator.
func invariant(cond bool, msg string) {
	if !cond {
		panic("sharebroker: invariant violated: " + msg)
	}
}

// NextSessionEpoch is Kafka's ShareRequestMetadata.nextEpoch, the session
// epoch that follows e: 1, 2, …, MaxInt32, 1. Clients use it too.
func NextSessionEpoch(e int32) int32 {
	if e == math.MaxInt32 {
		return 1
	}
	return e + 1
}
