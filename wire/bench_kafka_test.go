package wire_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/coordsim/coordsim/oracle/brokerdiff"
)

// TestMain stops the real Kafka broker the benchmarks may have started
// (kafkaPeer) once every test and benchmark of the binary has run.
func TestMain(m *testing.M) {
	code := m.Run()
	benchKafka.stop()
	os.Exit(code)
}

// kafkaBroker is the benchmarks' real-broker peer: one single-node Kafka
// broker (oracle/brokerdiff) for the whole test binary, started on first
// use, since a JVM takes 10-20 s to start and a benchmark's function runs
// several times as b.N grows.
type kafkaBroker struct {
	once   sync.Once
	broker *brokerdiff.Broker
	skip   string // why there is no broker
}

var benchKafka kafkaBroker

func (k *kafkaBroker) stop() {
	if k.broker != nil {
		_ = k.broker.Close()
	}
}

// kafkaPeer returns the real broker's address with a fresh topic "bench"
// of benchPartitions partitions (deleted and created again, so a
// benchmark finds it empty, as on the other peers), or skips the benchmark
// loudly when the broker oracle is not resolved (make broker-oracle). The
// JVM runs at the benchmark's own niceness: run the whole benchmark under
// nice so the peers share the machine alike.
func kafkaPeer(b *testing.B) []string {
	benchKafka.once.Do(func() {
		cp, err := brokerdiff.Classpath(filepath.Join(".."))
		if err != nil {
			benchKafka.skip = err.Error()
			return
		}
		benchKafka.broker, err = brokerdiff.Start(context.Background(), brokerdiff.Config{Classpath: cp, Nice: -1})
		if err != nil {
			benchKafka.skip = err.Error()
		}
	})
	if benchKafka.broker == nil {
		b.Skip("SKIPPED, NOT RUN: the Kafka peer: " + benchKafka.skip)
	}
	seeds := []string{benchKafka.broker.Addr()}
	c := benchClient(b, seeds)
	recreateBenchTopic(b, c)
	return seeds
}

// recreateBenchTopic deletes the bench topic if it exists and creates it
// again, retrying while Kafka still finishes the deletion, then waits until
// every partition has a leader.
func recreateBenchTopic(b *testing.B, c *kgo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	del := kmsg.NewPtrDeleteTopicsRequest()
	dt := kmsg.NewDeleteTopicsRequestTopic()
	dt.Topic = kmsg.StringPtr(benchTopic)
	del.Topics, del.TopicNames = []kmsg.DeleteTopicsRequestTopic{dt}, []string{benchTopic}
	dresp, err := del.RequestWith(ctx, c)
	require.NoError(b, err)
	if code := dresp.Topics[0].ErrorCode; code != 0 && !errors.Is(kerr.ErrorForCode(code), kerr.UnknownTopicOrPartition) {
		b.Fatalf("deleting %s: %v", benchTopic, kerr.ErrorForCode(code))
	}
	for {
		req := kmsg.NewPtrCreateTopicsRequest()
		t := kmsg.NewCreateTopicsRequestTopic()
		t.Topic, t.NumPartitions, t.ReplicationFactor = benchTopic, benchPartitions, 1
		req.Topics = append(req.Topics, t)
		resp, err := req.RequestWith(ctx, c)
		require.NoError(b, err)
		code := resp.Topics[0].ErrorCode
		if code == 0 {
			break
		}
		if !errors.Is(kerr.ErrorForCode(code), kerr.TopicAlreadyExists) || ctx.Err() != nil {
			b.Fatalf("creating %s: %v", benchTopic, kerr.ErrorForCode(code))
		}
		time.Sleep(100 * time.Millisecond) // the deletion is still running
	}
	for {
		md := kmsg.NewPtrMetadataRequest()
		mt := kmsg.NewMetadataRequestTopic()
		mt.Topic = kmsg.StringPtr(benchTopic)
		md.Topics = append(md.Topics, mt)
		resp, err := md.RequestWith(ctx, c)
		require.NoError(b, err)
		ready := resp.Topics[0].ErrorCode == 0 && len(resp.Topics[0].Partitions) == benchPartitions
		for _, p := range resp.Topics[0].Partitions {
			ready = ready && p.Leader >= 0
		}
		if ready {
			return
		}
		require.NoError(b, ctx.Err(), "the bench topic has no leaders")
		time.Sleep(50 * time.Millisecond)
	}
}
