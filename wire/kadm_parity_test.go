package wire_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// paritySeen is what a user of kadm and kgo sees of one cluster: each
// field is one key with its value printed, in the order the script saw it.
type paritySeen struct {
	keys []string
	vals map[string]string
}

func (s *paritySeen) put(key string, v any) {
	if s.vals == nil {
		s.vals = map[string]string{}
	}
	if _, dup := s.vals[key]; !dup {
		s.keys = append(s.keys, key)
	}
	s.vals[key] = fmt.Sprint(v)
}

// parityErr is an error as a user compares it: Kafka's error name, or none.
func parityErr(err error) string {
	if err == nil {
		return "<nil>"
	}
	return strings.SplitN(err.Error(), ":", 2)[0]
}

// parityConfig is a topic or broker config's value and source, or "absent".
func parityConfig(rc kadm.ResourceConfig, key string) string {
	for _, c := range rc.Configs {
		if c.Key == key {
			v := "<null>"
			if c.Value != nil {
				v = *c.Value
			}
			return fmt.Sprintf("%s (%s)", v, c.Source)
		}
	}
	return "absent"
}

// paritySeqBase is the first record's timestamp: fixed, so
// ListOffsetsAfterMilli answers the same on both clusters.
const paritySeqBase = int64(1_700_000_000_000)

