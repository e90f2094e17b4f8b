package wire

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	fkerr "github.com/twmb/franz-go/pkg/kerr"
)

// The data plane's side of the admin APIs: growing a topic
// (CreatePartitions), advancing a log start offset (DeleteRecords),
// replacing a topic's configs (AlterConfigs, IncrementalAlterConfigs),
// and what DescribeLogDirs and DescribeProducers read.

// createPartitions grows topic name to total partitions, the new ones
// empty. The caller has checked that total is an increase within
// maxTopicPartitions. onGrow, when set, sees the change first; its error
// fails the change before anything changes.
func (d *dataPlane) createPartitions(name string, total int32) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.topics[name]
	if t == nil {
		return errNotADataTopic
	}
	if d.onGrow != nil {
		if err := d.onGrow(name, total); err != nil {
			return err
		}
	}
	for range int(total) - len(t.partitions) {
		t.partitions = append(t.partitions, &partitionLog{producers: newProducerStateManager()})
	}
	return nil
}

// deleteRecordsResult is one partition's answer to a DeleteRecords.
type deleteRecordsResult struct {
	code         int16
	msg          string
	lowWatermark int64
}

// deleteRecordsHighWatermark is DeleteRecordsRequest.HIGH_WATERMARK: delete
// up to the high watermark.
const deleteRecordsHighWatermark = -1

// deleteRecords advances partition p's log start offset to offset, as
// Kafka's Partition.deleteRecordsOnLeader and
// UnifiedLog.maybeIncrementLogStartOffset do: a topic whose cleanup.policy
// lacks delete is POLICY_VIOLATION; -1 means the high watermark; a
// negative offset, or one past the high watermark, is OFFSET_OUT_OF_RANGE;
// an offset at or below the log start changes nothing. The batches wholly
// below the new start go at once (Kafka deletes their segments at its next
// retention pass); a batch holding the new start stays whole, and fetches
// from the start still read it, as Kafka's do. The low watermark answered
// is the new log start offset (one replica).
func (d *dataPlane) deleteRecords(name string, p int32, offset int64) deleteRecordsResult {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.topics[name]
	pl := d.partition(name, p)
	if pl == nil {
		return deleteRecordsResult{code: fkerr.UnknownTopicOrPartition.Code, lowWatermark: -1}
	}
	if !t.policy.delete {
		return deleteRecordsResult{code: fkerr.PolicyViolation.Code, lowWatermark: -1,
			msg: fmt.Sprintf("Records of partition %s-%d can not be deleted due to the configured policy", name, p)}
	}
	if offset == deleteRecordsHighWatermark {
		offset = pl.hwm
	}
	if offset < 0 {
		return deleteRecordsResult{code: fkerr.OffsetOutOfRange.Code, lowWatermark: -1,
			msg: fmt.Sprintf("The offset %d for partition %s-%d is not valid", offset, name, p)}
	}
	if offset > pl.hwm {
		return deleteRecordsResult{code: fkerr.OffsetOutOfRange.Code, lowWatermark: -1,
			msg: fmt.Sprintf("Cannot increment the log start offset to %d of partition %s-%d since it is larger than the high watermark %d", offset, name, p, pl.hwm)}
	}
	if offset > pl.logStart {
		freed, batches := pl.advanceLogStart(offset)
		d.totalBytes -= freed
		d.batchCount -= batches
		if d.onTrim != nil {
			d.onTrim(name, p, pl.logStart)
		}
	}
	return deleteRecordsResult{lowWatermark: pl.logStart}
}

// advanceLogStart moves the log start offset to offset (above the current
// one, at most the high watermark) and drops the batches wholly below it,
// returning the bytes and batches freed.
func (pl *partitionLog) advanceLogStart(offset int64) (freed int64, batches int) {
	pl.logStart = offset
	drop := sort.Search(len(pl.batches), func(i int) bool { return pl.batches[i].last >= offset })
	for _, b := range pl.batches[:drop] {
		freed += int64(len(b.raw))
	}
	pl.bytes -= freed
	clear(pl.batches[:drop]) // release the bytes to the collector
	pl.batches = pl.batches[drop:]
	return freed, drop
}

