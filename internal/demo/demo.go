// Package demo is the built-in workload `coordsim run` drives until the
// simulator lands: one broker hosting every shard, on virtual time, with
// consumer, streams, share and simple groups that are born, commit offsets,
// go idle and expire over simulated days. It is deterministic: the same seed
// and options print the same report.
package demo

import (
	"fmt"
	"io"
	"math/rand/v2"
	"time"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/shard"
)

// Options size the demo.
type Options struct {
	Seed     uint64
	Groups   int           // groups created over the run
	Duration time.Duration // virtual time simulated
}

// Validate checks the options.
func (o Options) Validate() error {
	switch {
	case o.Groups < 1 || o.Groups > 1_000_000:
		return fmt.Errorf("groups must be in [1, 1000000], got %d", o.Groups)
	case o.Duration < time.Hour || o.Duration > 365*24*time.Hour:
		return fmt.Errorf("duration must be in [1h, 365d], got %s", o.Duration)
	}
	return nil
}

// Report is what a run observed.
type Report struct {
	Events        int
	Virtual       time.Duration
	Commits       int
	Expired       float64
	GroupsCreated int
	Final         map[string]int // "type/state" → count at the end
	Daily         []DailyCounts
}

// DailyCounts is the group and offset population at the end of a day.
type DailyCounts struct {
	Day     int
	Groups  int
	Offsets int
}

// Run runs the demo.
func Run(o Options) (*Report, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(o.Seed, 0xc0ffee))
	topics := map[string]int32{"orders": 6, "payments": 3, "clicks": 12}
	h, err := coordtest.New(coordtest.WithTopics(topics))
	if err != nil {
		return nil, err
	}
	start := h.Now()
	rep := &Report{Final: map[string]int{}}
	// Groups are born uniformly over the first 70 % of the run, live for
	// 1 h–2 days with one member committing every 30 s of activity sampled
	// hourly, then leave; retention (7 days) and the sweep take them away.
	birthWindow := o.Duration * 7 / 10
	type life struct {
		id   string
		kind int
		born time.Duration
		dies time.Duration
	}
	lives := make([]life, o.Groups)
	for i := range lives {
		born := time.Duration(rng.Int64N(int64(birthWindow)))
		lives[i] = life{id: fmt.Sprintf("group-%06d", i), kind: rng.IntN(4), born: born,
			dies: born + time.Hour + time.Duration(rng.Int64N(int64(48*time.Hour)))}
	}
	names := []string{"orders", "payments", "clicks"}
	day := 0
	for at := time.Duration(0); at < o.Duration; at += time.Hour {
		rep.Events += h.AdvanceTo(start.Add(at))
		for i := range lives {
			l := &lives[i]
			if at < l.born || at >= l.dies+time.Hour {
				continue
			}
			topic := names[i%len(names)]
			alive := at < l.dies
			switch l.kind {
			case 0: // simple consumer: memberless commits
				if alive {
					rep.Commits += commit(h, l.id, "", -1, topic, rng)
				}
			case 1, 2: // consumer or share group member
				if !alive {
					leave(h, l.kind, l.id)
					continue
				}
				epoch, ok := heartbeat(h, l.kind, l.id, topic)
				if ok && l.kind == 1 {
					rep.Commits += commit(h, l.id, "m", epoch, topic, rng)
				}
			case 3: // streams member
				if !alive {
					_, _ = h.HeartbeatStreams(l.id, "m", -1)
					continue
				}
				r, err := h.HeartbeatStreams(l.id, "m", currentEpoch(h, l.id))
				if err != nil {
					r, err = h.JoinStreams(l.id, "m", shard.Topology{Epoch: 1,
						Subtopologies: []shard.Subtopology{{ID: "0", SourceTopics: []string{topic}}}})
				}
				if err == nil {
					rep.Commits += commit(h, l.id, "m", r.MemberEpoch, topic, rng)
				}
			}
			if at == l.born {
				rep.GroupsCreated++
			}
		}
		if (at+time.Hour)%(24*time.Hour) == 0 {
			day++
			rep.Daily = append(rep.Daily, population(h, day))
		}
	}
	rep.Events += h.AdvanceTo(start.Add(o.Duration))
	rep.Virtual = h.Now().Sub(start)
	rep.Expired, _ = h.Metric("offset-expiration-count")
	gs, _ := h.Coordinator.ListGroups()
	for _, g := range gs {
		rep.Final[g.Type.String()+"/"+g.State.String()]++
	}
	return rep, nil
}

