package wire

import (
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzProduce feeds arbitrary bytes to the Produce path's record batch
// decoder (dataPlane.produce), three batches to one partition. FuzzHandleFrame
// reaches it only with a valid CRC, which a fuzzer almost never writes, so
// when fix is set the length and CRC fields are recomputed first, as a
// producer would, and the checks after them are fuzzed too. Whatever the
// bytes it must not panic; a refused batch changes nothing; an accepted one
// advances the high watermark by its record count (unless it is a retry,
// answered with its original offset) and is fetched back as the batch sent
// with the base offset the log gave it and the partition leader epoch
// stamped (LogValidator's setPartitionLeaderEpoch), its CRC still valid.
func FuzzProduce(f *testing.F) {
	seed := func(batches ...[]byte) {
		for len(batches) < 3 {
			batches = append(batches, nil)
		}
		f.Add(batches[0], batches[1], batches[2], false)
	}
	seed(fuzzBatch(-1, -1, -1, 1))
	seed(fuzzBatch(7, 0, 0, 3), fuzzBatch(7, 0, 3, 2), fuzzBatch(7, 0, 0, 3))
	seed(fuzzBatch(7, 0, 0, 1), fuzzBatch(7, 1, 5, 1), fuzzBatch(7, 0, 1, 1))
	seed(append(fuzzBatch(-1, -1, -1, 1), fuzzBatch(-1, -1, -1, 1)...))
	seed([]byte{1, 2, 3})
	tx := fuzzBatch(9, 0, 0, 2)
	tx[22] |= 0x10 // the transactional attribute
	f.Add(tx, fuzzBatch(9, 0, 0, 2), []byte(nil), true)

	f.Fuzz(func(t *testing.T, a, b, c []byte, fix bool) {
		d := newDataPlane()
		if _, _, err := d.createTopic("t", 1); err != nil {
			t.Fatal(err)
		}
		d.retentionBytes = 1 << 10 // retention trims the log too
		pl := d.partition("t", 0)
		for _, raw := range [][]byte{a, b, c} {
			if fix {
				raw = fixBatchHeader(raw)
			}
			sent := bytes.Clone(raw)
			hwm, nBatches := pl.hwm, len(pl.batches)
			r := d.produce("t", 0, raw, 0)
			if !bytes.Equal(sent, raw) {
				t.Fatalf("produce changed the caller's bytes")
			}
			if r.code != 0 {
				if pl.hwm != hwm || len(pl.batches) != nBatches {
					t.Fatalf("a refused batch (code %d, %s) changed the log", r.code, r.msg)
				}
				continue
			}
			var in kmsg.RecordBatch
			if err := in.ReadFrom(sent); err != nil {
				t.Fatalf("accepted a batch kmsg cannot read: %v", err)
			}
			if pl.hwm == hwm {
				if r.base+int64(in.LastOffsetDelta) >= hwm || r.base < 0 {
					t.Fatalf("a retry answered with base %d, beyond the log end %d", r.base, hwm)
				}
				continue
			}
			if r.base != hwm || pl.hwm != hwm+int64(in.NumRecords) {
				t.Fatalf("append of %d records at %d: base %d, high watermark %d", in.NumRecords, hwm, r.base, pl.hwm)
			}
			back := d.batchesBetween("t", 0, r.base, r.base)
			var out kmsg.RecordBatch
			if err := out.ReadFrom(back); err != nil {
				t.Fatalf("the stored batch does not decode: %v", err)
			}
			if int(out.Length)+12 > len(back) || uint32(out.CRC) != crc32c(back[21:out.Length+12]) {
				t.Fatalf("the stored batch's length or CRC is wrong")
			}
			in.FirstOffset, in.PartitionLeaderEpoch = r.base, partitionLeaderEpoch
			if !bytes.Equal(in.AppendTo(nil), back[:out.Length+12]) {
				t.Fatalf("fetched %x, want the batch sent at base %d", back, r.base)
			}
		}
	})
}

// fuzzBatch is data_test.go's batch without a *testing.T, for seeds.
func fuzzBatch(producerID int64, epoch int16, firstSeq int32, n int) []byte {
	b := kmsg.RecordBatch{
		Magic: 2, ProducerID: producerID, ProducerEpoch: epoch, FirstSequence: firstSeq,
		NumRecords: int32(n), LastOffsetDelta: int32(n - 1), FirstTimestamp: 1000, MaxTimestamp: 1000,
	}
	for i := range n {
		b.Records = appendRecord(b.Records, int32(i), 0, []byte{byte(i)})
	}
	return fixBatchHeader(b.AppendTo(nil))
}

// appendRecord appends one v2 record with its length set, as
// DefaultRecord.writeTo writes it (kmsg.Record.AppendTo writes Length as
// given).
func appendRecord(dst []byte, offsetDelta int32, timestampDelta int64, value []byte) []byte {
	r := kmsg.Record{TimestampDelta64: timestampDelta, OffsetDelta: offsetDelta, Value: value}
	r.Length = int32(len(r.AppendTo(nil)) - 1) // what follows the length (a varint 0 is one byte)
	return r.AppendTo(dst)
}

// fixBatchHeader sets a v2 batch's length (offset 8, what follows it) and
// CRC-32C (offset 17, over what follows it) as a producer computes them;
// a slice too short to hold them is returned as it is.
func fixBatchHeader(raw []byte) []byte {
	if len(raw) < 21 {
		return raw
	}
	raw = bytes.Clone(raw)
	binary.BigEndian.PutUint32(raw[8:], uint32(len(raw)-12))
	binary.BigEndian.PutUint32(raw[17:], crc32c(raw[21:]))
	return raw
}
