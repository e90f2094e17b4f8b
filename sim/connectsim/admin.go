package connectsim

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
	"github.com/coordsim/coordsim/share"
	"github.com/coordsim/coordsim/sharebroker"
)

// Share-group offset resets (docs/share-groups.md §2.7) as a Connect operator
// does them: stop the connector, alter the share group's offsets once it is
// EMPTY, start it again. With To "group:<id>" it is KIP-1302's migration
// path (§4.2): a share sink takes over from a consumer-group sink at that
// group's committed offsets instead of re-reading the topic.

// OffsetReset resets a share sink's group offsets at At. To is "earliest"
// (the log start), "latest" (the log end) or "group:<id>" (the committed
// offsets of consumer group <id>; the log start where it has none).
type OffsetReset struct {
	At time.Duration
	To string
}

// validateReset checks one reset of connector i.
func validateReset(i, j int, r OffsetReset, d time.Duration) error {
	bad := invalidStep(i, "reset_offsets", j)
	switch {
	case r.At < 0 || r.At >= d:
		return bad("at must be in [0, duration)")
	case r.To == "earliest" || r.To == "latest":
	case strings.HasPrefix(r.To, "group:") && len(r.To) > len("group:"):
		if err := shard.ValidateGroupID(strings.TrimPrefix(r.To, "group:")); err != nil {
			return bad("%v", err)
		}
	default:
		return bad("to must be earliest, latest or group:<id>, got %q", r.To)
	}
	return nil
}

// resetOffsets starts a reset: the sink's tasks stop, then the alter is
// tried until the group coordinator accepts it.
func (cw *Sim) resetOffsets(s *sink, r OffsetReset) {
	w := cw.eng
	if s.cfg.Kind != connect.ShareSink || s.refused != nil {
		return
	}
	s.resetting = true
	w.Trace(TraceTask, s.cfg.GroupID, s.cfg.Name, "reset-offsets to "+r.To, 0)
	for _, t := range s.tasks {
		if t != nil && t.alive && !t.stopping {
			cw.stopTask(t)
		}
	}
	cw.alterOffsets(s, r)
}

// alterOffsets sends AlterShareGroupOffsets; NON_EMPTY_GROUP (a member's
// leave not yet committed, or a killed member awaiting its session
// timeout) and an unavailable coordinator are retried.
func (cw *Sim) alterOffsets(s *sink, r OffsetReset) {
	w := cw.eng
	retry := func(why string) {
		w.Mark("share-reset-retried-" + why)
		w.After(retryBackoff, func() { cw.alterOffsets(s, r) })
	}
	coord, b := w.Coordinator(s.cfg.GroupID)
	if b < 0 {
		retry("moving")
		return
	}
	w.Touch(b)
	coord.AlterShareGroupOffsets(s.cfg.GroupID, cw.topicPartitions(s)).OnDone(func(epoch int32, err error) {
		if err != nil {
			w.Trace(TraceResponse, s.cfg.GroupID, s.cfg.Name, "alter-share-offsets "+kerr.Name(err), 0)
			if kerr.As(err) == kerr.GroupIDNotFound { // another group type: refused for good
				s.resetting = false
				w.Mark("share-reset-refused")
				cw.scale(s, s.desired)
				return
			}
			retry(kerr.Name(err))
			return
		}
		offs, ok := cw.resetTargets(s, r)
		if !ok {
			retry("source-offsets")
			return
		}
		if err := cw.sb.AlterShareGroupOffsets(s.cfg.GroupID, offs); err != nil {
			w.Violate(InvSharePartitions, fmt.Sprintf("sink %s: the broker refused the reset after the coordinator accepted it: %v", s.cfg.Name, err))
			return
		}
		w.Mark("share-offsets-reset")
		w.Trace(TraceTask, s.cfg.GroupID, s.cfg.Name, fmt.Sprintf("offsets reset to %s at group epoch %d", r.To, epoch), 0)
		for _, o := range offs {
			key := share.Key{Group: s.cfg.GroupID, Topic: o.Topic, Partition: o.Partition}
			// The old state, and every lock in it, is gone.
			if h := cw.holds[key]; h != nil {
				clear(h.holder)
				clear(h.until)
			}
			cw.touched[key] = true
			if o.StartOffset > s.resetFloor[o.TopicPartition] {
				s.resetFloor[o.TopicPartition] = o.StartOffset
			}
		}
		cw.dirty = true
		s.resetting = false
		if s.started {
			cw.scale(s, s.desired)
		}
	})
}

// topicPartitions lists the sink's partitions for the coordinator.
func (cw *Sim) topicPartitions(s *sink) []shard.TopicPartitions {
	var out []shard.TopicPartitions
	for _, topic := range slices.Sorted(slices.Values(s.cfg.Topics)) {
		tps := shard.TopicPartitions{Topic: topic}
		for p := range cw.wl.Topics[topic] {
			tps.Partitions = append(tps.Partitions, p)
		}
		out = append(out, tps)
	}
	return out
}

// resetTargets computes the new start offset of each partition; false when
// the source group's offsets cannot be read right now.
func (cw *Sim) resetTargets(s *sink, r OffsetReset) ([]sharebroker.PartitionOffset, bool) {
	w := cw.eng
	committed := map[tp]int64{}
	if src, ok := strings.CutPrefix(r.To, "group:"); ok {
		coord, b := w.Coordinator(src)
		if b < 0 {
			return nil, false
		}
		offs, err := coord.FetchOffsets(src, cw.topicPartitions(s), false)
		if err != nil && kerr.As(err) != kerr.GroupIDNotFound {
			return nil, false
		}
		for _, o := range offs {
			if o.Offset >= 0 {
				committed[tp{Topic: o.Topic, Partition: o.Partition}] = o.Offset
			}
		}
	}
	var out []sharebroker.PartitionOffset
	for _, t := range cw.topicPartitions(s) {
		for _, p := range t.Partitions {
			part := tp{Topic: t.Topic, Partition: p}
			start, _ := cw.sb.LogStartOffset(part)
			end, _ := cw.sb.EndOffset(part)
			off := start
			switch {
			case r.To == "latest":
				off = end
			case committed[part] > 0:
				off = min(max(committed[part], start), end)
			}
			out = append(out, sharebroker.PartitionOffset{TopicPartition: part, StartOffset: off})
		}
	}
	return out, true
}

// scheduleResets arms a sink's resets.
func (cw *Sim) scheduleResets(s *sink) {
	for _, r := range s.spec.ResetOffsets {
		rr := r
		cw.eng.At(cw.startMs+r.At.Milliseconds(), func() { cw.resetOffsets(s, rr) })
	}
}
