package share

import (
	"testing"
)

// BenchmarkAcquireAcknowledge measures one share-partition's acquire-plus-
// acknowledge throughput: a consumer fetches up to BatchSize records from a
// log of 50-record batches and ACCEPTs them, with the default in-flight
// limit. "memory" has no persister, "persister" writes a snapshot on every
// acknowledgement (Kafka's one WriteShareGroupState per ack request).
func BenchmarkAcquireAcknowledge(b *testing.B) {
	for _, bc := range []struct {
		name      string
		persister bool
		batchSize int32
	}{
		{"memory/batch=500", false, 500},
		{"persister/batch=500", true, 500},
		{"memory/batch=50", false, 50},
		{"persister/batch=50", true, 50},
	} {
		b.Run(bc.name, func(b *testing.B) {
			cfg := Config{BatchSize: bc.batchSize, AutoOffsetReset: ResetEarliest}
			var p *Persister
			if bc.persister {
				p = NewPersister()
			}
			sp, err := New(testKey, cfg, 0, p)
			if err != nil {
				b.Fatal(err)
			}
			const batchLen = 50
			batches := make([]LogBatch, 0, 64)
			acks := make([]AckBatch, 0, 64)
			var records int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now := int64(i)
				next := max(sp.NextFetchOffset(), 0)
				batches = batches[:0]
				for k := range int64(bc.batchSize/batchLen + 1) {
					base := next + k*batchLen
					batches = append(batches, LogBatch{BaseOffset: base, LastOffset: base + batchLen - 1})
				}
				f := Fetch{HighWatermark: batches[len(batches)-1].LastOffset + 1, Batches: batches}
				res, _, err := sp.Acquire(now, "m", f)
				if err != nil {
					b.Fatal(err)
				}
				acks = acks[:0]
				for _, r := range res.Records {
					acks = append(acks, AckBatch{r.FirstOffset, r.LastOffset, AckAccept})
				}
				if _, err := sp.Acknowledge(now, "m", acks); err != nil {
					b.Fatal(err)
				}
				records += res.Count()
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(records)/float64(b.N), "records/op")
		})
	}
}