// parityScript runs one sequence of kadm and kgo calls against seeds and
// records what the user sees. It fails only when a call cannot be made;
// answers, errors included, are observations.
func parityScript(t *testing.T, ctx context.Context, seeds []string) paritySeen {
	t.Helper()
	var s paritySeen
	newCl := func(opts ...kgo.Opt) *kgo.Client {
		c, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(seeds...)}, opts...)...)
		require.NoError(t, err)
		t.Cleanup(c.Close)
		return c
	}
	adm := kadm.NewClient(newCl())

	// CreateTopics: with a config, without, validate-only, existing, bad.
	retention := "3600000"
	created, err := adm.CreateTopics(ctx, 3, 1, map[string]*string{"retention.ms": &retention}, "pa")
	require.NoError(t, err)
	ca := created["pa"]
	s.put("create.configs.err", parityErr(ca.Err))
	s.put("create.configs.partitions", ca.NumPartitions)
	s.put("create.configs.rf", ca.ReplicationFactor)
	s.put("create.configs.retention.ms", fmt.Sprint(ca.Configs["retention.ms"].Source, " ", parityDeref(ca.Configs["retention.ms"].Value)))
	s.put("create.configs.id-set", ca.ID != kadm.TopicID{})
	created, err = adm.CreateTopics(ctx, 2, -1, nil, "pb")
	require.NoError(t, err)
	s.put("create.plain.err", parityErr(created["pb"].Err))
	s.put("create.plain.partitions", created["pb"].NumPartitions)
	s.put("create.plain.rf", created["pb"].ReplicationFactor)
	s.put("create.plain.cleanup.policy", fmt.Sprint(created["pb"].Configs["cleanup.policy"].Source, " ", parityDeref(created["pb"].Configs["cleanup.policy"].Value)))
	created, err = adm.ValidateCreateTopics(ctx, 4, 1, nil, "pv")
	require.NoError(t, err)
	s.put("create.validate.err", parityErr(created["pv"].Err))
	s.put("create.validate.partitions", created["pv"].NumPartitions)
	created, err = adm.CreateTopics(ctx, 3, 1, nil, "pa")
	require.NoError(t, err)
	s.put("create.existing.err", parityErr(created["pa"].Err))
	bad := "nope"
	created, err = adm.CreateTopics(ctx, 1, 1, map[string]*string{"cleanup.policy": &bad}, "pbad")
	require.NoError(t, err)
	s.put("create.badconfig.err", parityErr(created["pbad"].Err))
	created, err = adm.CreateTopics(ctx, 1, 1, map[string]*string{"no.such.key": &bad}, "pbad2")
	require.NoError(t, err)
	s.put("create.unknownconfig.err", parityErr(created["pbad2"].Err))

	// ListTopics, ListTopicsWithInternal, Metadata.
	listed, err := adm.ListTopics(ctx)
	require.NoError(t, err)
	s.put("listtopics.names", listed.Names())
	s.put("listtopics.pa.partitions", len(listed["pa"].Partitions))
	withInternal, err := adm.ListTopicsWithInternal(ctx)
	require.NoError(t, err)
	s.put("listtopics.internal.names", withInternal.Names())
	md, err := adm.Metadata(ctx, "pa", "missing")
	require.NoError(t, err)
	s.put("metadata.brokers", md.Brokers.NodeIDs())
	s.put("metadata.controller-is-broker", parityContains(md.Brokers.NodeIDs(), md.Controller))
	s.put("metadata.cluster-set", md.Cluster != "")
	s.put("metadata.pa.err", parityErr(md.Topics["pa"].Err))
	s.put("metadata.pa.internal", md.Topics["pa"].IsInternal)
	for _, p := range md.Topics["pa"].Partitions.Sorted() {
		s.put(fmt.Sprintf("metadata.pa.%d.replicas", p.Partition), len(p.Replicas))
		s.put(fmt.Sprintf("metadata.pa.%d.isr", p.Partition), len(p.ISR))
		s.put(fmt.Sprintf("metadata.pa.%d.leader-is-replica", p.Partition), parityContains(p.Replicas, p.Leader))
		s.put(fmt.Sprintf("metadata.pa.%d.leader-epoch", p.Partition), p.LeaderEpoch)
	}
	s.put("metadata.missing.err", parityErr(md.Topics["missing"].Err))

	// DescribeTopicConfigs.
	rcs, err := adm.DescribeTopicConfigs(ctx, "pa", "missing")
	require.NoError(t, err)
	for _, rc := range rcs {
		s.put("topicconfigs."+rc.Name+".err", parityErr(rc.Err))
		if rc.Err == nil {
			s.put("topicconfigs."+rc.Name+".retention.ms", parityConfig(rc, "retention.ms"))
			s.put("topicconfigs."+rc.Name+".cleanup.policy", parityConfig(rc, "cleanup.policy"))
			s.put("topicconfigs."+rc.Name+".no.such.key", parityConfig(rc, "no.such.key"))
			s.put("topicconfigs."+rc.Name+".retention.bytes", parityConfig(rc, "retention.bytes"))
			var names []string
			for _, c := range rc.Configs {
				names = append(names, c.Key)
			}
			sort.Strings(names)
			s.put("topicconfigs."+rc.Name+".keys", names)
		}
	}

	// ProduceSync: ten records to each partition of pa, fixed timestamps.
	prod := newCl(kgo.DefaultProduceTopic("pa"), kgo.RecordPartitioner(kgo.ManualPartitioner()))
	for i := range 30 {
		r := &kgo.Record{Partition: int32(i % 3), Value: []byte(fmt.Sprint(i)), Timestamp: time.UnixMilli(paritySeqBase + int64(i)*1000)}
		res := prod.ProduceSync(ctx, r)
		s.put(fmt.Sprintf("produce.%d.err", i), parityErr(res.FirstErr()))
		if i < 3 {
			s.put(fmt.Sprintf("produce.%d.offset", i), r.Offset)
		}
	}

	// ListStartOffsets, ListEndOffsets, ListOffsetsAfterMilli.
	putListed := func(name string, l kadm.ListedOffsets, err error) {
		require.NoError(t, err)
		l.Each(func(o kadm.ListedOffset) {
			k := fmt.Sprintf("%s.%s.%d", name, o.Topic, o.Partition)
			s.put(k, fmt.Sprintf("offset %d ts %d epoch %d err %s", o.Offset, o.Timestamp, o.LeaderEpoch, parityErr(o.Err)))
		})
	}
	l, err := adm.ListStartOffsets(ctx, "pa", "pb")
	putListed("start", l, err)
	l, err = adm.ListEndOffsets(ctx, "pa", "pb")
	putListed("end", l, err)
	l, err = adm.ListOffsetsAfterMilli(ctx, paritySeqBase+13_500, "pa")
	putListed("aftermilli", l, err)
	l, err = adm.ListOffsetsAfterMilli(ctx, paritySeqBase+999_000, "pa")
	putListed("aftermilli-past-end", l, err)

	// A KIP-848 group consumes pa and commits.
	const group = "parity-848"
	cons := newCl(kgo.ConsumerGroup(group), kgo.ConsumeTopics("pa"), kgo.ServerSideBalancer(),
		kgo.Balancers(kgo.RangeBalancer()), kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	got := map[int32][]string{}
	for n := 0; n < 30; {
		fs := cons.PollFetches(ctx)
		require.NoError(t, ctx.Err(), "consumed %d of 30", n)
		fs.EachRecord(func(r *kgo.Record) {
			got[r.Partition] = append(got[r.Partition], fmt.Sprintf("%d@%d/%d", r.Offset, r.Timestamp.UnixMilli()-paritySeqBase, r.LeaderEpoch))
			n++
		})
		require.NoError(t, cons.CommitUncommittedOffsets(ctx))
	}
	for p := int32(0); p < 3; p++ {
		s.put(fmt.Sprintf("consume.pa.%d", p), got[p])
	}

	// While the member is in the group.
	dcg, err := adm.DescribeConsumerGroups(ctx, group, "parity-none")
	require.NoError(t, err)
	d := dcg[group]
	memberID := "<no member>"
	s.put("describe848.err", parityErr(d.Err))
	s.put("describe848.state", d.State)
	s.put("describe848.epoch", d.Epoch)
	s.put("describe848.assignment-epoch", d.AssignmentEpoch)
	s.put("describe848.assignor", d.AssignorName)
	s.put("describe848.members", len(d.Members))
	if len(d.Members) == 1 {
		m := d.Members[0]
		memberID = m.MemberID
		s.put("describe848.member.epoch", m.MemberEpoch)
		s.put("describe848.member.type", m.MemberType)
		s.put("describe848.member.subscribed", m.SubscribedTopics)
		s.put("describe848.member.assigned", m.Assignment.Sorted())
		s.put("describe848.member.target", m.TargetAssignment.Sorted())
		s.put("describe848.member.client-id", m.ClientID)
	}
	s.put("describe848.unknown.err", parityErr(dcg["parity-none"].Err))
	dg, err := adm.DescribeGroups(ctx, group)
	require.NoError(t, err)
	s.put("describeclassic.848.err", parityErr(dg[group].Err))
	s.put("describeclassic.848.state", dg[group].State)

	// Offsets committed by an admin to a group nobody is in.
	const adminGroup = "parity-admin"
	var os kadm.Offsets
	os.Add(kadm.Offset{Topic: "pa", Partition: 0, At: 4, LeaderEpoch: -1, Metadata: "meta"})
	os.Add(kadm.Offset{Topic: "pa", Partition: 1, At: 10, LeaderEpoch: 0})
	os.Add(kadm.Offset{Topic: "pb", Partition: 0, At: 0, LeaderEpoch: -1})
	committed, err := adm.CommitOffsets(ctx, adminGroup, os)
	require.NoError(t, err)
	committed.Each(func(r kadm.OffsetResponse) {
		s.put(fmt.Sprintf("commit.%s.%d", r.Topic, r.Partition), parityErr(r.Err))
	})
	var toMissing kadm.Offsets
	toMissing.Add(kadm.Offset{Topic: "missing", Partition: 0, At: 1, LeaderEpoch: -1})
	toMissing.Add(kadm.Offset{Topic: "pa", Partition: 7, At: 1, LeaderEpoch: -1})
	committed, err = adm.CommitOffsets(ctx, adminGroup, toMissing)
	s.put("commit.unknown.call-err", parityErr(err))
	committed.Each(func(r kadm.OffsetResponse) {
		s.put(fmt.Sprintf("commit.unknown.%s.%d", r.Topic, r.Partition), parityErr(r.Err))
	})
	putOffsets := func(name string, rs kadm.OffsetResponses, err error) {
		s.put(name+".call-err", parityErr(err))
		var rows []string
		rs.Each(func(r kadm.OffsetResponse) {
			meta := strings.ReplaceAll(r.Metadata, memberID, "<member id>") // kgo commits its member id
			rows = append(rows, fmt.Sprintf("%s/%d=%d e%d %q %s", r.Topic, r.Partition, r.At, r.LeaderEpoch, meta, parityErr(r.Err)))
		})
		sort.Strings(rows)
		s.put(name, rows)
	}
	rs, err := adm.FetchOffsets(ctx, adminGroup)
	putOffsets("fetchoffsets.admin", rs, err)
	rs, err = adm.FetchOffsetsForTopics(ctx, adminGroup, "pa", "pb")
	putOffsets("fetchoffsetsfortopics.admin", rs, err)
	rs, err = adm.FetchOffsets(ctx, group)
	putOffsets("fetchoffsets.848", rs, err)
	rs, err = adm.FetchOffsets(ctx, "parity-none")
	putOffsets("fetchoffsets.unknown", rs, err)

	// ListGroups with type and state filters.
	putGroups := func(name string, lg kadm.ListedGroups, err error) {
		s.put(name+".call-err", parityErr(err))
		var rows []string
		for _, g := range lg.Sorted() {
			rows = append(rows, fmt.Sprintf("%s type=%q proto=%q state=%q", g.Group, g.GroupType, g.ProtocolType, g.State))
		}
		s.put(name, rows)
	}
	lg, err := adm.ListGroups(ctx)
	putGroups("listgroups.all", lg, err)
	lg, err = adm.ListGroups(ctx, "Stable")
	putGroups("listgroups.stable", lg, err)
	lg, err = adm.ListGroups(ctx, "Empty")
	putGroups("listgroups.empty", lg, err)
	lg, err = adm.ListGroupsByType(ctx, []string{"consumer"})
	putGroups("listgroups.consumer", lg, err)
	lg, err = adm.ListGroupsByType(ctx, []string{"classic"})
	putGroups("listgroups.classic", lg, err)

	// Lag, with the member in and with the admin group.
	lags, err := adm.Lag(ctx, group, adminGroup)
	s.put("lag.call-err", parityErr(err))
	for _, g := range []string{group, adminGroup} {
		gl := lags[g]
		s.put("lag."+g+".err", parityErr(gl.Error()))
		s.put("lag."+g+".state", gl.State)
		var rows []string
		for _, ml := range gl.Lag.Sorted() {
			rows = append(rows, fmt.Sprintf("%s/%d commit=%d end=%d lag=%d member=%t %s", ml.Topic, ml.Partition, ml.Commit.At, ml.End.Offset, ml.Lag, ml.Member != nil, parityErr(ml.Err)))
		}
		s.put("lag."+g+".rows", rows)
	}

	// DeleteOffsets: subscribed topic of a live group, then the admin group.
	dor, err := adm.DeleteOffsets(ctx, group, kadm.TopicsSet{"pa": {0: {}}})
	s.put("deleteoffsets.848.call-err", parityErr(err))
	s.put("deleteoffsets.848.pa.0", parityErr(dor["pa"][0]))
	dor, err = adm.DeleteOffsets(ctx, adminGroup, kadm.TopicsSet{"pa": {0: {}}, "pb": {0: {}}})
	s.put("deleteoffsets.admin.call-err", parityErr(err))
	s.put("deleteoffsets.admin.pa.0", parityErr(dor["pa"][0]))
	s.put("deleteoffsets.admin.pb.0", parityErr(dor["pb"][0]))
	rs, err = adm.FetchOffsets(ctx, adminGroup)
	putOffsets("fetchoffsets.admin.after-delete", rs, err)

	// DeleteGroups: with a member, the admin group, unknown, then empty.
	dgr, err := adm.DeleteGroups(ctx, group, adminGroup, "parity-none")
	require.NoError(t, err)
	for _, g := range []string{group, adminGroup, "parity-none"} {
		s.put("deletegroups.live."+g, parityErr(dgr[g].Err))
	}
	cons.Close() // leaves the group
	dcg, err = adm.DescribeConsumerGroups(ctx, group)
	require.NoError(t, err)
	s.put("describe848.after-leave.state", dcg[group].State)
	s.put("describe848.after-leave.members", len(dcg[group].Members))
	dgr, err = adm.DeleteGroups(ctx, group)
	require.NoError(t, err)
	s.put("deletegroups.after-leave", parityErr(dgr[group].Err))

	// DeleteTopics.
	dtr, err := adm.DeleteTopics(ctx, "pb", "missing")
	require.NoError(t, err)
	s.put("deletetopics.pb", parityErr(dtr["pb"].Err))
	s.put("deletetopics.missing", parityErr(dtr["missing"].Err))
	// A fresh client: kadm answers ListTopics from its client's metadata
	// cache, which still holds the topics named before.
	listed, err = kadm.NewClient(newCl()).ListTopics(ctx)
	require.NoError(t, err)
	s.put("deletetopics.listed-after", listed.Names())

	// ApiVersions: the versions of the APIs this script used.
	avs, err := adm.ApiVersions(ctx)
	require.NoError(t, err)
	s.put("apiversions.brokers", len(avs))
	for _, v := range avs.Sorted() {
		v := v
		var rows []string
		for _, k := range []int16{0, 1, 2, 3, 8, 9, 15, 16, 18, 19, 20, 32, 42, 44, 47, 68, 69, 74} {
			lo, hi, ok := v.KeyVersions(k)
			rows = append(rows, fmt.Sprintf("%s %d-%d %t", kmsg.NameForKey(k), lo, hi, ok))
		}
		s.put("apiversions.node", rows)
	}

	// DescribeBrokerConfigs, ListConfigResources.
	brcs, err := adm.DescribeBrokerConfigs(ctx, 0)
	require.NoError(t, err)
	for _, rc := range brcs {
		s.put("brokerconfigs.err", parityErr(rc.Err))
		for _, k := range []string{"group.consumer.session.timeout.ms", "group.consumer.heartbeat.interval.ms", "offsets.topic.num.partitions", "broker.id", "log.retention.ms"} {
			s.put("brokerconfigs."+k, parityConfig(rc, k))
		}
	}
	lcr, err := adm.ListConfigResources(ctx)
	s.put("listconfigresources.call-err", parityErr(err))
	var rows []string
	for _, r := range lcr.Sorted() {
		rows = append(rows, fmt.Sprintf("%s:%s", r.Type, r.Name))
	}
	s.put("listconfigresources", rows)
	return s
}

