package shard

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Format renders a record on one line, deterministically: the form scenario
// files and simulation traces show. A tombstone prints as "<tombstone>".
func Format(r Record) string {
	var b strings.Builder
	b.WriteString(r.Type().String())
	b.WriteByte(' ')
	b.WriteString(r.GroupID())
	switch r := r.(type) {
	case *OffsetCommit:
		fmt.Fprintf(&b, "/%s-%d", r.Topic, r.Partition)
		if r.Tombstone {
			b.WriteString(" <tombstone>")
			break
		}
		fmt.Fprintf(&b, " offset=%d", r.Value.Offset)
		if r.Value.LeaderEpoch >= 0 {
			fmt.Fprintf(&b, " leader-epoch=%d", r.Value.LeaderEpoch)
		}
		if r.Value.Metadata != "" {
			fmt.Fprintf(&b, " metadata=%q", r.Value.Metadata)
		}
		if r.Value.ExpireTimestampMs >= 0 {
			fmt.Fprintf(&b, " expire=%d", r.Value.ExpireTimestampMs)
		}
		if r.ProducerID != NoProducerID {
			fmt.Fprintf(&b, " producer=%d", r.ProducerID)
		}
	case *EndTransactionMarker:
		verdict := "abort"
		if r.Commit {
			verdict = "commit"
		}
		fmt.Fprintf(&b, " producer=%d %s", r.ProducerID, verdict)
	case *GroupMetadata:
		tomb(&b, r.Tombstone, func() {
			fmt.Fprintf(&b, " protocol=%q generation=%d", r.ProtocolType, r.Generation)
			if r.Protocol != "" || len(r.Members) > 0 {
				fmt.Fprintf(&b, " assignor=%s leader=%s members=[", r.Protocol, r.Leader)
				for i, m := range r.Members {
					if i > 0 {
						b.WriteByte(' ')
					}
					fmt.Fprintf(&b, "%s%s subscription=%s assignment=%s", m.MemberID, instanceSuffix(m.InstanceID),
						formatSubscriptionBytes(m.Subscription), formatAssignmentBytes(m.Assignment))
				}
				b.WriteByte(']')
			}
		})
	case *ClassicGroupState:
		formatClassicGroupState(&b, r)
	case *ConsumerGroupMetadata:
		tomb(&b, r.Tombstone, func() { fmt.Fprintf(&b, " epoch=%d", r.Epoch) })
	case *ShareGroupMetadata:
		tomb(&b, r.Tombstone, func() { fmt.Fprintf(&b, " epoch=%d", r.Epoch) })
	case *StreamsGroupMetadata:
		tomb(&b, r.Tombstone, func() {
			fmt.Fprintf(&b, " epoch=%d stored=%d failed=%d", r.Epoch, r.StoredDescriptionTopologyEpoch, r.FailedDescriptionTopologyEpoch)
			if r.LastNumStandbyReplicas != 0 {
				fmt.Fprintf(&b, " num.standby.replicas=%d", r.LastNumStandbyReplicas)
			}
		})
	case *ConsumerGroupTargetAssignmentMetadata:
		tomb(&b, r.Tombstone, func() { fmt.Fprintf(&b, " assignment-epoch=%d", r.AssignmentEpoch) })
	case *StreamsGroupTargetAssignmentMetadata:
		tomb(&b, r.Tombstone, func() { fmt.Fprintf(&b, " assignment-epoch=%d", r.AssignmentEpoch) })
	case *ShareGroupTargetAssignmentMetadata:
		tomb(&b, r.Tombstone, func() { fmt.Fprintf(&b, " assignment-epoch=%d", r.AssignmentEpoch) })
	case *ConsumerGroupMemberMetadata:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			if r.InstanceID != "" {
				fmt.Fprintf(&b, " instance=%s", r.InstanceID)
			}
			formatRack(&b, r.RackID)
			fmt.Fprintf(&b, " topics=[%s]", strings.Join(r.SubscribedTopics, ","))
			if r.SubscribedTopicRegex != "" {
				fmt.Fprintf(&b, " regex=%q", r.SubscribedTopicRegex)
			}
			if r.ServerAssignor != "" {
				fmt.Fprintf(&b, " assignor=%s", r.ServerAssignor)
			}
			formatClassicMember(&b, r.Classic)
		})
	case *ShareGroupMemberMetadata:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			formatRack(&b, r.RackID)
			fmt.Fprintf(&b, " topics=[%s]", strings.Join(r.SubscribedTopics, ","))
		})
	case *StreamsGroupMemberMetadata:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			if r.InstanceID != "" {
				fmt.Fprintf(&b, " instance=%s", r.InstanceID)
			}
			formatRack(&b, r.RackID)
			fmt.Fprintf(&b, " topology-epoch=%d", r.TopologyEpoch)
			if r.UserEndpoint != nil {
				fmt.Fprintf(&b, " endpoint=%s", r.UserEndpoint)
			}
		})
	case *ConsumerGroupTargetAssignmentMember:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() { b.WriteString(" target=" + FormatAssignment(r.Partitions)) })
	case *ShareGroupTargetAssignmentMember:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() { b.WriteString(" target=" + FormatAssignment(r.Partitions)) })
	case *StreamsGroupTargetAssignmentMember:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			b.WriteString(" target=" + FormatTasks(r.ActiveTasks))
			if len(r.StandbyTasks) > 0 {
				b.WriteString(" standby=" + FormatTasks(r.StandbyTasks))
			}
			if len(r.WarmupTasks) > 0 {
				b.WriteString(" warmup=" + FormatTasks(r.WarmupTasks))
			}
		})
	case *ConsumerGroupCurrentMemberAssignment:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			fmt.Fprintf(&b, " epoch=%d previous=%d state=%s assigned=%s", r.MemberEpoch, r.PreviousMemberEpoch, r.State, FormatAssignment(r.Partitions))
			if len(r.PartitionsPendingRevocation) > 0 {
				b.WriteString(" revoking=" + FormatAssignment(r.PartitionsPendingRevocation))
			}
		})
	case *ShareGroupCurrentMemberAssignment:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			fmt.Fprintf(&b, " epoch=%d previous=%d assigned=%s", r.MemberEpoch, r.PreviousMemberEpoch, FormatAssignment(r.Partitions))
		})
	case *StreamsGroupCurrentMemberAssignment:
		fmt.Fprintf(&b, " member=%s", r.MemberID)
		tomb(&b, r.Tombstone, func() {
			fmt.Fprintf(&b, " epoch=%d previous=%d state=%s tasks=%s", r.MemberEpoch, r.PreviousMemberEpoch, r.State, FormatTasks(r.ActiveTasks))
			for _, x := range [...]struct {
				name  string
				tasks []TaskIDs
			}{{"standby", r.StandbyTasks}, {"warmup", r.WarmupTasks}, {"revoking", r.ActiveTasksPendingRevocation},
				{"revoking-standby", r.StandbyTasksPendingRevocation}, {"revoking-warmup", r.WarmupTasksPendingRevocation}} {
				if len(x.tasks) > 0 {
					b.WriteString(" " + x.name + "=" + FormatTasks(x.tasks))
				}
			}
		})
	case *ShareGroupStatePartitionMetadata:
		tomb(&b, r.Tombstone, func() {
			fmt.Fprintf(&b, " initializing=%s initialized=%s", FormatAssignment(r.Initializing), FormatAssignment(r.Initialized))
			if len(r.Unnamed) > 0 {
				fmt.Fprintf(&b, " unnamed=[%s]", strings.Join(r.Unnamed, ","))
			}
			if len(r.Deleting) > 0 {
				fmt.Fprintf(&b, " deleting=[%s]", strings.Join(r.Deleting, ","))
			}
		})
	case *ConsumerGroupRegularExpression:
		fmt.Fprintf(&b, " regex=%q", r.Regex)
		tomb(&b, r.Tombstone, func() { fmt.Fprintf(&b, " topics=[%s] at=%d", strings.Join(r.Topics, ","), r.TimestampMs) })
	case *StreamsGroupTopology:
		tomb(&b, r.Tombstone, func() { b.WriteString(" " + FormatTopology(&r.Topology)) })
	}
	return b.String()
}