// setTopicConfigs replaces topic name's configs (validated by the caller)
// and the limits derived from them; they apply from the next append.
// The old map is never written again, so readers holding it stay safe.
func (d *dataPlane) setTopicConfigs(name string, configs map[string]string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	t := d.topics[name]
	if t == nil {
		return false
	}
	t.setConfigs(configs)
	return true
}

// setConfigs installs configs and what the data plane derives from them.
func (t *topic) setConfigs(configs map[string]string) {
	t.configs = maps.Clone(configs)
	t.retentionBytes, t.hasRetention = retentionOverride(configs)
	t.retentionMs, t.hasRetentionMs = retentionMsOverride(configs)
	t.policy = cleanupPolicyOf(configs)
	for _, pl := range t.partitions {
		if pl != nil {
			pl.cleanedThrough = 0 // the compaction configs may have changed
		}
	}
	t.maxMessageBytes = topicConfigInt(configs, "max.message.bytes", defaultMaxMessageBytes)
	t.minInsyncReplicas = topicConfigInt(configs, "min.insync.replicas", 1)
}

// defaultMaxMessageBytes is Kafka's message.max.bytes default.
const defaultMaxMessageBytes = 1048588

// maxMessageBytes is topic name's max.message.bytes (the default when it
// does not exist: the caller answers that later).
func (d *dataPlane) maxMessageBytes(name string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t := d.topics[name]; t != nil {
		return t.maxMessageBytes
	}
	return defaultMaxMessageBytes
}

// minInsyncReplicas is topic name's min.insync.replicas, 1 when it does
// not exist.
func (d *dataPlane) minInsyncReplicas(name string) int64 {
	d.mu.Lock()
	defer d.mu.Unlock()
	if t := d.topics[name]; t != nil {
		return t.minInsyncReplicas
	}
	return 1
}

// cleanupPolicy is a topic's cleanup.policy: delete (retention), compact,
// or both.
type cleanupPolicy struct{ delete, compact bool }

// cleanupPolicyOf reads cleanup.policy from a topic's configs (validated:
// a list of "delete" and "compact"); unset is Kafka's default, delete.
func cleanupPolicyOf(configs map[string]string) cleanupPolicy {
	v, ok := configs["cleanup.policy"]
	if !ok {
		return cleanupPolicy{delete: true}
	}
	var p cleanupPolicy
	for _, s := range strings.Split(v, ",") {
		switch strings.TrimSpace(s) {
		case "delete":
			p.delete = true
		case "compact":
			p.compact = true
		}
	}
	return p
}

// partitionSize is one partition's DescribeLogDirs row.
type partitionSize struct {
	topic     string
	partition int32
	bytes     int64
}

// sizes lists every partition's size in bytes, topics by name, for the
// partitions keep reports true.
func (d *dataPlane) sizes(keep func(topic string, p int32) bool) []partitionSize {
	d.mu.Lock()
	defer d.mu.Unlock()
	names := slices.Sorted(maps.Keys(d.topics))
	var out []partitionSize
	for _, name := range names {
		for p, pl := range d.topics[name].partitions {
			if keep(name, int32(p)) {
				out = append(out, partitionSize{name, int32(p), pl.bytes})
			}
		}
	}
	return out
}

// activeProducers is partition p's producer state, by producer id, for
// DescribeProducers; ok is false when the partition does not exist.
func (d *dataPlane) activeProducers(name string, p int32, nowMs int64) (producers []producerStateEntry, ok bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	pl := d.partition(name, p)
	if pl == nil {
		return nil, false
	}
	d.maybeRemoveExpiredProducers(nowMs)
	return pl.producers.activeProducers(), true
}