func parityDeref(p *string) string {
	if p == nil {
		return "<null>"
	}
	return *p
}

func parityContains(xs []int32, x int32) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestKadmParityKfake runs parityScript against coordsim and against
// franz-go's kfake (three brokers, KIP-848 on, as TestPeerComparisonKfake)
// and compares every field. kfake is a peer, not the reference: where it
// and coordsim differ, Kafka's source decides (docs/wire.md "Compared with
// kfake"), and the known differences are listed in kfakeDiffers with the
// reason; any other difference fails.
func TestKadmParityKfake(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	cl := startCluster(t)
	kf, err := kfake.NewCluster(kfake.NumBrokers(3))
	require.NoError(t, err)
	t.Cleanup(kf.Close)

	ours := parityScript(t, ctx, cl.Addrs())
	theirs := parityScript(t, ctx, kf.ListenAddrs())

	keys := append([]string(nil), ours.keys...)
	for _, k := range theirs.keys {
		if _, ok := ours.vals[k]; !ok {
			keys = append(keys, k)
		}
	}
	for _, k := range keys {
		o, ok1 := ours.vals[k]
		th, ok2 := theirs.vals[k]
		if d, known := kfakeDiffers[k]; known {
			// Tolerated: coordsim's answer is pinned (Kafka's, or a
			// documented coordsim choice), kfake's is logged.
			assert.Equal(t, d.coordsim, o, "%s (coordsim: %s)", k, d.why)
			if o != th {
				t.Logf("%s differs as known: coordsim %s, kfake %s", k, o, th)
			}
			continue
		}
		if o != th || ok1 != ok2 {
			t.Errorf("%s:\n  coordsim: %s\n  kfake:    %s", k, o, th)
		}
	}
	for k := range kfakeDiffers {
		_, ok := ours.vals[k]
		assert.True(t, ok, "known difference %s is observed", k)
	}
}

