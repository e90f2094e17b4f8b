package brokerdiff_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/coordsim/coordsim/oracle/brokerdiff"
	"github.com/coordsim/coordsim/wire"
)

// dump logs each step's flattened answers from both sides, to read what
// the comparison saw: go test ./oracle/brokerdiff -run BrokerDiff -v -args -dump
var (
	dump = flag.Bool("dump", false, "log every step's flattened answer from both sides")
	only = flag.String("case", "", "run only the cases whose name contains this")
)

// RequiredEnv set to 1 turns the broker comparison's skip into a failure,
// for CI, where the comparison must run.
const requiredEnv = "COORDSIM_KAFKA_REQUIRED"

// startKafka starts the real broker, or skips the test loudly when it
// cannot run here.
func startKafka(ctx context.Context, t testing.TB) *brokerdiff.Broker {
	t.Helper()
	cp, err := brokerdiff.Classpath(filepath.Join("..", ".."))
	if errors.Is(err, brokerdiff.ErrUnavailable) {
		if os.Getenv(requiredEnv) == "1" {
			t.Fatalf("%s=1 and no broker: %v", requiredEnv, err)
		}
		t.Skip("SKIPPED, NOT RUN: the real-broker comparison: " + err.Error())
	}
	require.NoError(t, err)
	b, err := brokerdiff.Start(ctx, brokerdiff.Config{Classpath: cp, Props: map[string]string{
		"group.consumer.heartbeat.interval.ms":     fmt.Sprint(clientHeartbeat.Milliseconds()),
		"group.consumer.min.heartbeat.interval.ms": fmt.Sprint(clientHeartbeat.Milliseconds()),
	}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	t.Logf("Kafka broker at %s ready in %s", b.Addr(), b.StartupTime.Round(time.Millisecond))
	return b
}

// side is one cluster under comparison: its client, its id mapping and
// the ids of the topics setUp created on it.
type side struct {
	name   string
	seeds  []string
	cl     *kgo.Client
	names  *brokerdiff.Names
	topics map[string][16]byte
}

// session runs one case's script on one side, recording each step's
// flattened answer.
type session struct {
	t     *testing.T
	ctx   context.Context
	side  *side
	steps []string
	lines map[string][]string
}

// do sends req, records its flattened response under step, and returns
// the response for the script's next requests.
func (s *session) do(step string, req kmsg.Request) kmsg.Response {
	s.t.Helper()
	resp := s.send(step, req)
	s.record(step, resp)
	return resp
}

// send sends req without recording its answer, for a step that records
// a projection of it.
func (s *session) send(step string, req kmsg.Request) kmsg.Response {
	s.t.Helper()
	var resp kmsg.Response
	var err error
	switch req.(type) {
	case *kmsg.StreamsGroupHeartbeatRequest, *kmsg.StreamsGroupDescribeRequest, *kmsg.DeleteShareGroupOffsetsRequest,
		*kmsg.ShareFetchRequest, *kmsg.ShareAcknowledgeRequest:
		// kgo does not route these keys to the coordinator or the
		// partition leader; each side has one broker, which is both.
		resp, err = s.side.cl.SeedBrokers()[0].Request(s.ctx, req)
	default:
		resp, err = s.side.cl.Request(s.ctx, req)
	}
	require.NoError(s.t, err, "%s: %s", s.side.name, step)
	return resp
}

func (s *session) record(step string, v any) {
	lines, ok := v.([]string)
	if !ok {
		lines = brokerdiff.Flatten(v, s.side.names)
	}
	s.steps = append(s.steps, step)
	s.lines[step] = lines
}

// topicID is the side's id of a topic setUp created.
func (s *session) topicID(name string) [16]byte { return s.side.topics[name] }

// diffCase is one scripted request sequence, run on both sides.
type diffCase struct {
	name   string
	script func(s *session)
}

// TestBrokerDiff sends the same scripted request sequences to a real
// Kafka 4.4 broker and to coordsim's wire endpoint and fails on any field
// they answer differently that Known does not explain. It prints a table
// of cases and verdicts.
func TestBrokerDiff(t *testing.T) {
	ctx := context.Background()
	kb := startKafka(ctx, t)
	cfg := wire.DefaultConfig()
	cfg.Brokers = 1 // as the single-node broker, so ListGroups asks one coordinator
	cfg.Coordinator.ConsumerHeartbeatInterval = clientHeartbeat
	cfg.Coordinator.ConsumerMinHeartbeatInterval = clientHeartbeat
	cfg.Coordinator.Classic.InitialRebalanceDelayMs = 0 // as the broker's config
	ours, err := wire.Start(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(ours.Close)

	versions := commonVersions(ctx, t, ours.Addrs()[0], kb.Addr())
	sides := []*side{
		newSide(t, "coordsim", ours.Addrs(), versions),
		newSide(t, "kafka", []string{kb.Addr()}, versions),
	}
	for _, sd := range sides {
		setUp(ctx, t, sd)
	}

	var table []string
	unexplained, steps := 0, 0
	used := make([]bool, len(brokerdiff.Known))
	for _, c := range diffCases {
		if !strings.Contains(c.name, *only) {
			continue
		}
		var runs [2]*session
		var took [2]time.Duration
		for i, sd := range sides {
			start := time.Now()
			sd.names.ResetMembers()
			runs[i] = &session{t: t, ctx: ctx, side: sd, lines: map[string][]string{}}
			c.script(runs[i])
			took[i] = time.Since(start)
		}
		require.Equal(t, runs[0].steps, runs[1].steps, "%s: the script took different steps", c.name)
		verdict, known := "same", 0
		for _, step := range runs[0].steps {
			if *dump {
				t.Logf("%s/%s\ncoordsim:\n  %s\nkafka:\n  %s", c.name, step,
					strings.Join(runs[0].lines[step], "\n  "), strings.Join(runs[1].lines[step], "\n  "))
			}
			for _, d := range brokerdiff.Diff(runs[0].lines[step], runs[1].lines[step]) {
				if reason, entry := brokerdiff.Explain(c.name, step, d); entry >= 0 {
					known++
					used[entry] = true
					t.Logf("%s/%s: known: %s (%s)", c.name, step, d, reason)
					continue
				}
				unexplained++
				verdict = "DIFFERENT"
				t.Errorf("%s/%s: %s", c.name, step, d)
			}
		}
		if verdict == "same" && known > 0 {
			verdict = fmt.Sprintf("same but %d known", known)
		}
		// The seconds each side took show where the run's time goes.
		table = append(table, fmt.Sprintf("%-46s %3d steps  %5.1fs %5.1fs  %s", c.name, len(runs[0].steps),
			took[0].Seconds(), took[1].Seconds(), verdict))
		steps += len(runs[0].steps)
	}
	t.Logf("coordsim vs Kafka 4.4.0, %d cases, %d steps:\n%s", len(diffCases), steps, strings.Join(table, "\n"))
	// A Known entry nothing matched is a divergence since closed: removing
	// it keeps the table from hiding its return.
	for i, k := range brokerdiff.Known {
		if !used[i] && *only == "" {
			t.Errorf("Known entry %s (case %q, step %q, field %q) explained nothing in this run: remove it", k.Name, k.Case, k.Step, k.Field)
		}
	}
	if unexplained > 0 {
		t.Logf("%d unexplained differences: fix them in coordsim or add them to brokerdiff.Known with a reason", unexplained)
	}
}

// commonVersions asks both sides for their ApiVersions and returns, per
// key, the lower of the two maxima, so both clients send every request at
// the same version; the apiversions case compares the ranges themselves.
func commonVersions(ctx context.Context, t *testing.T, ours, kafka string) *kversion.Versions {
	get := func(addr string) *kmsg.ApiVersionsResponse {
		cl, err := kgo.NewClient(kgo.SeedBrokers(addr))
		require.NoError(t, err)
		defer cl.Close()
		resp, err := kmsg.NewPtrApiVersionsRequest().RequestWith(ctx, cl)
		require.NoError(t, err)
		return resp
	}
	o := kversion.FromApiVersionsResponse(get(ours))
	v := kversion.FromApiVersionsResponse(get(kafka))
	v.EachMaxKeyVersion(func(key, kafkaMax int16) {
		ourMax, ok := o.LookupMaxKeyVersion(key)
		req := kmsg.RequestForKey(key)
		if !ok || req == nil {
			v.SetMaxKeyVersion(key, -1) // removes it: not both sides speak it
			return
		}
		v.SetMaxKeyVersion(key, min(kafkaMax, ourMax, req.MaxVersion()))
	})
	return v
}

func newSide(t *testing.T, name string, seeds []string, versions *kversion.Versions) *side {
	cl, err := kgo.NewClient(kgo.SeedBrokers(seeds...), kgo.MaxVersions(versions),
		kgo.ClientID("brokerdiff"), kgo.RequestTimeoutOverhead(30*time.Second))
	require.NoError(t, err)
	t.Cleanup(cl.Close)
	return &side{name: name, seeds: seeds, cl: cl, names: brokerdiff.NewNames(), topics: map[string][16]byte{}}
}

// diffTopics are the topics setUp creates on each side, with their
// partition counts.
var diffTopics = []struct {
	name       string
	partitions int32
}{{"orders", 3}, {"payments", 2}, {clientTopic, 3}, {shareTopic, 1}, {txnTopic, 1}}

// setUp creates diffTopics on sd and waits until Metadata shows each with
// a leader for every partition (Kafka's metadata image lags CreateTopics).
func setUp(ctx context.Context, t *testing.T, sd *side) {
	req := kmsg.NewPtrCreateTopicsRequest()
	for _, tp := range diffTopics {
		ct := kmsg.NewCreateTopicsRequestTopic()
		ct.Topic, ct.NumPartitions, ct.ReplicationFactor = tp.name, tp.partitions, 1
		req.Topics = append(req.Topics, ct)
	}
	resp, err := req.RequestWith(ctx, sd.cl)
	require.NoError(t, err)
	for _, rt := range resp.Topics {
		require.Zero(t, rt.ErrorCode, "%s: creating %s", sd.name, rt.Topic)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		md := kmsg.NewPtrMetadataRequest()
		for _, tp := range diffTopics {
			mt := kmsg.NewMetadataRequestTopic()
			mt.Topic = kmsg.StringPtr(tp.name)
			md.Topics = append(md.Topics, mt)
		}
		mresp, err := md.RequestWith(ctx, sd.cl)
		require.NoError(t, err)
		want := map[string]int32{}
		for _, tp := range diffTopics {
			want[tp.name] = tp.partitions
		}
		ready := 0
		// Kafka answers the topics in its own order, not the request's.
		for _, mt := range mresp.Topics {
			if mt.ErrorCode == 0 && mt.Topic != nil && int32(len(mt.Partitions)) == want[*mt.Topic] &&
				!slices.ContainsFunc(mt.Partitions, func(p kmsg.MetadataResponseTopicPartition) bool { return p.Leader < 0 }) {
				sd.topics[*mt.Topic] = mt.TopicID
				sd.names.Topic(mt.TopicID, *mt.Topic)
				ready++
			}
		}
		if ready == len(diffTopics) && coordinatorSeesTopics(ctx, t, sd) {
			return
		}
		require.True(t, time.Now().Before(deadline), "%s: topics not ready: %+v", sd.name, mresp.Topics)
		time.Sleep(100 * time.Millisecond)
	}
}

// coordinatorSeesTopics reports whether sd's group coordinator assigns
// every partition of diffTopics: Kafka's coordinator learns of new topics
// from the metadata image a moment after Metadata shows them, and a group
// joining before that sees its epoch bump once more when they appear. The
// probe group is deleted afterwards, on both sides alike.
func coordinatorSeesTopics(ctx context.Context, t *testing.T, sd *side) bool {
	const group, member = "bd-setup-probe", "bd-setup-probe-member"
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.RebalanceTimeoutMillis = group, member, 30000
	req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	for _, tp := range diffTopics {
		req.SubscribedTopicNames = append(req.SubscribedTopicNames, tp.name)
	}
	resp, err := req.RequestWith(ctx, sd.cl)
	require.NoError(t, err)
	if retriable := kerr.ErrorForCode(resp.ErrorCode); retriable != nil && kerr.IsRetriable(retriable) {
		return false // the coordinator is still loading
	}
	require.Zero(t, resp.ErrorCode, "%s: probe join: %v", sd.name, resp.ErrorMessage)
	assigned := int32(0)
	if resp.Assignment != nil {
		for _, at := range resp.Assignment.Topics {
			assigned += int32(len(at.Partitions))
		}
	}
	leave := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	leave.Group, leave.MemberID, leave.MemberEpoch = group, member, -1
	_, err = leave.RequestWith(ctx, sd.cl)
	require.NoError(t, err)
	del := kmsg.NewPtrDeleteGroupsRequest()
	del.Groups = []string{group}
	_, err = del.RequestWith(ctx, sd.cl)
	require.NoError(t, err)
	want := int32(0)
	for _, tp := range diffTopics {
		want += tp.partitions
	}
	return assigned == want
}
