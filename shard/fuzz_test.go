package shard

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/offsets"
)

// Fuzz targets. `go test` runs their seed corpora; `go test -fuzz FuzzReplay
// ./shard/` (or FuzzOperations) explores further.

// fuzzRecords decodes choices into records of every type, valid or not:
// empty and cross-type group ids, empty member ids, negative partitions,
// out-of-range epochs, invalid topologies, nil and unknown records.
type fuzzRecords struct{ c chooser }

var (
	fzGroups     = []string{"a", "b", "c", "", invalidUTF8}
	fzMembers    = []string{"m1", "m2", ""}
	fzTopics     = []string{"t0", "t1", ""}
	fzTopologies = []Topology{
		*topo(0, "t0"),
		*topo(1, "t1", "t0"),
		{Epoch: 2, Subtopologies: []Subtopology{{ID: "x", RepartitionSourceTopics: []TopicInfo{{Name: "t1"}}}}},
		{Epoch: 1},      // no subtopologies
		*topo(-1, "t0"), // negative epoch
		*topo(1, ""),    // empty source topic
		*topo(3),        // no sources
		{Epoch: 0, Subtopologies: []Subtopology{{ID: "", SourceTopics: []string{"t0"}}}}, // empty id
	}
)

func (f fuzzRecords) pick(xs []string) string { return xs[f.c.intn(len(xs))] }
func (f fuzzRecords) epoch() int32            { return int32(f.c.intn(10)) - 3 }
func (f fuzzRecords) tomb() bool              { return f.c.intn(4) == 0 }

func (f fuzzRecords) partitions() []TopicPartitions {
	var out []TopicPartitions
	for range f.c.intn(3) {
		tp := TopicPartitions{Topic: f.pick(fzTopics)}
		for p := range int32(f.c.intn(3)) {
			tp.Partitions = append(tp.Partitions, p)
		}
		out = append(out, tp)
	}
	return out
}

func (f fuzzRecords) tasks() []TaskIDs { return partitionsToTasks(f.partitions()) }

func (f fuzzRecords) next() Record {
	g, m := f.pick(fzGroups), f.pick(fzMembers)
	switch f.c.intn(22) {
	case 0:
		r := &OffsetCommit{Group: g, Topic: f.pick(fzTopics), Partition: int32(f.c.intn(4)) - 1, ProducerID: NoProducerID, Tombstone: f.tomb(),
			Value: offsets.OffsetAndMetadata{Offset: int64(f.c.intn(100)), LeaderEpoch: -1, CommitTimestampMs: int64(f.c.intn(100_000)), ExpireTimestampMs: int64(f.c.intn(100_000)) - 50_000}}
		if f.c.intn(3) == 0 {
			r.ProducerID = int64(f.c.intn(3))
		}
		return r
	case 1:
		return &EndTransactionMarker{Group: g, ProducerID: int64(f.c.intn(4)) - 1, Commit: f.c.intn(2) == 0}
	case 2:
		return &GroupMetadata{Group: g, ProtocolType: f.pick([]string{"", "consumer"}), Generation: f.epoch(), CurrentStateTimestampMs: int64(f.c.intn(1000)), Tombstone: f.tomb()}
	case 3:
		return &ConsumerGroupMetadata{Group: g, Epoch: f.epoch(), MetadataHash: int64(f.c.intn(3)), Tombstone: f.tomb()}
	case 4:
		return &ConsumerGroupMemberMetadata{Group: g, MemberID: m, ClientID: "c", SubscribedTopics: []string{f.pick(fzTopics)}, RebalanceTimeoutMs: 1, Tombstone: f.tomb()}
	case 5:
		return &ConsumerGroupTargetAssignmentMetadata{Group: g, AssignmentEpoch: f.epoch(), Tombstone: f.tomb()}
	case 6:
		return &ConsumerGroupTargetAssignmentMember{Group: g, MemberID: m, Partitions: f.partitions(), Tombstone: f.tomb()}
	case 7:
		return &ConsumerGroupCurrentMemberAssignment{Group: g, MemberID: m, MemberEpoch: f.epoch(), PreviousMemberEpoch: f.epoch(), Partitions: f.partitions(), Tombstone: f.tomb()}
	case 8:
		return &StreamsGroupMetadata{Group: g, Epoch: f.epoch(), MetadataHash: int64(f.c.intn(3)), ValidatedTopologyEpoch: f.epoch(),
			StoredDescriptionTopologyEpoch: f.epoch(), FailedDescriptionTopologyEpoch: f.epoch(), Tombstone: f.tomb()}
	case 9:
		return &StreamsGroupTopology{Group: g, Topology: fzTopologies[f.c.intn(len(fzTopologies))], Tombstone: f.tomb()}
	case 10:
		return &StreamsGroupMemberMetadata{Group: g, MemberID: m, ProcessID: "p", TopologyEpoch: f.epoch(), Tombstone: f.tomb()}
	case 11:
		return &StreamsGroupTargetAssignmentMetadata{Group: g, AssignmentEpoch: f.epoch(), Tombstone: f.tomb()}
	case 12:
		return &StreamsGroupTargetAssignmentMember{Group: g, MemberID: m, ActiveTasks: f.tasks(), Tombstone: f.tomb()}
	case 13:
		return &StreamsGroupCurrentMemberAssignment{Group: g, MemberID: m, MemberEpoch: f.epoch(), PreviousMemberEpoch: f.epoch(), ActiveTasks: f.tasks(), Tombstone: f.tomb()}
	case 14:
		return &ShareGroupMetadata{Group: g, Epoch: f.epoch(), Tombstone: f.tomb()}
	case 15:
		return &ShareGroupMemberMetadata{Group: g, MemberID: m, SubscribedTopics: []string{f.pick(fzTopics)}, Tombstone: f.tomb()}
	case 16:
		return &ShareGroupTargetAssignmentMetadata{Group: g, AssignmentEpoch: f.epoch(), Tombstone: f.tomb()}
	case 17:
		return &ShareGroupTargetAssignmentMember{Group: g, MemberID: m, Partitions: f.partitions(), Tombstone: f.tomb()}
	case 18:
		return &ShareGroupCurrentMemberAssignment{Group: g, MemberID: m, MemberEpoch: f.epoch(), PreviousMemberEpoch: f.epoch(), Partitions: f.partitions(), Tombstone: f.tomb()}
	case 19:
		return nil
	case 20:
		return unknownRecord{}
	default:
		var typed *ConsumerGroupMetadata // a typed nil inside the interface
		if f.c.intn(2) == 0 {
			return typed
		}
		return &OffsetCommit{Group: g, Topic: "t0", Partition: 0, ProducerID: NoProducerID}
	}
}

