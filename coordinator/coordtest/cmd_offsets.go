package coordtest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// Offsets and groups: commits, fetches, deletions.

// commit group= [member= epoch=] [retention=MS] [version=V]
// offsets=(foo-0@10,foo-1@20#meta) [metadata=text] [async] commits offsets
// (OffsetCommit). #meta is that partition's metadata, metadata= every
// partition's; member= may name a classic member by alias (@A). async does
// not wait for the commit: the command during which it completes prints its
// outcome. A partition that fails prints its error on its own line.
func (s *scenario) commit(d *datadriven.TestData) (string, error) {
	topics, err := commitTopics(d)
	if err != nil {
		return "", err
	}
	return s.awaitCommit(d, s.h.Coordinator.CommitOffsets(shard.OffsetCommitRequest{GroupID: str(d, "group"),
		MemberID: s.classic.resolve(str(d, "member")), MemberEpoch: int32(num(d, "epoch", -1)),
		RetentionTimeMs: num(d, "retention", -1), APIVersion: int16(num(d, "version", 0)), Topics: topics}))
}

// txn-commit group= producer= [member= epoch=] offsets=(...) [async] commits
// offsets in the producer's transaction (TxnOffsetCommit), printed as
// commit prints them.
func (s *scenario) txnCommit(d *datadriven.TestData) (string, error) {
	topics, err := commitTopics(d)
	if err != nil {
		return "", err
	}
	return s.awaitCommit(d, s.h.Coordinator.CommitTransactionalOffsets(shard.TxnOffsetCommitRequest{GroupID: str(d, "group"),
		ProducerID: num(d, "producer", 0), MemberID: str(d, "member"), MemberEpoch: int32(num(d, "epoch", -1)), Topics: topics}))
}

// awaitCommit waits for a commit, or with async parks it until a later
// command completes it.
func (s *scenario) awaitCommit(d *datadriven.TestData, f *coordinator.Future[shard.OffsetCommitResponse]) (string, error) {
	describe := func(r shard.OffsetCommitResponse, err error) string {
		if err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("committed %d", r.Committed) + partitionErrors(r.Topics)
	}
	if d.HasArg("async") {
		return awaitOrPark(s, fmt.Sprintf("%s %s", d.Cmd, strings.Join(list(d, "offsets"), ",")), f, describe), nil
	}
	r, err := Await(s.h, f)
	if err != nil {
		return "", err
	}
	return describe(r, nil), nil
}

// end-txn group= producer= (commit|abort) ends the producer's transaction
// on the group's offsets.
func (s *scenario) endTxn(d *datadriven.TestData) (string, error) {
	_, err := Await(s.h, s.h.Coordinator.EndTransaction(str(d, "group"), num(d, "producer", 0), d.HasArg("commit")))
	return "", err
}

// fetch group= [member= epoch=] [partitions=(foo-0,...)] [stable] fetches
// committed offsets (OffsetFetch), every partition without partitions=.
func (s *scenario) fetch(d *datadriven.TestData) (string, error) {
	req := shard.OffsetFetchRequest{GroupID: str(d, "group"), MemberID: str(d, "member"),
		MemberEpoch: int32(num(d, "epoch", -1)), RequireStable: d.HasArg("stable")}
	if d.HasArg("partitions") {
		tps, err := topicPartitions(list(d, "partitions"))
		if err != nil {
			return "", err
		}
		req.Topics = tps
	}
	offs, err := s.h.Coordinator.OffsetFetch(req)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, o := range offs {
		fmt.Fprintf(&b, "%s-%d offset=%d", o.Topic, o.Partition, o.Offset)
		if o.Err != nil {
			fmt.Fprintf(&b, " error=%s", kerr.Name(o.Err))
		}
		b.WriteString("\n")
	}
	return orNone(&b, "no offsets"), nil
}

// delete-offsets group= partitions=(foo-0,...) deletes the group's offsets
// of those partitions (OffsetDelete).
func (s *scenario) deleteOffsets(d *datadriven.TestData) (string, error) {
	var tps []shard.TopicPartitions
	for _, tp := range list(d, "partitions") {
		topic, p, err := splitTopicPartition(tp)
		if err != nil {
			return "", err
		}
		tps = append(tps, shard.TopicPartitions{Topic: topic, Partitions: []int32{p}})
	}
	r, err := Await(s.h, s.h.Coordinator.DeleteOffsets(str(d, "group"), tps))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("deleted %d", r.Deleted) + partitionErrors(r.Topics), nil
}

