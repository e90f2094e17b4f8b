package wire

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	fkerr "github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// kv is one record of keyedBatch: a key and a value, nil for a tombstone.
type kv struct {
	key   string
	value *string
}

func val(s string) *string { return &s }

// keyedBatch encodes a v2 batch of keyed records stamped at tsMs,
// compressed with codec (0: none).
func keyedBatch(t *testing.T, tsMs int64, codec int, recs ...kv) []byte {
	t.Helper()
	b := kmsg.RecordBatch{Magic: 2, ProducerID: -1, ProducerEpoch: -1, FirstSequence: -1,
		NumRecords: int32(len(recs)), LastOffsetDelta: int32(len(recs) - 1), FirstTimestamp: tsMs, MaxTimestamp: tsMs}
	var records []byte
	for i, r := range recs {
		rec := kmsg.Record{OffsetDelta: int32(i), Key: []byte(r.key)}
		if r.value != nil {
			rec.Value = []byte(*r.value)
		}
		rec.Length = int32(len(rec.AppendTo(nil)) - 1)
		records = rec.AppendTo(records)
	}
	if c := cleanerCompressors[codec]; c != nil {
		out, _ := c.Compress(new(bytes.Buffer), records)
		records = append([]byte(nil), out...)
		b.Attributes = int16(codec)
	}
	b.Records = records
	b.Length = int32(len(b.AppendTo(nil)) - 12)
	b.CRC = int32(crc32c(b.AppendTo(nil)[21:]))
	return b.AppendTo(nil)
}

// fetched decodes every record a fetch from offset returns: offset, key,
// value (nil for a tombstone).
func fetched(t *testing.T, d *dataPlane, name string, offset int64) map[int64]kv {
	t.Helper()
	f := d.fetch(name, 0, offset, 1<<30)
	require.Zero(t, f.code)
	out := map[int64]kv{}
	for raw := f.records; len(raw) > 0; {
		var rb kmsg.RecordBatch
		require.NoError(t, rb.ReadFrom(raw))
		size := int(rb.Length) + 12
		recs, ok := cleanerRecords(storedBatch{base: rb.FirstOffset, raw: raw[:size]})
		require.True(t, ok)
		require.Equal(t, uint32(rb.CRC), crc32c(raw[21:size]), "a valid CRC")
		for _, r := range recs {
			var rec kmsg.Record
			require.NoError(t, rec.ReadFrom(r.raw))
			e := kv{key: string(rec.Key)}
			if rec.Value != nil {
				e.value = val(string(rec.Value))
			}
			out[r.offset] = e
		}
		raw = raw[size:]
	}
	return out
}

// TestRetentionMs proves time retention as Kafka's
// deleteRetentionMsBreachedSegments: at a retention pass, the oldest
// batches whose max timestamp is more than retention.ms before now go,
// stopping at the first that is not, the last one too, and the log start
// advances; a topic's own retention.ms overrides log.retention.ms, and -1
// keeps everything.
func TestRetentionMs(t *testing.T) {
	d := newDataPlane()
	d.retentionMs = 1000
	var trims []int64
	d.onTrim = func(_ string, _ int32, logStart int64) { trims = append(trims, logStart) }
	_, _, err := d.createTopic("t", 1)
	require.NoError(t, err)
	_, _, err = d.createTopicWithConfigs("forever", 1, map[string]string{"retention.ms": "-1"})
	require.NoError(t, err)
	for i, ts := range []int64{100, 500, 200, 3000} {
		require.Zero(t, d.produce("t", 0, keyedBatch(t, ts, 0, kv{"k", val("v")}), 0).code, i)
		require.Zero(t, d.produce("forever", 0, keyedBatch(t, ts, 0, kv{"k", val("v")}), 0).code, i)
	}
	d.retainAll(1400)
	assert.Equal(t, int64(1), d.partition("t", 0).logStart, "100 is over 1000 ms old; 500 is not, and stops the pass")
	d.retainAll(2000)
	assert.Equal(t, int64(3), d.partition("t", 0).logStart, "500 and then 200")
	d.retainAll(4001)
	assert.Equal(t, int64(4), d.partition("t", 0).logStart, "the last batch too")
	assert.Empty(t, d.partition("t", 0).batches)
	assert.Equal(t, []int64{1, 3, 4}, trims)
	assert.Zero(t, d.partition("forever", 0).logStart, "retention.ms -1 keeps everything")
	assert.Equal(t, fkerr.OffsetOutOfRange.Code, d.fetch("t", 0, 3, 1<<20).code)
}