// replayedRecord is a record Replay accepted, with its offset.
type replayedRecord struct {
	offset int64
	r      Record
}

// FuzzReplay proves that Replay never panics on any sequence of records,
// that a refused record leaves the shard unchanged, that the derived indexes
// always match their definitions, and that replaying the accepted records
// into a fresh shard gives the same state.
func FuzzReplay(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{4, 0, 0, 0, 1, 3, 7, 0, 0, 2, 1, 2, 5, 3, 1, 0})
	f.Add([]byte{9, 0, 0, 0, 1, 10, 0, 0, 3, 1, 8, 0, 0, 3, 3, 3, 3, 1, 8, 0, 0, 1, 1, 1, 1, 0})
	f.Add([]byte{0, 1, 0, 1, 2, 3, 1, 0, 0, 0, 1, 0, 2, 1, 2, 0, 1, 0, 2, 3, 2, 1, 0, 0, 0})
	f.Add([]byte("the quick brown fox jumps over the lazy dog, twice: the quick brown fox"))
	f.Add([]byte{19, 20, 21, 0, 21, 1, 2, 0, 0, 0, 0, 1})
	f.Add([]byte{2, 0, 0, 21, 0, 2, 0, 0, 19, 2, 0, 0, 20, 2, 1, 1, 21, 1}) // typed nil, nil, unknown
	f.Fuzz(fuzzReplayOnce)
}

// fuzzReplayOnce is FuzzReplay's body.
func fuzzReplayOnce(t *testing.T, data []byte) {
	c := &byteChooser{data: data}
	gen := fuzzRecords{c}
	s, err := New(3, testConfig())
	require.NoError(t, err)
	topics := map[string]int32{"t0": 2, "t1": 1}
	require.NoError(t, s.SetTopics(topics))
	var accepted []replayedRecord
	for i := 0; i < 200 && !c.exhausted(); i++ {
		offset := s.LastOffset() + 1
		switch c.intn(16) {
		case 0:
			offset = s.LastOffset() // not after the last: refused
		case 1:
			offset += int64(c.intn(5)) // a gap is allowed
		}
		r := gen.next()
		before := s.Snapshot()
		if err := s.Replay(offset, r); err != nil {
			require.True(t, errors.Is(err, ErrReplay), "record %d: error %v does not wrap ErrReplay", i, err)
			requireSnapshotEqual(t, before, s.Snapshot(), "record %d refused (%v) but changed the shard", i, err)
			continue
		}
		accepted = append(accepted, replayedRecord{offset, r})
		requireIndexesConsistent(t, s, "after record %d (%s)", i, Format(r))
	}
	fresh, err := New(3, testConfig())
	require.NoError(t, err)
	require.NoError(t, fresh.SetTopics(topics))
	for _, a := range accepted {
		require.NoError(t, fresh.Replay(a.offset, a.r), "re-replaying %s", Format(a.r))
	}
	requireSnapshotEqual(t, s.Snapshot(), fresh.Snapshot(), "replay equality")
	sweep := s.CleanupGroupMetadata(1 << 40)
	full := s.cleanupGroupMetadataFullScan(1 << 40)
	require.Equal(t, full.Records, sweep.Records, "indexed sweep vs full scan")
	require.NoError(t, s.ReplayAll(s.LastOffset()+1, sweep.Records), "sweep records replay")
}

// FuzzOperations proves that no sequence of operations with random-ish
// arguments panics, that operations never mutate, that every record they
// return replays, and that the log rebuilds the live shard.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 1, 0, 3, 5, 0, 1, 0, 0, 2, 1, 1, 0, 2, 2, 0, 9, 5, 0, 0, 1, 0, 11, 200})
	f.Add([]byte{2, 1, 0, 1, 0, 4, 2, 0, 0, 0, 0, 3, 2, 0, 1, 0, 1, 7, 1, 13, 3, 15, 1, 3, 11, 255, 255, 13, 0, 0})
	f.Add([]byte("consumer streams share offsets sweep time topics; consumer streams share offsets sweep time"))
	f.Add([]byte{4, 0, 0, 0, 0, 1, 1, 4, 0, 1, 0, 0, 1, 2, 10, 0, 0, 0, 12, 50, 50, 13, 4, 9, 3, 0, 1, 1, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		c := &byteChooser{data: data}
		w := newWorkload(t, c, "fuzz", 300)
		w.run(300, func() bool { return !c.exhausted() })
	})
}
