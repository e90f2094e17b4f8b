package brokerdiff_test

import (
	"encoding/base64"
	"fmt"
	"slices"
	"strings"

	"github.com/stretchr/testify/require"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
	"github.com/twmb/franz-go/pkg/kversion"

	"github.com/coordsim/coordsim/oracle/brokerdiff"
)

// diffCases are the scripted request sequences, in the order they run.
// Each case uses its own group ids, so cases do not see each other's
// groups, except listgroups, which runs last and lists them all.
var diffCases = []diffCase{
	{"apiversions/group-keys", func(s *session) {
		resp := kmsg.NewPtrApiVersionsRequest()
		r, err := resp.RequestWith(s.ctx, s.side.cl)
		if err != nil {
			s.t.Fatal(err)
		}
		s.record("ranges", brokerdiff.GroupKeyRanges(r))
	}},
	{"consumer/join-heartbeat-leave", func(s *session) {
		g, m := "bd-consumer", "bd-consumer-member-1"
		r := s.do("join", cgh(g, m, 0, []string{"orders"})).(*kmsg.ConsumerGroupHeartbeatResponse)
		hb := cgh(g, m, r.MemberEpoch, nil)
		hb.Topics = ownedFrom(r, hb.Topics)
		r = s.do("heartbeat", hb).(*kmsg.ConsumerGroupHeartbeatResponse)
		s.do("describe", cgDescribe(g))
		s.do("describegroups", describeGroups(g))
		s.do("leave", cgh(g, m, -1, nil))
		s.do("describe-empty", cgDescribe(g))
		_ = r
	}},
	{"consumer/errors", func(s *session) {
		g := "bd-consumer-errors"
		noTimeout := cgh(g, "bd-e-1", 0, []string{"orders"})
		noTimeout.RebalanceTimeoutMillis = -1
		s.do("missing-rebalance-timeout", noTimeout)
		s.do("missing-subscription", cgh(g, "bd-e-1", 0, nil))
		noTopics := cgh(g, "bd-e-1", 0, []string{"orders"})
		noTopics.Topics = nil
		s.do("missing-owned-partitions", noTopics)
		s.do("empty-group-id", cgh("", "bd-e-1", 0, []string{"orders"}))
		s.do("empty-member-id", cgh(g, "", 0, []string{"orders"}))
		bad := cgh(g, "bd-e-1", 0, []string{"orders"})
		bad.ServerAssignor = kmsg.StringPtr("no-such-assignor")
		s.do("invalid-assignor", bad)
		s.do("unknown-member-no-group", cgh(g, "bd-e-ghost", 3, nil))
		s.do("leave-unknown-no-group", cgh(g, "bd-e-ghost", -1, nil))
		r := s.do("join", cgh(g, "bd-e-1", 0, []string{"orders"})).(*kmsg.ConsumerGroupHeartbeatResponse)
		s.do("unknown-member", cgh(g, "bd-e-ghost", 3, nil))
		s.do("fenced-epoch-ahead", cgh(g, "bd-e-1", r.MemberEpoch+5, nil))
		// A member joining a group whose epoch has moved lands above 1, so
		// an epoch behind it is not a join (epoch 0) on either side.
		s.do("leave-first", cgh(g, "bd-e-1", -1, nil))
		r = s.do("join-second", cgh(g, "bd-e-3", 0, []string{"orders"})).(*kmsg.ConsumerGroupHeartbeatResponse)
		s.do("fenced-epoch-behind", cgh(g, "bd-e-3", r.MemberEpoch-1, nil))
		s.do("leave-second", cgh(g, "bd-e-3", -1, nil))
		s.do("negative-epoch", cgh(g, "bd-e-1", -3, nil))
		s.do("leave-static-unknown", func() *kmsg.ConsumerGroupHeartbeatRequest {
			req := cgh(g, "bd-e-2", -2, nil)
			req.InstanceID = kmsg.StringPtr("no-such-instance")
			return req
		}())
		s.do("leave", cgh(g, "bd-e-1", -1, nil))
	}},
	{"consumer/two-members-reconcile", func(s *session) {
		g := "bd-consumer-two"
		// One topic: with several, Kafka's uniform assignor walks topics
		// in the order of their ids, which differ between two clusters.
		r1 := s.do("join-1", cgh(g, "bd-t-1", 0, []string{"orders"})).(*kmsg.ConsumerGroupHeartbeatResponse)
		r2 := s.do("join-2", cgh(g, "bd-t-2", 0, []string{"orders"})).(*kmsg.ConsumerGroupHeartbeatResponse)
		// Member 1 owns everything and must revoke half before member 2
		// gets it: three rounds of heartbeats reach the stable target.
		owned1, owned2 := ownedFrom(r1, nil), ownedFrom(r2, nil)
		for i := range 3 {
			hb := cgh(g, "bd-t-1", r1.MemberEpoch, nil)
			hb.Topics = owned1
			r1 = s.do(fmt.Sprintf("heartbeat-1-%d", i), hb).(*kmsg.ConsumerGroupHeartbeatResponse)
			owned1 = ownedFrom(r1, owned1)
			hb = cgh(g, "bd-t-2", r2.MemberEpoch, nil)
			hb.Topics = owned2
			r2 = s.do(fmt.Sprintf("heartbeat-2-%d", i), hb).(*kmsg.ConsumerGroupHeartbeatResponse)
			owned2 = ownedFrom(r2, owned2)
		}
		s.record("describe", sortedMembers(s.send("describe", cgDescribe(g))))
		s.do("leave-1", cgh(g, "bd-t-1", -1, nil))
		s.do("leave-2", cgh(g, "bd-t-2", -1, nil))
	}},
	{"share/join-heartbeat-leave-errors", func(s *session) {
		g := "bd-share"
		s.do("empty-member-id", sgh(g, "", 0, []string{"orders"}))
		s.do("member-id-too-long", sgh(g, strings.Repeat("m", 37), 0, []string{"orders"}))
		s.do("blank-member-id", sgh(g, "  ", 0, []string{"orders"}))
		s.do("missing-subscription", sgh(g, "bd-s-1", 0, nil))
		s.do("unknown-member-no-group", sgh(g, "bd-s-ghost", 2, nil))
		r := s.do("join", sgh(g, "bd-s-1", 0, []string{"orders"})).(*kmsg.ShareGroupHeartbeatResponse)
		s.do("unknown-member", sgh(g, "bd-s-ghost", 2, nil))
		s.do("fenced-epoch-ahead", sgh(g, "bd-s-1", r.MemberEpoch+4, nil))
		s.do("describe-share-as-consumer", cgDescribe(g))
		s.do("describegroups-share", describeGroups(g))
		s.do("consumer-join-to-share-group", cgh(g, "bd-s-2", 0, []string{"orders"}))
		s.do("leave", sgh(g, "bd-s-1", -1, nil))
		s.do("deletegroups", deleteGroups(g))
	}},
	{"share/fetch-acknowledge-deliveries", shareDeliveries},
	{"share/describe-and-offsets-admin", func(s *session) {
		g := "bd-share-admin"
		describeOffsets := func(group string) *kmsg.DescribeShareGroupOffsetsRequest {
			req := kmsg.NewPtrDescribeShareGroupOffsetsRequest()
			rg := kmsg.NewDescribeShareGroupOffsetsRequestGroup()
			rg.GroupID = group
			rt := kmsg.NewDescribeShareGroupOffsetsRequestGroupTopic()
			rt.Topic, rt.Partitions = "payments", []int32{0, 1}
			rg.Topics = append(rg.Topics, rt)
			req.Groups = append(req.Groups, rg)
			return req
		}
		alter := func(topic string, partition int32, offset int64) *kmsg.AlterShareGroupOffsetsRequest {
			req := kmsg.NewPtrAlterShareGroupOffsetsRequest()
			req.GroupID = g
			rt := kmsg.NewAlterShareGroupOffsetsRequestTopic()
			rt.Topic = topic
			rp := kmsg.NewAlterShareGroupOffsetsRequestTopicPartition()
			rp.Partition, rp.StartOffset = partition, offset
			rt.Partitions = append(rt.Partitions, rp)
			req.Topics = append(req.Topics, rt)
			return req
		}
		deleteOffsets := func(topic string) *kmsg.DeleteShareGroupOffsetsRequest {
			req := kmsg.NewPtrDeleteShareGroupOffsetsRequest()
			req.GroupID = g
			rt := kmsg.NewDeleteShareGroupOffsetsRequestTopic()
			rt.Topic = topic
			req.Topics = append(req.Topics, rt)
			return req
		}
		shareDescribe := func() *kmsg.ShareGroupDescribeRequest {
			req := kmsg.NewPtrShareGroupDescribeRequest()
			req.GroupIDs = []string{g}
			return req
		}
		s.do("describe-offsets-unknown-group", describeOffsets("bd-share-none"))
		allOf := describeOffsets("bd-share-none")
		allOf.Groups[0].Topics = nil
		s.do("describe-all-offsets-unknown-group", allOf)
		s.do("describe-offsets-consumer-group", describeOffsets("bd-consumer"))
		s.do("share-describe-unknown", shareDescribe())
		s.do("alter-unknown-group", alter("payments", 0, 0))
		s.do("join", sgh(g, "bd-sa-1", 0, []string{"payments"}))
		s.do("alter-non-empty", alter("payments", 0, 0))
		s.do("delete-non-empty", deleteOffsets("payments"))
		s.do("leave", sgh(g, "bd-sa-1", -1, nil))
		s.do("share-describe-empty", shareDescribe())
		s.do("alter", alter("payments", 0, 0))
		s.do("alter-unknown-topic", alter("no-such-topic", 0, 0))
		s.do("alter-unknown-partition", alter("payments", 7, 0))
		s.do("describe-offsets", describeOffsets(g))
		s.do("delete-unknown-topic", deleteOffsets("no-such-topic"))
		s.do("delete", deleteOffsets("payments"))
		s.do("describe-offsets-after-delete", describeOffsets(g))
		s.do("deletegroups", deleteGroups(g))
	}},
	{"streams/errors", func(s *session) {
		g := "bd-streams"
		noTopology := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		noTopology.Group, noTopology.MemberID, noTopology.RebalanceTimeoutMillis = g, "bd-st-1", 30000
		noTopology.ProcessID = kmsg.StringPtr("p1")
		s.do("join-without-topology", noTopology)
		empty := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		empty.MemberID = "bd-st-1"
		s.do("empty-group-id", empty)
		unknown := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		unknown.Group, unknown.MemberID, unknown.MemberEpoch = g, "bd-st-ghost", 3
		s.do("unknown-member-no-group", unknown)
		s.do("streams-describe-unknown", func() *kmsg.StreamsGroupDescribeRequest {
			req := kmsg.NewPtrStreamsGroupDescribeRequest()
			req.Groups = []string{g}
			return req
		}())
	}},
	{"streams/join-describe-leave", func(s *session) {
		g := "bd-streams-app"
		join := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		join.Group, join.MemberID, join.RebalanceTimeoutMillis = g, "bd-sa-1", 30000
		join.ProcessID = kmsg.StringPtr("bd-process-1")
		topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
		topology.Epoch = 1
		sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
		sub.SubtopologyID, sub.SourceTopics = "0", []string{"orders"}
		topology.Subtopologies = append(topology.Subtopologies, sub)
		join.Topology = &topology
		join.ActiveTasks, join.StandbyTasks, join.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
		s.do("join", join)
		describe := kmsg.NewPtrStreamsGroupDescribeRequest()
		describe.Groups = []string{g}
		s.do("describe", describe)
		leave := kmsg.NewPtrStreamsGroupHeartbeatRequest()
		leave.Group, leave.MemberID, leave.MemberEpoch = g, "bd-sa-1", -1
		s.do("leave", leave)
		s.do("describe-empty", describe)
	}},
	{"streams/static-member-and-task-offsets", func(s *session) {
		g := "bd-streams-static"
		beat := func(member string, epoch int32) *kmsg.StreamsGroupHeartbeatRequest {
			req := kmsg.NewPtrStreamsGroupHeartbeatRequest()
			req.Group, req.MemberID, req.MemberEpoch, req.RebalanceTimeoutMillis = g, member, epoch, -1
			req.InstanceID = kmsg.StringPtr("bd-streams-instance")
			if epoch == 0 {
				req.RebalanceTimeoutMillis, req.ProcessID = 30000, kmsg.StringPtr("bd-process-s")
				topology := kmsg.NewStreamsGroupHeartbeatRequestTopology()
				sub := kmsg.NewStreamsGroupHeartbeatRequestTopologySubtopology()
				sub.SubtopologyID, sub.SourceTopics = "0", []string{"orders"}
				topology.Subtopologies = append(topology.Subtopologies, sub)
				req.Topology = &topology
				req.ActiveTasks, req.StandbyTasks, req.WarmupTasks = []kmsg.TaskIDs{}, []kmsg.TaskIDs{}, []kmsg.TaskIDs{}
			}
			return req
		}
		offset := func(p int32, o int64) kmsg.TaskOffset {
			t := kmsg.NewTaskOffset()
			t.SubtopologyID, t.Partition, t.Offset = "0", p, o
			return t
		}
		describe := kmsg.NewPtrStreamsGroupDescribeRequest()
		describe.Groups = []string{g}
		s.do("join", beat("bd-ss-a", 0))
		s.do("join-same-instance-other-member", beat("bd-ss-b", 0))
		r := s.do("heartbeat", beat("bd-ss-a", 1)).(*kmsg.StreamsGroupHeartbeatResponse)
		report := beat("bd-ss-a", r.MemberEpoch)
		report.TaskOffsets, report.TaskEndOffsets = []kmsg.TaskOffset{offset(1, 7), offset(0, 5)}, []kmsg.TaskOffset{offset(0, 9)}
		s.do("report-task-offsets", report)
		twice := beat("bd-ss-a", r.MemberEpoch)
		twice.TaskOffsets = []kmsg.TaskOffset{offset(0, 1), offset(0, 2)}
		s.do("task-reported-twice", twice)
		s.do("describe", describe)
		s.do("temporary-leave", beat("bd-ss-a", -2))
		s.do("describe-after-temporary-leave", describe)
		s.do("rejoin-as-other-member", beat("bd-ss-b", 0))
		s.do("old-member-heartbeat", beat("bd-ss-a", r.MemberEpoch))
		s.do("unknown-instance", func() *kmsg.StreamsGroupHeartbeatRequest {
			req := beat("bd-ss-b", 1)
			req.InstanceID = kmsg.StringPtr("bd-no-such-instance")
			return req
		}())
		s.do("describe-replaced", describe)
		s.do("leave", beat("bd-ss-b", -1))
	}},
	{"consumer/static-member", func(s *session) {
		g := "bd-consumer-static"
		join := func(member string) *kmsg.ConsumerGroupHeartbeatRequest {
			req := cgh(g, member, 0, []string{"orders"})
			req.InstanceID = kmsg.StringPtr("bd-instance-1")
			return req
		}
		r := s.do("join", join("bd-st-a")).(*kmsg.ConsumerGroupHeartbeatResponse)
		s.do("join-same-instance-other-member", join("bd-st-b"))
		leave := cgh(g, "bd-st-a", -2, nil)
		leave.InstanceID = kmsg.StringPtr("bd-instance-1")
		s.do("temporary-leave", leave)
		s.record("describe-after-temporary-leave", sortedMembers(s.send("describe-after-temporary-leave", cgDescribe(g))))
		s.do("rejoin-as-other-member", join("bd-st-b"))
		s.do("old-member-heartbeat", cgh(g, "bd-st-a", r.MemberEpoch, nil))
		s.record("describe", sortedMembers(s.send("describe", cgDescribe(g))))
		s.do("leave", cgh(g, "bd-st-b", -1, nil))
	}},
	{"consumer/range-assignor", func(s *session) {
		g := "bd-consumer-range"
		join := cgh(g, "bd-r-1", 0, []string{"payments"})
		join.ServerAssignor = kmsg.StringPtr("range")
		s.do("join", join)
		s.record("describe", sortedMembers(s.send("describe", cgDescribe(g))))
		s.do("leave", cgh(g, "bd-r-1", -1, nil))
	}},
	{"txn/commit-abort-open-reads", transactionalReads},
	{"offsets/txn-offset-commit-outside-transaction", func(s *session) {
		// InitProducerId first: it creates the transaction coordinator's
		// partition, without which Kafka's verification of the commit
		// answers COORDINATOR_NOT_AVAILABLE. The producer ids the two
		// sides hand out differ, so only the error is recorded.
		ipi := kmsg.NewPtrInitProducerIDRequest()
		ipi.TransactionalID, ipi.TransactionTimeoutMillis = kmsg.StringPtr("bd-txn"), 60000
		ip := s.send("init-producer-id", ipi).(*kmsg.InitProducerIDResponse)
		s.record("init-producer-id", []string{fmt.Sprintf(".ErrorCode = %d", ip.ErrorCode)})
		commit := func(producerID int64, epoch int16, topicID [16]byte) *kmsg.TxnOffsetCommitRequest {
			req := kmsg.NewPtrTxnOffsetCommitRequest()
			req.TransactionalID, req.Group, req.ProducerID, req.ProducerEpoch = "bd-txn", "bd-txn-group", producerID, epoch
			req.Generation = -1
			t := kmsg.NewTxnOffsetCommitRequestTopic()
			t.Topic, t.TopicID = "orders", topicID
			p := kmsg.NewTxnOffsetCommitRequestTopicPartition()
			p.Partition, p.Offset, p.LeaderEpoch = 0, 5, -1
			t.Partitions = append(t.Partitions, p)
			req.Topics = append(req.Topics, t)
			return req
		}
		s.do("commit-without-add-offsets", commit(ip.ProducerID, ip.ProducerEpoch, s.topicID("orders")))
		s.do("commit-unknown-producer-id", commit(ip.ProducerID+4242, 0, s.topicID("orders")))
		s.do("commit-stale-producer-epoch", commit(ip.ProducerID, ip.ProducerEpoch+3, s.topicID("orders")))
		s.do("commit-unknown-topic-id", commit(ip.ProducerID, ip.ProducerEpoch, [16]byte{1, 2, 3}))
		s.do("fetch", fetch("bd-txn-group", map[string][]int32{"orders": {0}}))
		s.do("deletegroups", deleteGroups("bd-txn-group"))
	}},
	{"classic/static-member", func(s *session) {
		g := "bd-classic-static"
		static := func(member string) *kmsg.JoinGroupRequest {
			req := join(g, member)
			req.InstanceID = kmsg.StringPtr("bd-classic-instance")
			return req
		}
		r := s.do("join", static("")).(*kmsg.JoinGroupResponse)
		s.do("sync", syncGroup(g, r.MemberID, r.Generation, true))
		s.do("rejoin-unknown-member-id", static("bd-someone-else"))
		r2 := s.do("rejoin-empty-member-id", static("")).(*kmsg.JoinGroupResponse)
		s.do("heartbeat-replaced-member", heartbeat(g, r.MemberID, r.Generation))
		s.do("describegroups", describeGroups(g))
		lv := kmsg.NewPtrLeaveGroupRequest()
		lv.Group = g
		m := kmsg.NewLeaveGroupRequestMember()
		m.InstanceID = kmsg.StringPtr("bd-classic-instance")
		m.MemberID = r2.MemberID
		lv.Members = append(lv.Members, m)
		s.do("leave-by-instance", lv)
		s.do("describegroups-empty", describeGroups(g))
	}},
	{"offsets/simple-group", func(s *session) {
		g := "bd-offsets"
		s.do("commit", commit(g, "", -1, s.topicID("orders"), "orders", 0, 10))
		s.do("commit-p1", commit(g, "", -1, s.topicID("orders"), "orders", 1, 20))
		s.do("commit-unknown-partition", commit(g, "", -1, s.topicID("orders"), "orders", 99, 1))
		s.do("commit-unknown-topic-id", commit(g, "", -1, [16]byte{1, 2, 3}, "nope", 0, 1))
		s.do("commit-generation-without-group", commit("bd-offsets-none", "", 4, s.topicID("orders"), "orders", 0, 1))
		s.do("commit-member-without-group", commit("bd-offsets-none", "ghost", -1, s.topicID("orders"), "orders", 0, 1))
		s.do("commit-negative-offset", commit(g, "", -1, s.topicID("orders"), "orders", 2, -5))
		s.record("fetch-all", sortedOffsets(s.send("fetch-all", fetch(g, nil))))
		s.do("fetch-some", fetch(g, map[string][]int32{"orders": {0, 1, 2}, "payments": {0}}))
		s.do("fetch-unknown-group", fetch("bd-offsets-none", map[string][]int32{"orders": {0}}))
		s.record("fetch-unknown-group-all", sortedOffsets(s.send("fetch-unknown-group-all", fetch("bd-offsets-none", nil))))
		s.do("delete-p0", offsetDelete(g, "orders", 0))
		s.do("fetch-after-delete", fetch(g, map[string][]int32{"orders": {0, 1}}))
		s.do("delete-unknown-group", offsetDelete("bd-offsets-none", "orders", 0))
		s.do("delete-unknown-topic", offsetDelete(g, "no-such-topic", 0))
		s.do("describegroups-simple", describeGroups(g))
		s.do("deletegroups", deleteGroups(g))
		s.record("fetch-after-deletegroups", sortedOffsets(s.send("fetch-after-deletegroups", fetch(g, nil))))
	}},
	{"offsets/edge-cases", func(s *session) {
		g := "bd-offsets-edge"
		s.do("commit-empty-group-id", commit("", "", -1, s.topicID("orders"), "orders", 0, 1))
		big := commit(g, "", -1, s.topicID("orders"), "orders", 0, 1)
		big.Topics[0].Partitions[0].Metadata = kmsg.StringPtr(strings.Repeat("m", 4097))
		s.do("commit-metadata-too-large", big)
		atMax := commit(g, "", -1, s.topicID("orders"), "orders", 1, 1)
		atMax.Topics[0].Partitions[0].Metadata = kmsg.StringPtr(strings.Repeat("m", 4096))
		s.do("commit-metadata-at-limit", atMax)
		noMeta := commit(g, "", -1, s.topicID("orders"), "orders", 2, 1)
		noMeta.Topics[0].Partitions[0].Metadata = nil
		s.do("commit-null-metadata", noMeta)
		s.do("commit-zero-topic-id", commit(g, "", -1, [16]byte{}, "orders", 0, 1))
		epoch := commit(g, "", -1, s.topicID("orders"), "orders", 0, 9)
		epoch.Topics[0].Partitions[0].LeaderEpoch = 7
		s.do("commit-leader-epoch", epoch)
		s.do("fetch", fetch(g, map[string][]int32{"orders": {0, 1, 2}}))
		s.do("fetch-empty-group-id", fetch("", map[string][]int32{"orders": {0}}))
		s.do("offsetdelete-empty-group-id", offsetDelete("", "orders", 0))
		s.do("deletegroups", deleteGroups(g))
	}},
	{"offsets/consumer-group", func(s *session) {
		g, m := "bd-offsets-consumer", "bd-oc-1"
		r := s.do("join", cgh(g, m, 0, []string{"orders"})).(*kmsg.ConsumerGroupHeartbeatResponse)
		e := r.MemberEpoch
		s.do("commit", commit(g, m, e, s.topicID("orders"), "orders", 0, 5))
		s.do("commit-stale-epoch", commit(g, m, e-1, s.topicID("orders"), "orders", 0, 6))
		s.do("commit-future-epoch", commit(g, m, e+1, s.topicID("orders"), "orders", 0, 6))
		s.do("commit-unknown-member", commit(g, "ghost", e, s.topicID("orders"), "orders", 0, 6))
		s.do("commit-as-simple", commit(g, "", -1, s.topicID("orders"), "orders", 1, 7))
		s.do("fetch-as-member", fetchAsMember(g, m, e, map[string][]int32{"orders": {0, 1}}))
		s.do("fetch-stale-member-epoch", fetchAsMember(g, m, e+3, map[string][]int32{"orders": {0}}))
		s.do("delete-subscribed", offsetDelete(g, "orders", 0))
		s.do("deletegroups-non-empty", deleteGroups(g))
		s.do("leave", cgh(g, m, -1, nil))
		s.do("delete-after-leave", offsetDelete(g, "orders", 0))
		s.do("deletegroups", deleteGroups(g))
	}},
	{"classic/join-sync-heartbeat-leave", func(s *session) {
		g := "bd-classic"
		r := s.do("join-member-id-required", join(g, "")).(*kmsg.JoinGroupResponse)
		m := r.MemberID
		r = s.do("join", join(g, m)).(*kmsg.JoinGroupResponse)
		gen := r.Generation
		s.do("sync", syncGroup(g, m, gen, true))
		s.do("heartbeat", heartbeat(g, m, gen))
		s.do("heartbeat-illegal-generation", heartbeat(g, m, gen+7))
		s.do("heartbeat-unknown-member", heartbeat(g, "ghost", gen))
		s.do("sync-illegal-generation", syncGroup(g, m, gen+1, false))
		s.do("sync-unknown-member", syncGroup(g, "ghost", gen, false))
		s.do("describegroups", describeGroups(g))
		s.do("consumer-describe-classic", cgDescribe(g))
		s.do("commit", commit(g, m, gen, s.topicID("orders"), "orders", 0, 3))
		s.do("commit-illegal-generation", commit(g, m, gen+1, s.topicID("orders"), "orders", 0, 4))
		s.do("commit-unknown-member", commit(g, "ghost", gen, s.topicID("orders"), "orders", 0, 4))
		s.do("deletegroups-non-empty", deleteGroups(g))
		s.do("leave-unknown-member", leave(g, "ghost"))
		s.do("leave", leave(g, m))
		s.do("describegroups-empty", describeGroups(g))
		s.do("heartbeat-after-leave", heartbeat(g, m, gen))
		s.do("deletegroups", deleteGroups(g))
		s.do("describegroups-deleted", describeGroups(g))
	}},
	{"migration/classic-to-consumer-and-back", func(s *session) {
		// KIP-848's online migration (group.consumer.migration.policy
		// bidirectional, Kafka's default): a consumer-protocol member
		// joins a classic group, which becomes a consumer group keeping
		// the classic member; when the last consumer-protocol member
		// leaves, it goes back to classic.
		g := "bd-migration"
		meta := consumerProtocolMetadata("orders")
		classicJoin := func(member string) *kmsg.JoinGroupRequest {
			req := join(g, member)
			req.Protocols[0].Metadata = meta
			return req
		}
		r := s.do("classic-join-member-id-required", classicJoin("")).(*kmsg.JoinGroupResponse)
		r = s.do("classic-join", classicJoin(r.MemberID)).(*kmsg.JoinGroupResponse)
		a, gen := r.MemberID, r.Generation
		sync := syncGroup(g, a, gen, true)
		assignment := kmsg.NewConsumerMemberAssignment()
		at := kmsg.NewConsumerMemberAssignmentTopic()
		at.Topic, at.Partitions = "orders", []int32{0, 1, 2}
		assignment.Topics = append(assignment.Topics, at)
		sync.GroupAssignment[0].MemberAssignment = assignment.AppendTo(nil)
		s.do("classic-sync", sync)
		s.do("consumer-join", cgh(g, "bd-mig-b", 0, []string{"orders"}))
		s.do("classic-heartbeat", heartbeat(g, a, gen))
		s.record("consumer-describe", sortedMembers(s.send("consumer-describe", cgDescribe(g))))
		s.do("describegroups", describeGroups(g))
		s.do("consumer-leave", cgh(g, "bd-mig-b", -1, nil))
		s.do("describegroups-after-consumer-leave", describeGroups(g))
		s.do("classic-leave", leave(g, a))
		s.do("deletegroups", deleteGroups(g))
	}},
	{"classic/errors", func(s *session) {
		g := "bd-classic-errors"
		bad := join(g, "")
		bad.ProtocolType = ""
		s.do("join-empty-protocol-type", bad)
		bad = join(g, "")
		bad.Protocols = nil
		s.do("join-no-protocols", bad)
		s.do("join-empty-group-id", join("", ""))
		bad = join(g, "")
		bad.SessionTimeoutMillis = 1
		s.do("join-session-timeout-too-small", bad)
		s.do("join-unknown-member", join(g, "ghost"))
		s.do("heartbeat-no-group", heartbeat(g, "ghost", 1))
		s.do("sync-no-group", syncGroup(g, "ghost", 1, false))
		s.do("leave-no-group", leave(g, "ghost"))
	}},
	{"describe/unknown-and-wrong-type", func(s *session) {
		s.do("describegroups-unknown", describeGroups("bd-none"))
		s.do("consumer-describe-unknown", cgDescribe("bd-none"))
		s.do("consumer-describe-empty-id", cgDescribe(""))
		s.do("deletegroups-unknown", deleteGroups("bd-none"))
		s.do("deletegroups-empty-id", deleteGroups(""))
	}},
	{"client/kgo-848-two-consumers", kgoGroupScenario("bd-client-848", true)},
	{"client/kgo-classic-two-consumers", kgoGroupScenario("bd-client-classic", false)},
	{"findcoordinator/key-types", func(s *session) {
		find := func(keyType int8, keys ...string) kmsg.Request {
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.CoordinatorType, req.CoordinatorKeys = keyType, keys
			return req
		}
		// Sent to the only broker: kgo answers FindCoordinator from its
		// own cache and splits batched keys.
		// The same at v3, one key per request, from a client that speaks
		// FindCoordinator no higher.
		v3 := kversion.FromApiVersionsResponse(kmsg.NewPtrApiVersionsResponse())
		v3.SetMaxKeyVersion(int16(kmsg.FindCoordinator), 3)
		old, err := kgo.NewClient(kgo.SeedBrokers(s.side.seeds...), kgo.MaxVersions(v3))
		require.NoError(s.t, err)
		defer old.Close()
		for _, c := range []struct {
			step    string
			keyType int8
			key     string
		}{
			{"v3-group", 0, "bd-find"},
			{"v3-share", 2, "bd-find:" + topicIDString(s.topicID("orders")) + ":0"},
			{"v3-unknown-type", 9, "bd-find"},
		} {
			req := kmsg.NewPtrFindCoordinatorRequest()
			req.CoordinatorType, req.CoordinatorKey = c.keyType, c.key
			resp, err := old.SeedBrokers()[0].Request(s.ctx, req)
			require.NoError(s.t, err, "%s: %s", s.side.name, c.step)
			s.record(c.step, resp)
		}
		for _, c := range []struct {
			step    string
			keyType int8
			keys    []string
		}{
			{"group", 0, []string{"bd-find"}},
			{"group-empty-key", 0, []string{""}},
			{"group-several-keys", 0, []string{"bd-find-a", "bd-find-b"}},
			{"transaction", 1, []string{"bd-find-txn"}},
			{"share", 2, []string{"bd-find:" + topicIDString(s.topicID("orders")) + ":0"}},
			{"share-padded-topic-id", 2, []string{"bd-find:" + topicIDString(s.topicID("orders")) + "==:0"}},
			{"share-bad-topic-id", 2, []string{"bd-find:not-a-uuid:0"}},
			{"share-bad-partition", 2, []string{"bd-find:" + topicIDString(s.topicID("orders")) + ":x"}},
			{"share-blank-group", 2, []string{" :" + topicIDString(s.topicID("orders")) + ":0"}},
			{"share-group-with-colon", 2, []string{"bd:find:" + topicIDString(s.topicID("orders")) + ":0"}},
			{"share-trailing-colon", 2, []string{"bd-find:" + topicIDString(s.topicID("orders")) + ":0:"}},
			{"share-malformed", 2, []string{"bd-find"}},
			{"unknown-type", 9, []string{"bd-find"}},
		} {
			resp, err := s.side.cl.SeedBrokers()[0].Request(s.ctx, find(c.keyType, c.keys...))
			require.NoError(s.t, err, "%s: %s", s.side.name, c.step)
			s.record(c.step, resp)
		}
	}},
	{"listgroups", func(s *session) {
		g := "bd-list-consumer"
		s.do("join", cgh(g, "bd-l-1", 0, []string{"payments"}))
		s.do("commit-simple", commit("bd-list-simple", "", -1, s.topicID("payments"), "payments", 0, 1))
		for _, l := range []struct {
			step          string
			types, states []string
		}{
			{"all", nil, nil},
			{"type-consumer", []string{"consumer"}, nil},
			{"state-empty", nil, []string{"Empty"}},
			{"type-classic-share", []string{"classic", "share"}, nil},
			{"state-stable", nil, []string{"Stable"}},
			{"type-unknown", []string{"no-such-type"}, nil},
		} {
			lg := kmsg.NewPtrListGroupsRequest()
			lg.TypesFilter, lg.StatesFilter = l.types, l.states
			s.record(l.step, sortedGroups(s.send(l.step, lg)))
		}
		s.do("leave", cgh(g, "bd-l-1", -1, nil))
	}},
}

