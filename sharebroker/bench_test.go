package sharebroker

import (
	"testing"

	"github.com/coordsim/coordsim/share"
)

// BenchmarkShareFetchAck measures the broker path of one consumer loop:
// produce 500 records (ten 50-record batches), ShareFetch them (MaxRecords
// 500, default in-flight limit, persister on) and ACCEPT them.
// "piggyback" sends the acks on the next ShareFetch (what KafkaShareConsumer
// does on poll); "separate" sends a ShareAcknowledge after each fetch.
// Each op moves 500 records; records/s is what one share-partition sustains
// through sessions, window building, timers and persistence.
func BenchmarkShareFetchAck(b *testing.B) {
	for _, bc := range []struct {
		name      string
		piggyback bool
		batchLen  int32
	}{
		{"piggyback/batch=50", true, 50},
		{"separate/batch=50", false, 50},
		{"piggyback/batch=500", true, 500},
	} {
		b.Run(bc.name, func(b *testing.B) {
			br, err := New(Config{Defaults: share.Config{AutoOffsetReset: share.ResetEarliest}})
			if err != nil {
				b.Fatal(err)
			}
			if err := br.CreateTopic(topic, 1); err != nil {
				b.Fatal(err)
			}
			parts := []TopicPartition{tp0}
			epoch := int32(0)
			acks := []PartitionAcks{{TopicPartition: tp0}}
			var pending []PartitionAcks
			var records int64
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				now := int64(i)
				for range 500 / bc.batchLen {
					if _, err := br.Produce(now, tp0, bc.batchLen); err != nil {
						b.Fatal(err)
					}
				}
				resp, err := br.ShareFetch(now, FetchRequest{GroupID: grp, MemberID: m1, SessionEpoch: epoch, Partitions: parts, MaxRecords: 500, Acks: pending})
				if err != nil {
					b.Fatal(err)
				}
				epoch = NextSessionEpoch(epoch)
				for _, a := range resp.Acks {
					if a.Err != nil {
						b.Fatal(a.Err)
					}
				}
				acks[0].Batches = acks[0].Batches[:0]
				for _, p := range resp.Partitions {
					if p.Err != nil {
						b.Fatal(p.Err)
					}
					for _, r := range p.Records {
						acks[0].Batches = append(acks[0].Batches, share.AckBatch{FirstOffset: r.FirstOffset, LastOffset: r.LastOffset, Type: share.AckAccept})
						records += r.LastOffset - r.FirstOffset + 1
					}
				}
				pending = nil
				if bc.piggyback {
					pending = acks
					continue
				}
				res, err := br.ShareAcknowledge(now, AckRequest{GroupID: grp, MemberID: m1, SessionEpoch: epoch, Acks: acks})
				if err != nil || res[0].Err != nil {
					b.Fatal(err, res)
				}
				epoch = NextSessionEpoch(epoch)
			}
			b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
			b.ReportMetric(float64(records)/float64(b.N), "records/op")
		})
	}
}