func tomb(b *strings.Builder, tombstone bool, value func()) {
	if tombstone {
		b.WriteString(" <tombstone>")
		return
	}
	value()
}

// FormatAssignment renders partitions as "foo:0,1;bar:2" ("-" when empty).
func FormatAssignment(a []TopicPartitions) string {
	if len(a) == 0 {
		return "-"
	}
	parts := make([]string, len(a))
	for i, tp := range a {
		parts[i] = tp.Topic + ":" + joinInt32(tp.Partitions)
	}
	return strings.Join(parts, ";")
}

// FormatTasks renders tasks as "s0:0,1;s1:0" ("-" when empty).
func FormatTasks(t []TaskIDs) string { return FormatAssignment(tasksToPartitions(t)) }

// FormatTopology renders a topology as "epoch=1 [s0:foo,bar s1:baz]": each
// subtopology's id, then its source and repartition source topics (a fixed
// partition count as "rp@4"), then, when present, "/sink=" its repartition
// sink topics, "/changelog=" its state changelog topics and "/copartition="
// each copartition group's topics joined by "+".
func FormatTopology(t *Topology) string {
	if t == nil {
		return "<none>"
	}
	parts := make([]string, len(t.Subtopologies))
	for i, st := range t.Subtopologies {
		in := slices.Clone(st.SourceTopics)
		for _, ti := range st.RepartitionSourceTopics {
			in = append(in, formatTopicInfo(ti))
		}
		p := st.ID + ":" + strings.Join(in, ",")
		if len(st.RepartitionSinkTopics) > 0 {
			p += "/sink=" + strings.Join(st.RepartitionSinkTopics, ",")
		}
		if len(st.StateChangelogTopics) > 0 {
			p += "/changelog=" + strings.Join(st.StateChangelogTopicNames(), ",")
		}
		for _, cg := range st.CopartitionGroups {
			p += "/copartition=" + strings.Join(copartitionTopics(&st, cg), "+")
		}
		parts[i] = p
	}
	return fmt.Sprintf("epoch=%d [%s]", t.Epoch, strings.Join(parts, " "))
}