// topicIDString is Kafka's Uuid.toString: URL-safe base64, no padding.
func topicIDString(id [16]byte) string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// sortedGroups flattens a ListGroups answer with its groups in name order:
// which coordinator answers first is not part of the contract.
func sortedGroups(r kmsg.Response) kmsg.Response {
	resp := r.(*kmsg.ListGroupsResponse)
	slices.SortFunc(resp.Groups, func(a, b kmsg.ListGroupsResponseGroup) int { return strings.Compare(a.Group, b.Group) })
	return resp
}

// sortedMembers flattens a ConsumerGroupDescribe answer with members in
// member-id order and each member's subscribed topics sorted: Kafka lists
// both in its hash maps' order, which is not part of the contract.
func sortedMembers(r kmsg.Response) kmsg.Response {
	resp := r.(*kmsg.ConsumerGroupDescribeResponse)
	for i := range resp.Groups {
		ms := resp.Groups[i].Members
		slices.SortFunc(ms, func(a, b kmsg.ConsumerGroupDescribeResponseGroupMember) int {
			return strings.Compare(a.MemberID, b.MemberID)
		})
		for j := range ms {
			slices.Sort(ms[j].SubscribedTopics)
		}
	}
	return resp
}

// sortedOffsets flattens an OffsetFetch answer of every committed
// partition with topics and partitions in order: Kafka lists them in its
// hash map's order, which is not part of the contract.
func sortedOffsets(r kmsg.Response) kmsg.Response {
	resp := r.(*kmsg.OffsetFetchResponse)
	for i := range resp.Groups {
		ts := resp.Groups[i].Topics
		slices.SortFunc(ts, func(a, b kmsg.OffsetFetchResponseGroupTopic) int { return strings.Compare(a.Topic, b.Topic) })
		for j := range ts {
			slices.SortFunc(ts[j].Partitions, func(a, b kmsg.OffsetFetchResponseGroupTopicPartition) int {
				return int(a.Partition - b.Partition)
			})
		}
	}
	slices.SortFunc(resp.Topics, func(a, b kmsg.OffsetFetchResponseTopic) int { return strings.Compare(a.Topic, b.Topic) })
	for j := range resp.Topics {
		slices.SortFunc(resp.Topics[j].Partitions, func(a, b kmsg.OffsetFetchResponseTopicPartition) int {
			return int(a.Partition - b.Partition)
		})
	}
	return resp
}