// parityDifference is a field where coordsim and kfake answer differently:
// coordsim's answer (checked) and why it stands.
type parityDifference struct {
	coordsim string
	why      string
}

const (
	// kfake takes any topic config and creates the topics pbad and pbad2;
	// Kafka refuses both with INVALID_CONFIG
	// (ReplicationControlManager.computeConfigChanges, LogConfig.validate).
	whyKfakeTakesAnyConfig = "kfake accepts unknown and invalid topic configs"
	// Kafka's GroupMetadataManager.describeGroups looks the group up with
	// classicGroup(), which throws GroupIdNotFoundException for a consumer
	// group: Dead, GROUP_ID_NOT_FOUND from v6. kadm v1.20's Lag describes
	// with DescribeGroups, so Lag of a KIP-848 group fails on Kafka too.
	whyDescribeGroupsIsClassic = "DescribeGroups describes only classic groups (GroupMetadataManager.describeGroups)"
	// Kafka's ConsumerGroup.asListedGroup sets ConsumerProtocol.PROTOCOL_TYPE.
	whyListedProtocolType = "a consumer group lists with protocol type consumer (ConsumerGroup.asListedGroup)"
	// Kafka's ConsumerGroupMember.topicPartitionsFromMap names the topics.
	whyDescribedTopicNames = "ConsumerGroupDescribe names the assigned topics (ConsumerGroupMember.topicPartitionsFromMap); kfake sends ids only"
	// Kafka's ModernGroup starts a new group at group epoch 1 and
	// TargetAssignmentMetadata.INITIAL at assignment epoch 1, so the one
	// member's join lands on 2; kfake starts at 0 and lands on 1. Both bump
	// once for the join.
	whyInitialEpoch = "a new consumer group is at epoch 1 before its first join (ModernGroup); kfake starts at 0"
)

