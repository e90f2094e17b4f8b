package wire

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzTxnDataPlane drives one partition with transactional appends and
// commit or abort markers chosen by the fuzzer (two bytes an op: the kind
// and producer), and checks after every op what read_committed consumers
// rely on: the last stable offset is the first offset of the oldest open
// transaction, or the high watermark; a read_committed fetch never returns
// a batch at or past it and lists only aborted transactions it overlaps;
// every control batch decodes with a valid CRC and one marker record; a
// producer has an ongoing transaction (the TV2 produce's skip) exactly
// while it has one open, and at its epoch only; and
// transactionalBatch reads the producer id and epoch kmsg reads, from any
// bytes, without panicking.
func FuzzTxnDataPlane(f *testing.F) {
	f.Add([]byte{0, 1, 0, 2, 1, 1, 0, 1, 2, 2}, []byte{1, 2, 3})
	f.Add([]byte{0, 3, 2, 3, 2, 3, 0, 3, 1, 3}, fuzzBatch(4, 0, 0, 1))
	f.Fuzz(func(t *testing.T, ops, raw []byte) {
		if pid, epoch, ok := transactionalBatch(raw); ok {
			var b kmsg.RecordBatch
			if err := b.ReadFrom(raw); err == nil && (b.ProducerID != pid || b.ProducerEpoch != epoch) {
				t.Fatalf("transactionalBatch read %d/%d, kmsg %d/%d", pid, epoch, b.ProducerID, b.ProducerEpoch)
			}
		}
		d := newDataPlane()
		if _, _, err := d.createTopic("t", 1); err != nil {
			t.Fatal(err)
		}
		pl := d.partition("t", 0)
		seq := map[int64]int32{} // every producer stays at epoch 0
		open := map[int64]int64{}
		for i := 0; i+1 < len(ops) && i < 200; i += 2 {
			pid := int64(ops[i+1] % 4)
			switch ops[i] % 3 {
			case 0: // a transactional batch
				b := fuzzBatch(pid, 0, seq[pid], 1)
				b[22] |= 0x10
				b = fixBatchHeader(b)
				hwm := pl.hwm
				if r := d.produce("t", 0, b, 0); r.code != 0 {
					t.Fatalf("a valid transactional batch was refused: %d %s", r.code, r.msg)
				}
				seq[pid]++
				if _, ok := open[pid]; !ok {
					open[pid] = hwm
				}
			case 1, 2: // a marker: commit or abort
				commit := ops[i]%3 == 1
				if !d.writeMarker("t", 0, pid, 0, commit) {
					t.Fatal("a marker to an existing partition was not written")
				}
				back := d.batchesBetween("t", 0, pl.hwm-1, pl.hwm-1)
				var cb kmsg.RecordBatch
				if err := cb.ReadFrom(back); err != nil || cb.Attributes&0x30 != 0x30 || cb.NumRecords != 1 || uint32(cb.CRC) != crc32c(back[21:]) {
					t.Fatalf("bad control batch: %v %+v", err, cb)
				}
				delete(open, pid)
			}
			want := pl.hwm
			for _, first := range open {
				want = min(want, first)
			}
			if lso := pl.lastStableOffset(); lso != want {
				t.Fatalf("last stable offset %d, want %d", lso, want)
			}
			for p := range int64(4) {
				_, isOpen := open[p]
				if d.hasOngoingTransaction("t", 0, p, 0) != isOpen || d.hasOngoingTransaction("t", 0, p, 1) {
					t.Fatalf("producer %d: hasOngoingTransaction disagrees with its open transaction (%v) or answers another epoch", p, isOpen)
				}
			}
			res := d.fetchIsolated("t", 0, pl.logStart, 1<<20, true)
			var b kmsg.RecordBatch
			for rest := res.records; len(rest) > 0; {
				if err := b.ReadFrom(rest); err != nil {
					t.Fatalf("fetched bytes do not decode: %v", err)
				}
				if b.FirstOffset >= res.lso {
					t.Fatalf("read_committed returned a batch at %d, past the LSO %d", b.FirstOffset, res.lso)
				}
				rest = rest[b.Length+12:]
			}
			for _, a := range res.aborted {
				if a.first > a.last || a.last >= pl.hwm {
					t.Fatalf("bad aborted entry %+v (hwm %d)", a, pl.hwm)
				}
			}
		}
	})
}