func formatTopicInfo(ti TopicInfo) string {
	if ti.Partitions > 0 {
		return ti.Name + "@" + strconv.Itoa(int(ti.Partitions))
	}
	return ti.Name
}

func joinInt32(xs []int32) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = strconv.Itoa(int(x))
	}
	return strings.Join(s, ",")
}

// formatRack prints a member's rack, and nothing for a member without one,
// so logs written before racks existed read the same.
func formatRack(b *strings.Builder, rack string) {
	if rack != "" {
		fmt.Fprintf(b, " rack=%s", rack)
	}
}

func instanceSuffix(id string) string {
	if id == "" {
		return ""
	}
	return "(" + id + ")"
}

// formatClassicGroupState prints a classic group's snapshot: its state,
// generation, protocol, leader, and each member with the requests it has
// parked (join, sync) and whether it is new.
func formatClassicGroupState(b *strings.Builder, r *ClassicGroupState) {
	fmt.Fprintf(b, " state=%s generation=%d", r.State.MetricLabel(), r.Generation)
	if r.ProtocolName != "" {
		fmt.Fprintf(b, " assignor=%s", r.ProtocolName)
	}
	if r.Leader != "" {
		fmt.Fprintf(b, " leader=%s", r.Leader)
	}
	if r.NewMemberAdded {
		b.WriteString(" new-member-added")
	}
	b.WriteString(" members=[")
	for i, m := range r.Members {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(m.MemberID + instanceSuffix(m.InstanceID))
		var flags []string
		if m.JoinHandle != 0 {
			flags = append(flags, "joining")
		}
		if m.SyncHandle != 0 {
			flags = append(flags, "syncing")
		}
		if m.IsNew {
			flags = append(flags, "new")
		}
		if len(m.Assignment) > 0 {
			flags = append(flags, "assignment="+formatAssignmentBytes(m.Assignment))
		}
		if len(flags) > 0 {
			fmt.Fprintf(b, "{%s}", strings.Join(flags, ","))
		}
	}
	b.WriteByte(']')
	if len(r.PendingMembers) > 0 {
		fmt.Fprintf(b, " pending=[%s]", strings.Join(r.PendingMembers, " "))
	}
	if len(r.PendingSyncMembers) > 0 {
		fmt.Fprintf(b, " pending-sync=[%s]", strings.Join(r.PendingSyncMembers, " "))
	}
}