func population(h *coordtest.Harness, day int) DailyCounts {
	gs, _ := h.Coordinator.ListGroups()
	offsets, _ := h.Metric("offset-count")
	return DailyCounts{Day: day, Groups: len(gs), Offsets: int(offsets)}
}

func currentEpoch(h *coordtest.Harness, id string) int32 {
	g, err := h.Group(id)
	if err != nil {
		return 0
	}
	for _, m := range g.Members {
		if m.MemberID == "m" {
			return m.MemberEpoch
		}
	}
	return 0
}

func heartbeat(h *coordtest.Harness, kind int, id, topic string) (int32, bool) {
	epoch := currentEpoch(h, id)
	if kind == 2 {
		r, err := h.JoinShare(id, "m", topic)
		return r.MemberEpoch, err == nil
	}
	if epoch > 0 {
		if r, err := h.HeartbeatConsumer(id, "m", epoch); err == nil {
			return r.MemberEpoch, true
		}
	}
	r, err := h.JoinConsumer(id, "m", topic)
	return r.MemberEpoch, err == nil
}

func leave(h *coordtest.Harness, kind int, id string) {
	if kind == 2 {
		_, _ = coordtest.Await(h, h.Coordinator.ShareGroupHeartbeat(shard.ShareGroupHeartbeatRequest{GroupID: id, MemberID: "m", MemberEpoch: -1}))
		return
	}
	_, _ = h.HeartbeatConsumer(id, "m", -1)
}

func commit(h *coordtest.Harness, id, member string, epoch int32, topic string, rng *rand.Rand) int {
	req := shard.OffsetCommitRequest{GroupID: id, MemberID: member, MemberEpoch: epoch, RetentionTimeMs: -1,
		Topics: []shard.OffsetCommitTopic{{Topic: topic, Partitions: []shard.OffsetCommitPartition{
			{Partition: int32(rng.IntN(3)), Offset: rng.Int64N(1_000_000), LeaderEpoch: -1}}}}}
	if _, err := coordtest.Await(h, h.Coordinator.CommitOffsets(req)); err != nil {
		return 0
	}
	return 1
}

// Print writes the report for a person.
func (r *Report) Print(w io.Writer, o Options, wall time.Duration) {
	fmt.Fprintf(w, "coordsim demo (seed %d): %d groups over %s of virtual time\n", o.Seed, o.Groups, r.Virtual)
	fmt.Fprintf(w, "  events %d, offset commits %d, offsets expired %.0f\n", r.Events, r.Commits, r.Expired)
	ratio := float64(r.Virtual) / float64(max(wall, time.Microsecond))
	fmt.Fprintf(w, "  wall time %s, virtual/wall %.0fx\n", wall.Round(time.Millisecond), ratio)
	fmt.Fprintln(w, "  day  groups  offsets")
	for _, d := range r.Daily {
		fmt.Fprintf(w, "  %3d  %6d  %7d\n", d.Day, d.Groups, d.Offsets)
	}
	fmt.Fprintln(w, "  groups at the end (type/state):")
	for _, t := range shard.GroupTypes {
		for _, s := range shard.GroupStates {
			if n := r.Final[t.String()+"/"+s.String()]; n > 0 {
				fmt.Fprintf(w, "    %-22s %d\n", t.String()+"/"+s.String(), n)
			}
		}
	}
	_ = coordinator.MetricsGroup
}
