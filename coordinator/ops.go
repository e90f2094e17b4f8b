package coordinator

import (
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// routeGroup validates a group id and returns its partition.
func (c *Coordinator) routeGroup(groupID string) (int32, error) {
	return c.routeGroupWith(groupID, shard.ValidateGroupID)
}

// routeGroupOrEmpty is routeGroup for the APIs where "" is a group id
// (OffsetCommit, OffsetFetch, DescribeGroups, DeleteGroups:
// shard.ValidateGroupIDOrEmpty). "" hashes to partition 0.
func (c *Coordinator) routeGroupOrEmpty(groupID string) (int32, error) {
	return c.routeGroupWith(groupID, shard.ValidateGroupIDOrEmpty)
}

func (c *Coordinator) routeGroupWith(groupID string, validate func(string) error) (int32, error) {
	if !c.active {
		return 0, kerr.CoordinatorNotAvailable.WithMessage("the coordinator is not active")
	}
	if err := validate(groupID); err != nil {
		return 0, err
	}
	return c.PartitionFor(groupID), nil
}

func routed[R any](c *Coordinator, groupID string, fn func(p int32) *Future[R]) *Future[R] {
	return routedWith(c, groupID, c.routeGroup, fn)
}

func routedWith[R any](c *Coordinator, groupID string, route func(string) (int32, error), fn func(p int32) *Future[R]) *Future[R] {
	p, err := route(groupID)
	if err != nil {
		var zero R
		return completed(zero, err)
	}
	return fn(p)
}

// routedHeartbeat is routed for the heartbeat APIs, which Kafka validates
// before routing: a bad group id is INVALID_REQUEST, not INVALID_GROUP_ID.
func routedHeartbeat[R any](c *Coordinator, groupID string, fn func(p int32) *Future[R]) *Future[R] {
	if c.active && groupID == "" {
		var zero R
		return completed(zero, kerr.InvalidRequest.WithMessage("GroupId can't be empty."))
	}
	if err := shard.ValidateGroupID(groupID); c.active && err != nil {
		var zero R
		return completed(zero, kerr.InvalidRequest.WithMessage("GroupId is invalid: %v", err))
	}
	return routed(c, groupID, fn)
}

// heartbeatWrite is the write of a group heartbeat of type typ, the path
// the consumer, share and streams heartbeats share: routed as a heartbeat
// (routedHeartbeat), beat runs on the group's shard, and a heartbeat that
// succeeded records the rebalance it caused (recordHeartbeatRebalance; a
// negative member epoch is a leave).
func heartbeatWrite[R any](c *Coordinator, op string, typ shard.GroupType, groupID string, memberEpoch int32,
	beat func(p int32, s *shard.Shard, now int64) (shard.Result[R], error)) *Future[R] {
	return routedHeartbeat(c, groupID, func(p int32) *Future[R] {
		return write(c, op, p, func(s *shard.Shard, now int64) (shard.Result[R], error) {
			before, existed := s.GroupEpoch(groupID)
			res, err := beat(p, s, now)
			if err == nil {
				c.metrics.recordHeartbeatRebalance(now, typ, groupID, before, existed, memberEpoch < 0, res.Records)
			}
			return res, err
		})
	})
}

// ConsumerGroupHeartbeat handles a KIP-848 ConsumerGroupHeartbeat.
func (c *Coordinator) ConsumerGroupHeartbeat(req shard.ConsumerGroupHeartbeatRequest) *Future[shard.ConsumerGroupHeartbeatResponse] {
	return heartbeatWrite(c, "consumer-group-heartbeat", shard.Consumer, req.GroupID, req.MemberEpoch,
		func(_ int32, s *shard.Shard, now int64) (shard.Result[shard.ConsumerGroupHeartbeatResponse], error) {
			return s.ConsumerGroupHeartbeat(now, req)
		})
}

// ShareGroupHeartbeat handles a KIP-932 ShareGroupHeartbeat.
func (c *Coordinator) ShareGroupHeartbeat(req shard.ShareGroupHeartbeatRequest) *Future[shard.ShareGroupHeartbeatResponse] {
	return heartbeatWrite(c, "share-group-heartbeat", shard.Share, req.GroupID, req.MemberEpoch,
		func(_ int32, s *shard.Shard, now int64) (shard.Result[shard.ShareGroupHeartbeatResponse], error) {
			return s.ShareGroupHeartbeat(now, req)
		})
}

// CommitOffsets handles an OffsetCommit; "" is a group id here.
func (c *Coordinator) CommitOffsets(req shard.OffsetCommitRequest) *Future[shard.OffsetCommitResponse] {
	return routedWith(c, req.GroupID, c.routeGroupOrEmpty, func(p int32) *Future[shard.OffsetCommitResponse] {
		return write(c, "commit-offset", p, func(s *shard.Shard, now int64) (shard.Result[shard.OffsetCommitResponse], error) {
			res, err := s.CommitOffsets(now, req)
			if err == nil && res.Response.Committed > 0 {
				c.metrics.offsetCommits.RecordValue(float64(res.Response.Committed), now)
			}
			return res, err
		})
	})
}

// CommitTransactionalOffsets handles a TxnOffsetCommit.
func (c *Coordinator) CommitTransactionalOffsets(req shard.TxnOffsetCommitRequest) *Future[shard.OffsetCommitResponse] {
	return routed(c, req.GroupID, func(p int32) *Future[shard.OffsetCommitResponse] {
		return write(c, "txn-commit-offset", p, func(s *shard.Shard, now int64) (shard.Result[shard.OffsetCommitResponse], error) {
			return s.CommitTransactionalOffsets(now, req)
		})
	})
}

// EndTransaction writes a transaction marker for a group's pending offsets.
func (c *Coordinator) EndTransaction(groupID string, producerID int64, commit bool) *Future[struct{}] {
	return routed(c, groupID, func(p int32) *Future[struct{}] {
		return write(c, "end-transaction", p, func(s *shard.Shard, _ int64) (shard.Result[struct{}], error) {
			return s.EndTransaction(groupID, producerID, commit)
		})
	})
}

// FetchOffsets reads committed offsets of a group (all of them when topics
// is nil), as an admin's OffsetFetch without a member.
func (c *Coordinator) FetchOffsets(groupID string, topics []shard.TopicPartitions, requireStable bool) ([]shard.FetchedOffset, error) {
	return c.OffsetFetch(shard.OffsetFetchRequest{GroupID: groupID, MemberEpoch: -1, Topics: topics, RequireStable: requireStable})
}

// OffsetFetch handles one group of an OffsetFetch, with the member checks of
// shard.Shard.OffsetFetch, from committed state; "" is a group id here.
func (c *Coordinator) OffsetFetch(req shard.OffsetFetchRequest) ([]shard.FetchedOffset, error) {
	p, err := c.routeGroupOrEmpty(req.GroupID)
	if err != nil {
		return nil, err
	}
	return read(c, p, func(s *shard.Shard) ([]shard.FetchedOffset, error) {
		return s.OffsetFetch(req)
	})
}

// DeleteOffsets handles an OffsetDelete: per-partition answers and how many
// offsets were deleted.
func (c *Coordinator) DeleteOffsets(groupID string, topics []shard.TopicPartitions) *Future[shard.OffsetDeleteResponse] {
	return routed(c, groupID, func(p int32) *Future[shard.OffsetDeleteResponse] {
		return write(c, "delete-offsets", p, func(s *shard.Shard, now int64) (shard.Result[shard.OffsetDeleteResponse], error) {
			res, err := s.DeleteOffsets(groupID, topics)
			if err == nil && res.Response.Deleted > 0 {
				c.metrics.offsetDeletions.RecordValue(float64(res.Response.Deleted), now)
			}
			return res, err
		})
	})
}

// AlterShareGroupOffsets handles the group-coordinator half of
// AlterShareGroupOffsets (docs/share-groups.md §2.7): the share group must exist
// and be EMPTY; the write bumps its group epoch and the future carries the
// new epoch once committed. The caller then re-initialises the named
// partitions' share state at that new state epoch; the coordinator does not
// touch share state.
func (c *Coordinator) AlterShareGroupOffsets(groupID string, topics []shard.TopicPartitions) *Future[int32] {
	return routed(c, groupID, func(p int32) *Future[int32] {
		return write(c, "alter-share-group-offsets", p, func(s *shard.Shard, nowMs int64) (shard.Result[int32], error) {
			return s.AlterShareGroupOffsets(nowMs, groupID, topics)
		})
	})
}

// DeleteShareGroupOffsets handles the group-coordinator half of
// DeleteShareGroupOffsets: the share group must exist and be EMPTY. It
// writes nothing; the future carries the number of distinct partitions
// named, released after every earlier write of the shard has committed, and
// the caller then deletes their share state.
func (c *Coordinator) DeleteShareGroupOffsets(groupID string, topics []shard.TopicPartitions) *Future[int] {
	return routed(c, groupID, func(p int32) *Future[int] {
		return write(c, "delete-share-group-offsets", p, func(s *shard.Shard, _ int64) (shard.Result[int], error) {
			return s.DeleteShareGroupOffsets(groupID, topics)
		})
	})
}

// deleteGroupsWrite runs the "delete-groups" write on each partition for the
// request indices listed, filling results, then calls done.
//
// rowsDeleted is nil without a topology store; with one it maps each group
// whose description row was deleted to the stored epoch it must still have
// (shard.DeleteGroupsAfterRowDeletes).
func (c *Coordinator) deleteGroupsWrite(groupIDs []string, results []shard.DeleteGroupResult, byPartition map[int32][]int, rowsDeleted map[string]int32, done func()) {
	fanOut(byPartition, done, func(p int32, idx []int, finish func()) {
		ids := make([]string, len(idx))
		for j, i := range idx {
			ids[j] = groupIDs[i]
		}
		sub := write(c, "delete-groups", p, func(s *shard.Shard, now int64) (shard.Result[[]shard.DeleteGroupResult], error) {
			var res shard.Result[[]shard.DeleteGroupResult]
			var err error
			if rowsDeleted == nil {
				res, err = s.DeleteGroups(ids)
			} else {
				res, err = s.DeleteGroupsAfterRowDeletes(ids, rowsDeleted)
			}
			// No offset-deletion here: GroupCoordinatorShard.deleteGroups
			// counts the offsets it tombstones only for its log line; the
			// OffsetDeletions sensor is OffsetDelete's (deleteOffsets).
			return res, err
		})
		sub.OnDone(func(rs []shard.DeleteGroupResult, err error) {
			for j, i := range idx {
				if err != nil {
					results[i].Err = err
				} else {
					results[i].Err = rs[j].Err
				}
			}
			finish()
		})
	})
}

// DescribedGroup is one row of DescribeGroups: a description or an error.
type DescribedGroup struct {
	GroupID     string
	Description shard.GroupDescription
	Err         error
}

// DescribeGroups reads group descriptions from committed state, in request
// order. "" is a group id here, as in Kafka's describeGroups; the typed
// describes (ConsumerGroupDescribe, ShareGroupDescribe), for which Kafka
// refuses "" with INVALID_GROUP_ID, check it themselves.
func (c *Coordinator) DescribeGroups(groupIDs []string) []DescribedGroup {
	out := make([]DescribedGroup, len(groupIDs))
	for i, id := range groupIDs {
		out[i].GroupID = id
		p, err := c.routeGroupOrEmpty(id)
		if err != nil {
			out[i].Err = err
			continue
		}
		out[i].Description, out[i].Err = readDescribe(c, p, func(s *shard.Shard) (shard.GroupDescription, error) {
			d, ok := s.DescribeGroup(id)
			if !ok {
				return d, kerr.GroupIDNotFound.WithMessage("Group %s not found.", id)
			}
			return d, nil
		})
	}
	return out
}

// ListGroups lists every group on the hosted shards from committed state, in
// (partition, group id) order. Shards that cannot answer are skipped and
// returned as errors.
func (c *Coordinator) ListGroups() ([]shard.GroupListing, []PartitionResult[struct{}]) {
	var out []shard.GroupListing
	var errs []PartitionResult[struct{}]
	for _, r := range ReadAll(c, func(s *shard.Shard) ([]shard.GroupListing, error) {
		var gs []shard.GroupListing
		s.ListGroups(func(g shard.GroupListing) bool { gs = append(gs, g); return true })
		return gs, nil
	}) {
		if r.Err != nil {
			errs = append(errs, PartitionResult[struct{}]{Partition: r.Partition, Err: r.Err})
			continue
		}
		out = append(out, r.Value...)
	}
	return out, errs
}