// cgh is a ConsumerGroupHeartbeat; at epoch 0 it carries a full join
// (rebalance timeout, subscription, empty owned partitions).
func cgh(group, member string, epoch int32, topics []string) *kmsg.ConsumerGroupHeartbeatRequest {
	req := kmsg.NewPtrConsumerGroupHeartbeatRequest()
	req.Group, req.MemberID, req.MemberEpoch = group, member, epoch
	if epoch == 0 {
		req.RebalanceTimeoutMillis = 30000
		req.SubscribedTopicNames = topics
		req.Topics = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	}
	return req
}

// ownedFrom is the assignment r hands out, as the next heartbeat's owned
// partitions; with no assignment in r (nothing changed) the member keeps
// what it owned.
func ownedFrom(r *kmsg.ConsumerGroupHeartbeatResponse, owned []kmsg.ConsumerGroupHeartbeatRequestTopic) []kmsg.ConsumerGroupHeartbeatRequestTopic {
	if r.Assignment == nil {
		return owned
	}
	owned = []kmsg.ConsumerGroupHeartbeatRequestTopic{}
	for _, t := range r.Assignment.Topics {
		rt := kmsg.NewConsumerGroupHeartbeatRequestTopic()
		rt.TopicID, rt.Partitions = t.TopicID, t.Partitions
		owned = append(owned, rt)
	}
	return owned
}