// TestMaxDataBytes proves the cluster cap: past it, the batches appended
// earliest go first, whichever partition holds them (the last of a
// partition too), so what all partitions hold stays within the cap; a
// deleted topic's bytes no longer count.
func TestMaxDataBytes(t *testing.T) {
	d := newDataPlane()
	one := int64(len(keyedBatch(t, 0, 0, kv{"k", val("v")})))
	d.maxDataBytes = 3 * one
	_, _, err := d.createTopic("a", 1)
	require.NoError(t, err)
	_, _, err = d.createTopic("b", 1)
	require.NoError(t, err)
	require.Zero(t, d.produce("a", 0, keyedBatch(t, 0, 0, kv{"k", val("v")}), 0).code)
	require.Zero(t, d.produce("b", 0, keyedBatch(t, 0, 0, kv{"k", val("v")}), 0).code)
	require.Zero(t, d.produce("b", 0, keyedBatch(t, 0, 0, kv{"k", val("v")}), 0).code)
	assert.Equal(t, 3*one, d.totalBytes)
	require.Zero(t, d.produce("b", 0, keyedBatch(t, 0, 0, kv{"k", val("v")}), 0).code)
	assert.Equal(t, int64(1), d.partition("a", 0).logStart, "a's only batch was the earliest")
	assert.Empty(t, d.partition("a", 0).batches)
	require.Zero(t, d.produce("a", 0, keyedBatch(t, 0, 0, kv{"k", val("v")}), 0).code)
	assert.Equal(t, int64(1), d.partition("b", 0).logStart, "then b's first")
	assert.LessOrEqual(t, d.totalBytes, d.maxDataBytes)
	_, _, err = d.deleteTopic("b")
	require.NoError(t, err)
	assert.Equal(t, one, d.totalBytes)
}

// TestCompaction proves cleanup.policy=compact as Kafka's cleaner leaves a
// log: in the cleanable part (never the last batch, nor one younger than
// min.compaction.lag.ms) only each key's latest record stays, at its
// offset (gaps remain), in a batch recompressed with its codec; a key
// rewritten in the uncleanable tail keeps its older value until then; a
// tombstone stays until delete.retention.ms after the pass that first
// cleaned it; the log start does not move; a record without a key is
// refused at produce.
func TestCompaction(t *testing.T) {
	d := newDataPlane()
	_, _, err := d.createTopicWithConfigs("c", 1, map[string]string{"cleanup.policy": "compact", "delete.retention.ms": "100", "min.compaction.lag.ms": "50"})
	require.NoError(t, err)
	for _, b := range [][]byte{
		keyedBatch(t, 0, 0, kv{"a", val("a0")}, kv{"b", val("b0")}), // 0, 1
		keyedBatch(t, 0, 1, kv{"a", val("a1")}, kv{"c", val("c0")}), // 2, 3 (gzip)
		keyedBatch(t, 0, 0, kv{"c", nil}, kv{"d", val("d0")}),       // 4, 5
		keyedBatch(t, 1000, 0, kv{"d", val("d1")}),                  // 6: too young
		keyedBatch(t, 0, 0, kv{"b", val("b1")}),                     // 7: the last
	} {
		require.Zero(t, d.produce("c", 0, b, 0).code)
	}
	r := d.produce("c", 0, batch(t, -1, -1, -1, 1), 0)
	assert.Equal(t, fkerr.InvalidRecord.Code, r.code, "a record without a key")
	assert.Equal(t, "Compacted topic cannot accept message without key in topic partition c-0.", r.msg)

	d.retainAll(100)
	got := fetched(t, d, "c", 0)
	assert.Equal(t, map[int64]kv{
		1: {"b", val("b0")}, // b1 sits in the uncleanable last batch
		2: {"a", val("a1")},
		4: {"c", nil}, // a tombstone, within delete.retention.ms
		5: {"d", val("d0")},
		6: {"d", val("d1")},
		7: {"b", val("b1")},
	}, got)
	assert.Zero(t, d.partition("c", 0).logStart, "compaction never moves the log start")
	assert.Equal(t, int64(1), int64(d.partition("c", 0).batches[1].raw[22]&codecMask), "recompressed with its codec")

	d.retainAll(1100) // the tombstone's horizon passed; 6 is cleanable now
	got = fetched(t, d, "c", 0)
	assert.Equal(t, map[int64]kv{
		1: {"b", val("b0")},
		2: {"a", val("a1")},
		6: {"d", val("d1")},
		7: {"b", val("b1")},
	}, got)
	var held int64
	for _, b := range d.partition("c", 0).batches {
		held += int64(len(b.raw))
	}
	assert.Equal(t, held, d.partition("c", 0).bytes)
	assert.Equal(t, held, d.totalBytes)
}
