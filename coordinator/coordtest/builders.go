package coordtest

import (
	"fmt"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/shard"
)

// GroupBuilder seeds a harness with a group in a given state, the role of
// Kafka's GroupMetadataManagerTestContext.Builder().withConsumerGroup(…)
// and its streams and share counterparts. Kafka's builder writes records
// directly; this one drives the coordinator's own operations (joins,
// commits, a push, leaves), so every seeded state is one the coordinator
// can reach, and the records appear in Records like any other.
type GroupBuilder struct {
	kind     shard.GroupType
	id       string
	topology shard.Topology
	members  []memberSeed
	offsets  []offsetSeed
	push     bool
	empty    bool
}

type memberSeed struct {
	id     string
	topics []string
}

type offsetSeed struct {
	topic     string
	partition int32
	offset    int64
}

// ConsumerGroup seeds a KIP-848 consumer group.
func ConsumerGroup(id string) *GroupBuilder { return &GroupBuilder{kind: shard.Consumer, id: id} }

// StreamsGroup seeds a streams group whose members join with topology.
func StreamsGroup(id string, topology shard.Topology) *GroupBuilder {
	return &GroupBuilder{kind: shard.Streams, id: id, topology: topology}
}

// ShareGroup seeds a share group.
func ShareGroup(id string) *GroupBuilder { return &GroupBuilder{kind: shard.Share, id: id} }

// SimpleGroup seeds a simple (member-less classic) group: its offsets only.
func SimpleGroup(id string) *GroupBuilder { return &GroupBuilder{kind: shard.Classic, id: id} }

// WithMember adds a member; consumer and share members subscribe to topics
// (streams members read their topology's topics).
func (b *GroupBuilder) WithMember(id string, topics ...string) *GroupBuilder {
	b.members = append(b.members, memberSeed{id, topics})
	return b
}

// WithOffset commits an offset (as the first member, or as an admin when
// the group has none).
func (b *GroupBuilder) WithOffset(topic string, partition int32, offset int64) *GroupBuilder {
	b.offsets = append(b.offsets, offsetSeed{topic, partition, offset})
	return b
}

// WithStoredDescription has the first member push the topology's
// description, so the stored description epoch is the topology's (streams
// groups, with WithPlugin).
func (b *GroupBuilder) WithStoredDescription() *GroupBuilder { b.push = true; return b }

// Empty has every member leave once the group is seeded: an EMPTY group
// that keeps its offsets and stored description epoch.
func (b *GroupBuilder) Empty() *GroupBuilder { b.empty = true; return b }

// WithGroups seeds the harness with groups, in order, once its shards are
// loaded.
func WithGroups(groups ...*GroupBuilder) Option {
	return func(o *options) { o.groups = append(o.groups, groups...) }
}

// seed builds the group through the coordinator's operations.
func (b *GroupBuilder) seed(h *Harness) error {
	fail := func(step string, err error) error {
		return fmt.Errorf("coordtest: seeding %s: %s: %w", b.id, step, err)
	}
	if b.kind == shard.Classic && len(b.members) > 0 {
		return fail("members", fmt.Errorf("a simple group has no members"))
	}
	epochs := map[string]int32{}
	for _, m := range b.members {
		var epoch int32
		var err error
		switch b.kind {
		case shard.Consumer:
			var r shard.ConsumerGroupHeartbeatResponse
			r, err = h.JoinConsumer(b.id, m.id, m.topics...)
			epoch = r.MemberEpoch
		case shard.Streams:
			var r shard.StreamsGroupHeartbeatResponse
			r, err = h.JoinStreams(b.id, m.id, b.topology)
			epoch = r.MemberEpoch
		case shard.Share:
			var r shard.ShareGroupHeartbeatResponse
			r, err = h.JoinShare(b.id, m.id, m.topics...)
			epoch = r.MemberEpoch
		}
		if err != nil {
			return fail("join "+m.id, err)
		}
		epochs[m.id] = epoch
	}
	for _, off := range b.offsets {
		member, epoch := "", int32(-1)
		if len(b.members) > 0 && b.kind != shard.Share {
			member, epoch = b.members[0].id, epochs[b.members[0].id]
		}
		if err := h.Commit(b.id, member, epoch, off.topic, off.partition, off.offset); err != nil {
			return fail("commit", err)
		}
	}
	if b.push {
		if b.kind != shard.Streams || len(b.members) == 0 {
			return fail("push", fmt.Errorf("a stored description needs a streams group with a member"))
		}
		d := plugin.SampleTopology(uint64(b.topology.Epoch), 2)
		if err := h.Push(b.id, b.members[0].id, b.topology.Epoch, d); err != nil {
			return fail("push", err)
		}
	}
	if b.empty {
		for _, m := range b.members {
			var err error
			switch b.kind {
			case shard.Consumer:
				_, err = h.HeartbeatConsumer(b.id, m.id, -1)
			case shard.Streams:
				_, err = h.HeartbeatStreams(b.id, m.id, -1)
			case shard.Share:
				_, err = h.LeaveShare(b.id, m.id)
			}
			if err != nil {
				return fail("leave "+m.id, err)
			}
		}
	}
	return nil
}
