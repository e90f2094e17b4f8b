package wire

import (
	"strconv"
	"testing"
)

// FuzzCompaction appends fuzzed keyed batches (some compressed, some with
// tombstones, at fuzzed timestamps) to a compacted topic, runs retention
// passes, and checks what Kafka's cleaner guarantees: every batch still
// decodes with a valid CRC, offsets only increase, each key's latest
// record survives with its value (or, for a tombstone, is gone only after
// the horizon), and the byte counts match what is held.
func FuzzCompaction(f *testing.F) {
	f.Add([]byte{0, 1, 2, 0, 1, 3, 1, 0, 2}, int64(10), int64(500))
	f.Add([]byte{4, 4, 4, 4, 9, 9, 1, 1, 1, 1, 2, 3}, int64(0), int64(0))
	f.Fuzz(func(t *testing.T, ops []byte, deleteRetentionMs, passMs int64) {
		if len(ops) > 300 || deleteRetentionMs < 0 || passMs < 0 || passMs > 1<<40 || deleteRetentionMs > 1<<40 {
			return
		}
		d := newDataPlane()
		_, _, err := d.createTopicWithConfigs("c", 1, map[string]string{"cleanup.policy": "compact", "delete.retention.ms": itoa(deleteRetentionMs)})
		if err != nil {
			t.Fatal(err)
		}
		latest := map[string]*string{}
		for i := 0; i+2 < len(ops); i += 3 {
			var recs []kv
			for j := range int(ops[i]%4) + 1 {
				key := string(rune('a' + (int(ops[i+1])+j)%5))
				var v *string
				if ops[i+2]&1 == 0 {
					v = val(itoa(int64(i + j)))
				}
				recs = append(recs, kv{key, v})
				latest[key] = v
			}
			codec := 0
			if ops[i+2]&2 != 0 {
				codec = 1 + int(ops[i+2]>>2)%4
			}
			if r := d.produce("c", 0, keyedBatch(t, int64(ops[i+2]), codec, recs...), 0); r.code != 0 {
				t.Fatalf("append %d: %d %s", i, r.code, r.msg)
			}
		}
		d.retainAll(passMs)
		d.retainAll(passMs + deleteRetentionMs)
		pl := d.partition("c", 0)
		var held int64
		last := int64(-1)
		for _, b := range pl.batches {
			held += int64(len(b.raw))
			if b.base <= last {
				t.Fatalf("batch at %d after %d", b.base, last)
			}
			last = b.last
		}
		if held != pl.bytes || held != d.totalBytes {
			t.Fatalf("held %d, counted %d and %d", held, pl.bytes, d.totalBytes)
		}
		got := fetched(t, d, "c", 0)
		seen := map[string]*string{}
		for o := int64(0); o <= last; o++ {
			if r, ok := got[o]; ok {
				seen[r.key] = r.value
			}
		}
		for key, v := range latest {
			s, ok := seen[key]
			switch {
			case v == nil && !ok: // a tombstone past its horizon
			case !ok:
				t.Fatalf("key %s lost its latest value %s", key, *v)
			case (s == nil) != (v == nil) || (v != nil && *s != *v):
				t.Fatalf("key %s reads %v, latest was %v", key, s, v)
			}
		}
	})
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
