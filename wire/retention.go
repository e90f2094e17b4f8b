package wire

import (
	"math"
	"os"
	"strconv"
	"strings"
)

// Retention: what bounds the data plane's memory. Three rules delete the
// oldest record batches of a log and advance its log start offset, as
// Kafka's UnifiedLog.deleteOldSegments does for segments (here every
// batch is its own segment):
//
//   - size (retention.bytes, log.retention.bytes): past the limit the
//     oldest batches go, never the last one (Kafka keeps the active
//     segment); after every append;
//   - time (retention.ms, log.retention.ms): a batch whose max timestamp
//     is more than the limit before now goes, oldest first, stopping at
//     the first that is not (deleteRetentionMsBreachedSegments); the last
//     one too (Kafka rolls a new active segment first); on every
//     retention pass (every retentionCheckIntervalMs, on Config.Clock), as
//     Kafka's runs every log.retention.check.interval.ms;
//   - the cluster cap (Config.MaxDataBytes, coordsim's own, no Kafka key):
//     while all partitions together hold more, the batches appended
//     earliest go first, whichever partition holds them, the last one of
//     a partition too; after every append.
//
// Size and time apply to topics whose cleanup.policy has delete, as in
// Kafka; the cap to every topic. Producer state survives all three
// (producer_state.go).

// Kafka's log.retention.ms default (7 days).
const defaultRetentionMs = 604800000

// retentionCheckIntervalMs is how often the endpoint runs a retention pass
// (time retention, compaction). Kafka's log.retention.check.interval.ms is
// 5 minutes against disks; memory wants a tighter bound.
const retentionCheckIntervalMs = 1000

// capEntry is one appended batch in append order, for the cluster cap.
type capEntry struct {
	t   *topic
	p   int32
	seq uint64
}

// dropOldest removes pl's first n batches, advancing the log start past
// them (to the high watermark when none is left), and tells onTrim.
// Called under d.mu.
func (d *dataPlane) dropOldest(t *topic, p int32, n int) {
	pl := t.partitions[p]
	if n <= 0 {
		return
	}
	for _, b := range pl.batches[:n] {
		pl.bytes -= int64(len(b.raw))
		d.totalBytes -= int64(len(b.raw))
	}
	d.batchCount -= n
	clear(pl.batches[:n]) // release the bytes to the collector
	pl.batches = pl.batches[n:]
	start := pl.hwm
	if len(pl.batches) > 0 {
		start = pl.batches[0].base
	}
	// DeleteRecords may have put the log start inside the first batch.
	pl.logStart = max(pl.logStart, start)
	if d.onTrim != nil {
		d.onTrim(t.name, p, pl.logStart)
	}
}

// sizeBreach is how many of the oldest batches retention by size drops
// at limit bytes (< 0: none), never the last one.
func (pl *partitionLog) sizeBreach(limit int64) int {
	if limit < 0 {
		return 0
	}
	n, size := 0, pl.bytes
	for size > limit && n < len(pl.batches)-1 {
		size -= int64(len(pl.batches[n].raw))
		n++
	}
	return n
}

// timeBreach is how many of the oldest batches retention by time drops at
// nowMs with limit ms (< 0: none).
func (pl *partitionLog) timeBreach(nowMs, limit int64) int {
	if limit < 0 {
		return 0
	}
	n := 0
	for n < len(pl.batches) && nowMs-pl.batches[n].maxTs > limit {
		n++
	}
	return n
}

// retain applies size and time retention to partition p of t. Called
// under d.mu.
func (d *dataPlane) retain(t *topic, p int32, nowMs int64) {
	if !t.policy.delete {
		return
	}
	pl := t.partitions[p]
	bytesLimit := d.retentionBytes
	if t.hasRetention {
		bytesLimit = t.retentionBytes
	}
	msLimit := d.retentionMs
	if t.hasRetentionMs {
		msLimit = t.retentionMs
	}
	d.dropOldest(t, p, max(pl.sizeBreach(bytesLimit), pl.timeBreach(nowMs, msLimit)))
}

// retainBySize applies size retention to partition p of t, after an
// append. Called under d.mu.
func (d *dataPlane) retainBySize(t *topic, p int32) {
	if !t.policy.delete {
		return
	}
	limit := d.retentionBytes
	if t.hasRetention {
		limit = t.retentionBytes
	}
	d.dropOldest(t, p, t.partitions[p].sizeBreach(limit))
}

// enforceCap drops the batches appended earliest, cluster-wide, while the
// data plane holds more than maxDataBytes. Called under d.mu.
func (d *dataPlane) enforceCap() {
	for d.maxDataBytes >= 0 && d.totalBytes > d.maxDataBytes && len(d.capQueue) > 0 {
		e := d.capQueue[0]
		d.capQueue = d.capQueue[1:]
		if d.topics[e.t.name] != e.t || int(e.p) >= len(e.t.partitions) {
			continue // deleted since
		}
		pl := e.t.partitions[e.p]
		if len(pl.batches) > 0 && pl.batches[0].seq == e.seq {
			d.dropOldest(e.t, e.p, 1)
		}
		// Otherwise retention, DeleteRecords or compaction took it.
	}
	// Entries of batches gone another way linger until popped; keep the
	// queue within twice the live batches.
	if len(d.capQueue) > 2*d.batchCount+1024 {
		live := d.capQueue[:0:0]
		for _, e := range d.capQueue {
			if d.topics[e.t.name] == e.t && int(e.p) < len(e.t.partitions) && e.t.partitions[e.p].holds(e.seq) {
				live = append(live, e)
			}
		}
		d.capQueue = live
	}
}

// holds reports whether the log still holds the batch appended as seq.
func (pl *partitionLog) holds(seq uint64) bool {
	for _, b := range pl.batches {
		if b.seq >= seq {
			return b.seq == seq
		}
	}
	return false
}

// retainAll is one retention pass over every partition: time and size
// retention, then compaction, then the cap.
func (d *dataPlane) retainAll(nowMs int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.topics {
		for p := range t.partitions {
			d.retain(t, int32(p), nowMs)
			if t.policy.compact {
				d.compact(t, int32(p), nowMs)
			}
		}
	}
	d.enforceCap()
}

// DefaultMaxDataBytes is the default cluster cap on the data plane's
// record bytes: a quarter of the machine's memory (MemTotal in
// /proc/meminfo), or 1 GiB where that cannot be read. Read once, when
// called.
func DefaultMaxDataBytes() int64 {
	raw, err := os.ReadFile("/proc/meminfo")
	if err == nil {
		for _, line := range strings.Split(string(raw), "\n") {
			fields := strings.Fields(line)
			if len(fields) >= 2 && fields[0] == "MemTotal:" {
				if kb, err := strconv.ParseInt(fields[1], 10, 64); err == nil && kb > 0 && kb < math.MaxInt64/1024 {
					return kb * 1024 / 4
				}
			}
		}
	}
	return 1 << 30
}

// retentionMsOverride is the topic's own retention.ms, if set.
func retentionMsOverride(set map[string]string) (int64, bool) {
	return longOverride(set, "retention.ms")
}