// sgh is a ShareGroupHeartbeat; at epoch 0 it carries the subscription.
func sgh(group, member string, epoch int32, topics []string) *kmsg.ShareGroupHeartbeatRequest {
	req := kmsg.NewPtrShareGroupHeartbeatRequest()
	req.GroupID, req.MemberID, req.MemberEpoch = group, member, epoch
	if epoch == 0 {
		req.SubscribedTopicNames = topics
	}
	return req
}

func cgDescribe(group string) *kmsg.ConsumerGroupDescribeRequest {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = []string{group}
	return req
}

func describeGroups(group string) *kmsg.DescribeGroupsRequest {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = []string{group}
	return req
}

func deleteGroups(group string) *kmsg.DeleteGroupsRequest {
	req := kmsg.NewPtrDeleteGroupsRequest()
	req.Groups = []string{group}
	return req
}

// commit is an OffsetCommit of one partition; topics go by id and by name,
// so the request reads at any version.
func commit(group, member string, generation int32, id [16]byte, topic string, partition int32, offset int64) *kmsg.OffsetCommitRequest {
	req := kmsg.NewPtrOffsetCommitRequest()
	req.Group, req.MemberID, req.Generation = group, member, generation
	t := kmsg.NewOffsetCommitRequestTopic()
	t.Topic, t.TopicID = topic, id
	p := kmsg.NewOffsetCommitRequestTopicPartition()
	p.Partition, p.Offset, p.LeaderEpoch = partition, offset, -1
	p.Metadata = kmsg.StringPtr("bd")
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

// fetch is an OffsetFetch of one group: every committed partition when
// parts is nil, else the named ones (topic order fixed by diffTopics'
// names, sorted).
func fetch(group string, parts map[string][]int32) *kmsg.OffsetFetchRequest {
	return fetchAsMember(group, "", -1, parts)
}

func fetchAsMember(group, member string, epoch int32, parts map[string][]int32) *kmsg.OffsetFetchRequest {
	req := kmsg.NewPtrOffsetFetchRequest()
	rg := kmsg.NewOffsetFetchRequestGroup()
	rg.Group = group
	if member != "" {
		rg.MemberID, rg.MemberEpoch = kmsg.StringPtr(member), epoch
	}
	if parts != nil {
		names := make([]string, 0, len(parts))
		for n := range parts {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			t := kmsg.NewOffsetFetchRequestGroupTopic()
			t.Topic, t.Partitions = n, parts[n]
			rg.Topics = append(rg.Topics, t)
		}
	}
	req.Groups = append(req.Groups, rg)
	return req
}

func offsetDelete(group, topic string, partition int32) *kmsg.OffsetDeleteRequest {
	req := kmsg.NewPtrOffsetDeleteRequest()
	req.Group = group
	t := kmsg.NewOffsetDeleteRequestTopic()
	t.Topic = topic
	p := kmsg.NewOffsetDeleteRequestTopicPartition()
	p.Partition = partition
	t.Partitions = append(t.Partitions, p)
	req.Topics = append(req.Topics, t)
	return req
}

// join is a classic consumer JoinGroup with one range protocol.
func join(group, member string) *kmsg.JoinGroupRequest {
	req := kmsg.NewPtrJoinGroupRequest()
	req.Group, req.MemberID, req.ProtocolType = group, member, "consumer"
	req.SessionTimeoutMillis, req.RebalanceTimeoutMillis = 45000, 10000
	p := kmsg.NewJoinGroupRequestProtocol()
	p.Name, p.Metadata = "range", []byte{0, 1, 2}
	req.Protocols = append(req.Protocols, p)
	return req
}

// consumerProtocolMetadata is a classic consumer's JoinGroup protocol
// metadata (ConsumerProtocolSubscription v0) subscribing to topics, which
// Kafka decodes when the group converts to the consumer protocol.
func consumerProtocolMetadata(topics ...string) []byte {
	m := kmsg.NewConsumerMemberMetadata()
	m.Version, m.Topics = 0, topics
	return m.AppendTo(nil)
}

// syncGroup is a SyncGroup; the leader's carries an assignment for itself.
func syncGroup(group, member string, generation int32, leader bool) *kmsg.SyncGroupRequest {
	req := kmsg.NewPtrSyncGroupRequest()
	req.Group, req.MemberID, req.Generation = group, member, generation
	req.ProtocolType, req.Protocol = kmsg.StringPtr("consumer"), kmsg.StringPtr("range")
	if leader {
		a := kmsg.NewSyncGroupRequestGroupAssignment()
		a.MemberID, a.MemberAssignment = member, []byte{9, 9}
		req.GroupAssignment = append(req.GroupAssignment, a)
	}
	return req
}

func heartbeat(group, member string, generation int32) *kmsg.HeartbeatRequest {
	req := kmsg.NewPtrHeartbeatRequest()
	req.Group, req.MemberID, req.Generation = group, member, generation
	return req
}

func leave(group, member string) *kmsg.LeaveGroupRequest {
	req := kmsg.NewPtrLeaveGroupRequest()
	req.Group = group
	m := kmsg.NewLeaveGroupRequestMember()
	m.MemberID = member
	req.Members = append(req.Members, m)
	return req
}