// partitions-deleted partitions=(foo-0,...) is the metadata publisher's
// onPartitionsDeleted: it prints the tombstones each hosted shard wrote,
// one line per shard.
func (s *scenario) partitionsDeleted(d *datadriven.TestData) (string, error) {
	tps, err := topicPartitions(list(d, "partitions"))
	if err != nil {
		return "", err
	}
	rs, err := Await(s.h, s.h.Coordinator.OnPartitionsDeleted(tps))
	if err != nil {
		return "error: " + err.Error(), nil
	}
	var b strings.Builder
	for _, r := range rs {
		if r.Err != nil {
			fmt.Fprintf(&b, "p%d: %s\n", r.Partition, errName(r.Err))
		} else if r.Value > 0 {
			fmt.Fprintf(&b, "p%d: tombstones=%d\n", r.Partition, r.Value)
		}
	}
	return orNone(&b, "no tombstones"), nil
}

// alter-share-offsets group= partitions=(foo-0,...) is
// AlterShareGroupOffsets: it prints the bumped group epoch.
func (s *scenario) alterShareOffsets(d *datadriven.TestData) (string, error) {
	return shareOffsets(s, d, s.h.Coordinator.AlterShareGroupOffsets, "group-epoch=%d")
}

// delete-share-offsets group= partitions=(foo-0,...) is
// DeleteShareGroupOffsets: it prints how many partitions it named.
func (s *scenario) deleteShareOffsets(d *datadriven.TestData) (string, error) {
	return shareOffsets(s, d, s.h.Coordinator.DeleteShareGroupOffsets, "partitions=%d")
}

// shareOffsets calls a share group offsets admin operation on the group and
// partitions the command names, and prints its answer with format.
func shareOffsets[T any](s *scenario, d *datadriven.TestData, call func(string, []shard.TopicPartitions) *coordinator.Future[T], format string) (string, error) {
	tps, err := topicPartitions(list(d, "partitions"))
	if err != nil {
		return "", err
	}
	v, err := Await(s.h, call(str(d, "group"), tps))
	if err != nil {
		return "", err
	}
	return fmt.Sprintf(format, v), nil
}

// delete-groups groups=(a,b) deletes the groups (DeleteGroups), one line
// per group: "deleted" or its error.
func (s *scenario) deleteGroups(d *datadriven.TestData) (string, error) {
	rs, err := s.h.DeleteGroups(list(d, "groups")...)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, r := range rs {
		fmt.Fprintf(&b, "%s: %s\n", r.GroupID, errName(r.Err))
	}
	return b.String(), nil
}

// partitionErrors prints the partitions of a per-partition response that
// failed, one line each, in response order.
func partitionErrors(topics []shard.TopicResults) string {
	var b strings.Builder
	for _, t := range topics {
		for _, p := range t.Partitions {
			if p.Err != nil {
				fmt.Fprintf(&b, "\n%s-%d: %v", t.Topic, p.Partition, p.Err)
			}
		}
	}
	return b.String()
}

// commitTopics reads a commit's offsets=(foo-0@10,foo-1@20#meta), one
// request topic per run of the same topic.
func commitTopics(d *datadriven.TestData) ([]shard.OffsetCommitTopic, error) {
	var topics []shard.OffsetCommitTopic
	for _, o := range list(d, "offsets") {
		tp, off, ok := strings.Cut(o, "@")
		if !ok {
			return nil, fmt.Errorf("%q is not topic-partition@offset[#metadata]", o)
		}
		metadata := str(d, "metadata")
		if o, m, ok := strings.Cut(off, "#"); ok {
			off, metadata = o, m
		}
		topic, p, err := splitTopicPartition(tp)
		if err != nil {
			return nil, err
		}
		offset, err := strconv.ParseInt(off, 10, 64)
		if err != nil {
			return nil, err
		}
		part := shard.OffsetCommitPartition{Partition: p, Offset: offset, LeaderEpoch: -1, Metadata: metadata}
		if n := len(topics); n > 0 && topics[n-1].Topic == topic {
			topics[n-1].Partitions = append(topics[n-1].Partitions, part)
		} else {
			topics = append(topics, shard.OffsetCommitTopic{Topic: topic, Partitions: []shard.OffsetCommitPartition{part}})
		}
	}
	return topics, nil
}
