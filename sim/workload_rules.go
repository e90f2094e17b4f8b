package sim

import (
	"fmt"
	"strings"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The workload variants below exist so that every rule the checker states
// is reached by some client (docs/mutants.md): a rule no workload exercises
// cannot catch the bug that breaks it. Each variant is a fixed share of its
// group kind, so every scenario gets all of them.

// groupVariant is how a group's clients behave beyond the basic loop.
type groupVariant uint8

const (
	variantPlain groupVariant = iota
	// variantRetention: a simple consumer committing with an explicit
	// retention (the legacy expire timestamp), at its partition's sweep
	// deadlines, so expiry lands exactly on a sweep.
	variantRetention
	// variantAligned: a simple consumer committing at its partition's sweep
	// deadlines, so its last offset is due exactly at a sweep (>= vs >).
	variantAligned
	// variantTxn: a transactional producer committing offsets with
	// TxnOffsetCommit and ending each transaction with a commit or abort
	// marker; in the second half of its life every transaction aborts, so
	// its committed offsets expire while transactions are open.
	variantTxn
	// variantIdle: a consumer group whose members commit once and then only
	// heartbeat: subscribed partitions idle for longer than the retention.
	variantIdle
)

// variantFor picks the variant of the i-th group of a kind.
func variantFor(typ shard.GroupType, i int) groupVariant {
	switch typ {
	case shard.Classic:
		return []groupVariant{variantPlain, variantRetention, variantAligned, variantTxn}[i%4]
	case shard.Consumer:
		if i%4 == 2 {
			return variantIdle
		}
	}
	return variantPlain
}

// minValueBase is a group id whose Java String.hashCode is
// Integer.MIN_VALUE: Math.abs leaves it negative, Utils.abs does not.
const minValueBase = "polygenelubricants"

// minValueID returns the k-th of a family of ids hashing to
// Integer.MIN_VALUE, or "" when k is past the family (3^9 ids). Two chars
// (a, b) hash like (a+1, b-31) and (a+2, b-62): rewriting each of the nine
// char pairs of minValueBase one of three ways keeps the hash.
func minValueID(k int) string {
	b := []rune(minValueBase)
	for pair := 0; pair < len(b)/2; pair++ {
		d := rune(k % 3)
		k /= 3
		b[2*pair] += d
		b[2*pair+1] -= 31 * d
	}
	if k > 0 {
		return ""
	}
	return string(b)
}

// groupID names the i-th group of a kind: one id in 16 hashes to
// Integer.MIN_VALUE (while the family lasts), one in 16 is non-ASCII with a
// character outside the BMP (a surrogate pair in Java), the rest are plain.
func (w *world) groupID(label string, i int) string {
	switch i % 16 {
	case 5:
		if id := minValueID(w.minValueIDs); id != "" {
			w.minValueIDs++
			return id
		}
	case 11:
		return fmt.Sprintf("%s-gruppé-グループ-😀-%06d", label, i)
	}
	return fmt.Sprintf("%s-%06d", label, i)
}

// markGroupID marks the unusual ids the workload reaches.
func (w *world) markGroupID(id string) {
	if javaStringHash(id) == -1<<31 {
		w.mark("min-value-group-id")
	}
	for _, r := range id {
		if r > 0x7f {
			w.mark("non-ascii-group-id")
			break
		}
	}
}

// nextSweepAt returns the first sweep deadline of the group's partition at
// or after atMs, or false while the partition moves.
func (w *world) nextSweepAt(g *simGroup, atMs int64) (int64, bool) {
	b := w.route(g.id)
	if b < 0 {
		return 0, false
	}
	d, ok := w.brokers[b].c.TimerDeadline(w.partitionOf(g.id), shard.SweepTimerKey)
	if !ok {
		return 0, false
	}
	at, every := d.UnixMilli(), w.opts.CheckInterval.Milliseconds()
	if at < atMs {
		at += (atMs - at + every - 1) / every * every
	}
	return at, true
}

// alignedCommitLoop is a simple consumer whose commits land on its
// partition's sweep deadlines, with an explicit retention for
// variantRetention (a whole number of check intervals, below the default
// retention, so the expire timestamp decides and falls on a sweep).
func (w *world) alignedCommitLoop(g *simGroup) {
	if w.nowMs() >= g.diesMs || w.healed {
		return
	}
	var retention int64 = -1
	if g.variant == variantRetention {
		every := w.opts.CheckInterval.Milliseconds()
		retention = max(every, w.opts.Retention.Milliseconds()/2/every*every)
		w.mark("explicit-retention-commit")
	}
	n := w.topics[g.topic]
	p := int32(w.eng.rng.IntN(int(n)))
	w.commitWith(g, "", -1, retention, []shard.OffsetCommitPartition{{Partition: p, Offset: w.nowMs() - startMs, LeaderEpoch: -1}})
	next, ok := w.nextSweepAt(g, w.nowMs()+w.opts.Workload.CommitInterval.Milliseconds())
	if !ok {
		next = w.nowMs() + w.opts.Workload.CommitInterval.Milliseconds()
	}
	w.eng.at(next, func() { w.alignedCommitLoop(g) })
}

// txnLoop is a transactional producer: each CommitInterval it commits an
// offset in a transaction (TxnOffsetCommit) and ends it with a marker a
// little later; commits in the first half of its life, aborts in the
// second.
func (w *world) txnLoop(g *simGroup) {
	if w.nowMs() >= g.diesMs || w.healed {
		return
	}
	b := w.route(g.id)
	if b >= 0 && !g.txnOpen {
		n := w.topics[g.topic]
		p := int32(w.eng.rng.IntN(int(n)))
		g.txnOpen = true
		w.touch(b)
		w.client(tCommit, g.id, "", fmt.Sprintf("txn producer=%d partition=%d", g.producerID, p))
		w.brokers[b].c.CommitTransactionalOffsets(shard.TxnOffsetCommitRequest{
			GroupID: g.id, ProducerID: g.producerID, MemberEpoch: -1,
			Topics: []shard.OffsetCommitTopic{{Topic: g.topic, Partitions: []shard.OffsetCommitPartition{{Partition: p, Offset: w.nowMs() - startMs, LeaderEpoch: -1}}}},
		}).OnDone(func(_ shard.OffsetCommitResponse, _ error) {
			// Committed or not, the transaction ends: an abort of nothing
			// is harmless, and the coordinator may hold the offset.
			commit := w.nowMs() < g.bornMs+(g.diesMs-g.bornMs)/2 && w.eng.chance(0.5)
			w.eng.after(w.eng.uniform(time.Second, w.opts.Workload.CommitInterval), func() { w.endTxn(g, commit) })
		})
	}
	w.eng.after(w.opts.Workload.CommitInterval, func() { w.txnLoop(g) })
}

// endTxn writes the transaction's marker, retrying until it lands (the
// group cannot expire while the transaction is open).
func (w *world) endTxn(g *simGroup, commit bool) {
	b := w.route(g.id)
	if b < 0 {
		w.eng.after(retryBackoff, func() { w.endTxn(g, commit) })
		return
	}
	w.touch(b)
	w.client(tCommit, g.id, "", fmt.Sprintf("end-txn producer=%d commit=%v", g.producerID, commit))
	w.brokers[b].c.EndTransaction(g.id, g.producerID, commit).OnDone(func(_ struct{}, err error) {
		if err != nil {
			w.eng.after(retryBackoff, func() { w.endTxn(g, commit) })
			return
		}
		g.txnOpen = false
		if commit {
			w.mark("txn-committed")
		} else {
			w.mark("txn-aborted")
		}
	})
}

// readBack is a client reading its group's offsets right after a commit,
// as a consumer does on a rebalance: the checker compares the answer with
// its committed replica (10).
func (w *world) readBack(g *simGroup, b int) {
	p := w.partitionOf(g.id)
	got, err := w.brokers[b].c.FetchOffsets(g.id, nil, false)
	w.check.checkRead(p, g.id, got, err)
	if g.typ == shard.Classic {
		w.describeBack(g, b)
	}
}

// describeBack is an admin describing a group right after one of its
// clients wrote (a join, a commit), as kafka-consumer-groups.sh --describe
// or a Streams application's health check would, with the describe API of
// the group's type: the checker compares the answer with its committed
// replica (10). StreamsGroupDescribe is asked without the topology
// description: that part calls the store, whose latency draws from the
// random stream (the admin loop asks for it).
func (w *world) describeBack(g *simGroup, b int) {
	p := w.partitionOf(g.id)
	c := w.brokers[b].c
	if g.typ == shard.Streams {
		c.DescribeStreamsGroups([]string{g.id}, false).OnDone(func(rows []coordinator.StreamsGroupDescription, err error) {
			if err == nil && len(rows) == 1 {
				w.check.checkDescribe(p, "StreamsGroupDescribe", g.id, rows[0].Group, rows[0].Err)
				w.mark("describe-back-streams")
			}
		})
		return
	}
	api := map[shard.GroupType]string{shard.Consumer: "ConsumerGroupDescribe", shard.Share: "ShareGroupDescribe", shard.Classic: "DescribeGroups"}[g.typ]
	d := c.DescribeGroups([]string{g.id})[0]
	w.check.checkDescribe(p, api, g.id, d.Description, d.Err)
	w.mark("describe-back-" + strings.ToLower(g.typ.String()))
}

func (w *world) partitionOf(groupID string) int32 {
	return kafkaPartitionFor(groupID, w.opts.Partitions)
}

// onAdminDeleteResult marks what the admin's DeleteGroups met.
func (w *world) onAdminDeleteResult(err error) {
	switch kerr.As(err) {
	case kerr.NonEmptyGroup:
		w.mark("delete-non-empty-refused")
	case kerr.GroupDeletionFailed:
		w.mark("group-deletion-failed")
	case nil:
		w.mark("admin-deleted")
	}
}

// maybeRedeploy brings a quarter of the streams apps back once, with the
// next topology epoch, after their offsets expired: around the time a
// cleanup cycle finds the group eligible, so a push of the new epoch can
// land between the cycle's scan and its clear (the v1 race of
// docs/kip1331.md §1.8) or while its delete is in flight.
//
// It runs under every protocol but v2 with shard moves: there it only
// rediscovers the known move race (hole 2 of docs/kip1331-v3.md). Under v1
// and v2 a redeployed app must also live out its life before the workload
// ends: cut short by the end (every member leaves at once), an app that
// joined and pushed moments earlier, with no offsets yet, is eligible while
// its push is still in flight, and the push lands after the cycle deleted
// the row and the sweep tombstoned the group, leaking a row (hole 4 of
// docs/kip1331-v3.md, which v2 keeps as Kafka does). v3 closes hole 4, so
// there apps are cut short too, shard moves and all, and the ci sweep
// reaches it (mark streams-app-redeployed). Under v2 with
// Options.V2KnownHoles (the swarm's v2 draws) both limits are lifted: the
// checker excuses holes 2 and 4 only when their events explain a loss or a
// leak, so the workload may reach them, and with them the race v2's
// finalize closes.
func (w *world) maybeRedeploy(g *simGroup) {
	moves := w.opts.Faults.movesShards()
	excused := w.opts.v2HolesExcused()
	if g.typ != shard.Streams || w.healed || g.redeployed || (w.opts.Protocol.HasMoveRace() && moves && !excused) || !w.eng.chance(0.25) {
		return
	}
	g.redeployed = true
	wl := w.opts.Workload
	at := w.nowMs() + w.opts.Retention.Milliseconds() + w.eng.uniform(0, 3*w.opts.CheckInterval).Milliseconds()
	if !w.opts.Protocol.GuardsDeletesAgainstPushes() && !excused && at+wl.LifetimeMax.Milliseconds() >= startMs+w.opts.Duration.Milliseconds() {
		return // v1, v2: hole 4 (see above)
	}
	w.eng.at(at, func() {
		if w.healed {
			return
		}
		g.topologyEpoch++
		g.diesMs = w.nowMs() + w.eng.uniform(wl.LifetimeMin, wl.LifetimeMax).Milliseconds()
		w.client(tUpgrade, g.id, "", fmt.Sprintf("redeployed topology-epoch=%d", g.topologyEpoch))
		w.mark("streams-app-redeployed")
		n := wl.MembersMin + w.eng.rng.IntN(wl.MembersMax-wl.MembersMin+1)
		for range n {
			w.addMember(g)
		}
		w.eng.at(g.diesMs, func() { w.death(g) })
	})
}