// kfakeDiffers are the fields where kfake and coordsim differ, each
// decided by Kafka's source (docs/wire.md "Compared with kfake").
var kfakeDiffers = map[string]parityDifference{
	// ReplicationControlManager.createTopic answers the effective configs
	// with KafkaConfigSchema.translateConfigSource: a key set at creation
	// is DYNAMIC_TOPIC_CONFIG, the others DEFAULT_CONFIG. kfake echoes only
	// the keys sent, with source UNKNOWN.
	"create.configs.retention.ms": {"DYNAMIC_TOPIC_CONFIG 3600000", "created configs carry their source"},
	"create.plain.cleanup.policy": {"DEFAULT_CONFIG delete", "CreateTopics answers every effective config"},
	// Replication factor -1 takes default.replication.factor, 1 by
	// default (ReplicationConfigs); kfake uses min(3, brokers).
	"create.plain.rf":           {"1", "default.replication.factor is 1"},
	"create.badconfig.err":      {"INVALID_CONFIG", whyKfakeTakesAnyConfig},
	"create.unknownconfig.err":  {"INVALID_CONFIG", whyKfakeTakesAnyConfig},
	"listtopics.names":          {"[pa pb]", whyKfakeTakesAnyConfig},
	"deletetopics.listed-after": {"[pa]", whyKfakeTakesAnyConfig},
	// Kafka's DescribeConfigs lists every LogConfig key of a topic;
	// coordsim lists the five it models and those set on the topic, its
	// documented choice (docs/wire.md "Topic creation, topic configs and
	// __consumer_offsets"); kfake lists another ten.
	"topicconfigs.pa.keys": {"[cleanup.policy compression.type min.insync.replicas retention.bytes retention.ms]", "coordsim lists the topic configs it models (documented)"},
	// coordsim's in-memory log keeps wire.Config.RetentionBytes per
	// partition, a static broker setting (log.retention.bytes); kfake
	// reports Kafka's default, -1, and keeps everything.
	"topicconfigs.pa.retention.bytes": {"67108864 (STATIC_BROKER_CONFIG)", "coordsim's bounded log (documented)"},
	// Kafka lists __consumer_offsets once the first FindCoordinator made
	// it, IsInternal (docs/wire.md "Topic creation, topic configs and
	// __consumer_offsets"); kfake has no offsets topic.
	"listtopics.internal.names": {"[__consumer_offsets pa pb]", "Kafka has an internal __consumer_offsets topic"},
	// Also kfake's pbad and pbad2 (above). BROKER_LOGGER: Kafka lists
	// every broker, as kfake does; coordsim lists none, its documented
	// choice (wire/74_list_config_resources.go: it serves no
	// broker-logger configs).
	"listconfigresources":          {"[TOPIC:pa BROKER:0 BROKER:1 BROKER:2]", "kfake's invalid topics; coordsim serves no BROKER_LOGGER configs (documented)"},
	"describe848.epoch":            {"2", whyInitialEpoch},
	"describe848.assignment-epoch": {"2", whyInitialEpoch},
	"describe848.member.epoch":     {"2", whyInitialEpoch},
	"describe848.member.assigned":  {"[{pa [0 1 2]}]", whyDescribedTopicNames},
	"describe848.member.target":    {"[{pa [0 1 2]}]", whyDescribedTopicNames},
	"describeclassic.848.err":      {"GROUP_ID_NOT_FOUND", whyDescribeGroupsIsClassic},
	"describeclassic.848.state":    {"Dead", whyDescribeGroupsIsClassic},
	"lag.parity-848.err":           {"GROUP_ID_NOT_FOUND", whyDescribeGroupsIsClassic},
	"lag.parity-848.state":         {"Dead", whyDescribeGroupsIsClassic},
	"lag.parity-848.rows":          {"[]", whyDescribeGroupsIsClassic},
	// OffsetMetadataManager.fetchAllOffsets catches
	// GroupIdNotFoundException and answers the group with no topics.
	"fetchoffsets.unknown.call-err": {"<nil>", "an unknown group's offsets are none, not an error (OffsetMetadataManager.fetchAllOffsets)"},
	"listgroups.all":                {`[parity-848 type="consumer" proto="consumer" state="Stable" parity-admin type="classic" proto="" state="Empty"]`, whyListedProtocolType},
	"listgroups.stable":             {`[parity-848 type="consumer" proto="consumer" state="Stable"]`, whyListedProtocolType},
	"listgroups.consumer":           {`[parity-848 type="consumer" proto="consumer" state="Stable"]`, whyListedProtocolType},
	// ConsumerGroup.validateOffsetDelete has no group-level error;
	// OffsetMetadataManager.deleteOffsets answers GROUP_SUBSCRIBED_TO_TOPIC
	// for each partition of a topic the group subscribes to. kfake answers
	// NON_EMPTY_GROUP for the whole group, as a classic group would.
	"deleteoffsets.848.call-err": {"<nil>", "a consumer group's OffsetDelete has no group error"},
	"deleteoffsets.848.pa.0":     {"GROUP_SUBSCRIBED_TO_TOPIC", "OffsetDelete of a subscribed topic"},
	// Kafka 4 removed the old versions (KIP-896): ListOffsets from v1,
	// OffsetCommit v2, OffsetFetch v1, CreateTopics v2, DeleteTopics v1,
	// DescribeConfigs v1; Produce is advertised from v0 (KAFKA-18659);
	// trunk's ListOffsets goes to v11. kfake keeps the old minimums.
	"apiversions.node": {"[Produce 0-13 true Fetch 4-18 true ListOffsets 1-11 true Metadata 0-13 true OffsetCommit 2-10 true OffsetFetch 1-10 true DescribeGroups 0-6 true ListGroups 0-5 true ApiVersions 0-5 true CreateTopics 2-7 true DeleteTopics 1-6 true DescribeConfigs 1-4 true DeleteGroups 0-3 true IncrementalAlterConfigs 0-1 true OffsetDelete 0-0 true ConsumerGroupHeartbeat 0-1 true ConsumerGroupDescribe 0-1 true ListConfigResources 0-1 true]", "Kafka 4's version ranges (KIP-896)"},
	// Kafka describes every KafkaConfig key; each peer serves a subset
	// (coordsim: the broker configs it models, docs/wire.md "Group
	// configs"), so neither has both of these.
	"brokerconfigs.offsets.topic.num.partitions": {"50 (DEFAULT_CONFIG)", "Kafka's default; kfake does not list it"},
	"brokerconfigs.log.retention.ms":             {"absent", "coordsim models no broker log configs"},
}
