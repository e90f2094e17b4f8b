package coordinator

import (
	"github.com/coordsim/coordsim/internal/mutant"
	"github.com/coordsim/coordsim/shard"
)

// A partition's log folds its committed records into a snapshot once the
// committed tail passes Logs.SetSnapshotEvery records (log.go), so a long
// run's memory and a shard move's replay stop growing with virtual time.
//
// Kafka bounds __consumer_offsets by compaction instead: the cleaner keeps
// the latest record per key and drops tombstones after
// delete.retention.ms. coordsim's replay is not yet compaction-safe, so a
// compacted log would not replay to the state the live shard holds:
//   - an offset commit replayed for an unknown group creates the simple
//     group (shard/replay.go), and the tombstone of that key, once it
//     shadows the commit, creates nothing;
//   - a pending transactional offset is superseded when a newer committed
//     value of its key is put after it (offsets.Store), so which of two
//     interleaved transactions on one key wins depends on the plain commits
//     between them, records a cleaner would drop;
//   - a member or group record of a kind the cleaner kept can meet a group
//     of another kind the cleaner dropped, which shard's replay refuses and
//     Kafka's (getOrMaybeCreatePersisted*Group) converts.
// A snapshot is equal to the replay from offset 0 by construction: it is
// that replay, kept.
//
// The snapshot is always a replay of the log, never a copy of a shard that
// served writes: the simulator's replay invariant rebuilds shards from the
// snapshot and the tail, and a copy of the live state would launder a bug
// of the write path into the reference it is checked against. It is taken
// two ways: for free at a load, whose shard is the log replayed and
// nothing else yet; and, for a partition that does not move, by replaying
// the tail onto a copy of the last snapshot when it passes the threshold,
// which costs one more replay of each record.

// snapshots reports whether this broker folds logs into snapshots: not when
// a mutant is planted in the shards, whose replay it corrupts, so the
// checker's rebuild replays the whole log with a correct shard instead of
// copying a snapshot the mutant replayed.
func (c *Coordinator) snapshots() bool { return c.shardCfg.Mutants == (mutant.Set{}) }

// prepareShard installs what the log does not carry (the topic image, the
// groups' configs) on a shard about to replay it.
func (c *Coordinator) prepareShard(s *shard.Shard) error {
	s.SetPreparedTopicImage(c.image)
	if err := s.SetStreamsGroupConfigs(c.streamsStandbys); err != nil {
		return err
	}
	return s.SetGroupTimeouts(c.groupTimeouts)
}

// maybeSnapshot folds l's committed tail into its snapshot once it is long
// enough. A failure keeps the tail: the log stays whole, only longer.
func (c *Coordinator) maybeSnapshot(l *Log) {
	if !l.snapshotDue() || !c.snapshots() {
		return
	}
	s, err := l.Restore(c.shardCfg, c.prepareShard)
	if err != nil {
		c.log.Warn("snapshotting the log failed; keeping its tail", "partition", l.partition, "err", err)
		return
	}
	l.setSnapshot(s)
}
