package wire

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kbin"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Compaction (cleanup.policy=compact), as Kafka's LogCleaner leaves a
// log, run on every retention pass:
//
//   - the cleanable part is the batches before the first uncleanable one:
//     never the last batch (Kafka never cleans the active segment) and
//     never one whose max timestamp is within min.compaction.lag.ms of now;
//   - in it, a record stays only if it is the latest of its key there
//     (the offset map of the dirty section, LogCleaner.buildOffsetMap); a
//     record without a key goes (the cleaner counts it invalid and drops
//     it); later records in the uncleanable tail do not count, so an older
//     value of a key rewritten there stays until that batch is cleanable;
//   - a tombstone (a null value) stays until delete.retention.ms after the
//     pass that first cleaned its batch (KIP-534's delete horizon), then
//     goes;
//   - a rewritten batch keeps its base offset and its last offset delta,
//     so offsets keep their gaps, as the cleaner's batches do; it is
//     recompressed with its own codec; a batch left with no record goes.
//
// The log start offset does not move; fetches from it read the next batch
// held. Kafka cleans when the dirty ratio reaches
// min.cleanable.dirty.ratio or max.compaction.lag.ms passes; here every
// pass cleans, which both bounds allow.

// compact cleans partition p of t at nowMs. Called under d.mu.
func (d *dataPlane) compact(t *topic, p int32, nowMs int64) {
	pl := t.partitions[p]
	minLag := topicConfigInt(t.configs, "min.compaction.lag.ms", 0)
	deleteRetention := topicConfigInt(t.configs, "delete.retention.ms", 86400000)
	cleanable := 0
	for cleanable < len(pl.batches)-1 && nowMs-pl.batches[cleanable].maxTs >= minLag {
		cleanable++
	}
	if cleanable == 0 {
		return
	}
	// Nothing new became cleanable and no tombstone's horizon passed:
	// the last pass left this part as it would be left now.
	lastSeq := pl.batches[cleanable-1].seq
	if lastSeq == pl.cleanedThrough && nowMs < pl.nextHorizonMs {
		return
	}
	// The offset map: each key's latest offset in the cleanable part.
	latest := map[string]int64{}
	decoded := make([][]cleanerRecord, cleanable)
	for i := range cleanable {
		recs, ok := cleanerRecords(pl.batches[i])
		if !ok {
			return // validated at append: unreachable; clean nothing rather than guess
		}
		decoded[i] = recs
		for _, r := range recs {
			if r.key != nil {
				latest[string(r.key)] = r.offset
			}
		}
	}
	kept := pl.batches[:0:0]
	nextHorizon := int64(math.MaxInt64)
	for i := range cleanable {
		b := pl.batches[i]
		if b.cleanedAtMs < 0 {
			b.cleanedAtMs = nowMs
		}
		horizonPassed := nowMs >= b.cleanedAtMs+deleteRetention
		var keep []cleanerRecord
		for _, r := range decoded[i] {
			if r.key == nil || latest[string(r.key)] != r.offset || (r.tombstone && horizonPassed) {
				continue
			}
			keep = append(keep, r)
			if r.tombstone {
				nextHorizon = min(nextHorizon, b.cleanedAtMs+deleteRetention)
			}
		}
		switch {
		case len(keep) == len(decoded[i]):
			kept = append(kept, b)
		case len(keep) > 0:
			nb := rewriteBatch(b, keep)
			d.totalBytes += int64(len(nb.raw) - len(b.raw))
			pl.bytes += int64(len(nb.raw) - len(b.raw))
			kept = append(kept, nb)
		default:
			d.totalBytes -= int64(len(b.raw))
			pl.bytes -= int64(len(b.raw))
			d.batchCount--
		}
	}
	pl.cleanedThrough, pl.nextHorizonMs = lastSeq, nextHorizon
	kept = append(kept, pl.batches[cleanable:]...)
	clear(pl.batches[len(kept):])
	pl.batches = kept
}

// cleanerRecord is one record as the cleaner reads it: its offset, key
// (nil for none), whether its value is null, and its encoding (length
// prefix included), kept as is when it stays.
type cleanerRecord struct {
	offset    int64
	key       []byte
	tombstone bool
	raw       []byte
}

// cleanerRecords decodes b's records (decompressing first).
func cleanerRecords(b storedBatch) ([]cleanerRecord, bool) {
	var rb kmsg.RecordBatch
	if err := rb.ReadFrom(b.raw); err != nil {
		return nil, false
	}
	src := rb.Records
	if codec := int(rb.Attributes & codecMask); codec != codecNone {
		out, err := decompress(src, codec)
		if err != nil {
			return nil, false
		}
		src = out
	}
	rd := kbin.Reader{Src: src}
	out := make([]cleanerRecord, 0, rb.NumRecords)
	for range rb.NumRecords {
		start := len(src) - len(rd.Src)
		size := rd.Varint()
		body := rd.Span(int(size))
		if !rd.Ok() {
			return nil, false
		}
		br := kbin.Reader{Src: body}
		br.Int8()
		br.Varlong()
		delta := br.Varint()
		key := br.VarintBytes()
		value := br.VarintBytes()
		if !br.Ok() {
			return nil, false
		}
		out = append(out, cleanerRecord{offset: b.base + int64(delta), key: key, tombstone: value == nil, raw: src[start : len(src)-len(rd.Src)]})
	}
	return out, true
}

// rewriteBatch is b holding only keep, recompressed with b's codec, its
// base offset, last offset delta, timestamps and producer fields as they
// were, and a fresh CRC.
func rewriteBatch(b storedBatch, keep []cleanerRecord) storedBatch {
	var rb kmsg.RecordBatch
	_ = rb.ReadFrom(b.raw) // decoded by cleanerRecords just before
	var records []byte
	for _, r := range keep {
		records = append(records, r.raw...)
	}
	codec := int(rb.Attributes & codecMask)
	rb.Attributes &^= codecMask
	if c := cleanerCompressors[codec]; c != nil {
		var buf bytes.Buffer
		out, used := c.Compress(&buf, records)
		if used != kgo.CodecNone {
			records = append([]byte(nil), out...)
			rb.Attributes |= int16(codec)
		}
	}
	rb.Records, rb.NumRecords = records, int32(len(keep))
	rb.Length = int32(len(rb.AppendTo(nil)) - 12)
	raw := rb.AppendTo(nil)
	rb.CRC = int32(crc32c(raw[21:]))
	b.raw = rb.AppendTo(raw[:0])
	return b
}

// cleanerCompressors recompress a cleaned batch with its own codec
// (Kafka's cleaner writes with the batch's compression type).
var cleanerCompressors = func() map[int]kgo.Compressor {
	out := map[int]kgo.Compressor{}
	for codec, c := range map[int]kgo.CompressionCodec{1: kgo.GzipCompression(), 2: kgo.SnappyCompression(), 3: kgo.Lz4Compression(), 4: kgo.ZstdCompression()} {
		if comp, err := kgo.DefaultCompressor(c); err == nil {
			out[codec] = comp
		}
	}
	return out
}()

// topicConfigInt reads an integer topic config (validated), or def when unset.
func topicConfigInt(configs map[string]string, key string, def int64) int64 {
	v, ok := configs[key]
	if !ok {
		return def
	}
	n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
	if err != nil {
		return def
	}
	return n
}
