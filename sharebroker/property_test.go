package sharebroker

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/share"
)

// A random workload of produce / fetch / acknowledge / close / connection
// drop / lock expiry / leader move / log start movement / admin reset /
// persister and DLQ faults over two groups sharing two topics, checked
// after every operation: the broker's invariants (CheckInvariants, which
// runs share's on every cached share-partition), every ACQUIRED record is
// owned by a member with a session, and the DLQ topic holds exactly the
// records the share-partitions report written. At the end, with faults off,
// every session is dropped, every lock expired, and drainers fetch and
// accept until nothing is left: then every produced record must be
// ACKNOWLEDGED or ARCHIVED, that is SPSO == log end for every
// (group, partition), with no timer left.

const (
	propSeeds = 200
	propOps   = 400
)

// propClient is one consumer: the epoch its next request carries (0: it
// believes it has no session) and the offsets it believes it holds.
type propClient struct {
	group, member string
	epoch         int32
	held          map[TopicPartition][]int64 // sorted offsets; lookups by tp only
	// sessParts are the partitions its latest session fetched: closing
	// that session releases its records there (releaseSession), and only
	// there.
	sessParts map[TopicPartition]bool
}

type propWorld struct {
	t        *testing.T
	seed     uint64
	r        *rand.Rand
	b        *Broker
	cfg      Config
	now      int64
	data     []TopicPartition
	all      []TopicPartition
	groups   []string
	clients  []*propClient
	failing  bool // persister faults on
	dlqFails bool // DLQ faults on
	trace    []string
}

func TestPropertyRandomOps(t *testing.T) {
	for seed := range uint64(propertySeeds(propSeeds)) {
		runPropWorld(t, seed)
		if t.Failed() {
			return
		}
	}
}

func newPropWorld(t *testing.T, seed uint64) *propWorld {
	r := rand.New(rand.NewPCG(seed, seed^0x5bd1e995))
	cfg := Config{
		MaxShareSessions: 2 + r.IntN(6),
		Defaults: share.Config{
			MaxDeliveryCount:     int32(2 + r.IntN(4)),
			RecordLockDurationMs: int64(50 + r.IntN(100)),
			MaxInFlightRecords:   int64(5 + r.IntN(40)),
			BatchSize:            int32(1 + r.IntN(20)),
			RenewDisabled:        r.IntN(4) == 0,
			AutoOffsetReset:      share.ResetEarliest,
		},
		DLQWriteDelayMs: int64(r.IntN(3) * 25),
		WideBounds:      true,
	}
	b, err := New(cfg)
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	w := &propWorld{t: t, seed: seed, r: r, b: b, cfg: cfg, groups: []string{"g0", "g1"}}
	for _, tc := range []struct {
		name string
		n    int32
	}{{"t0", int32(1 + r.IntN(3))}, {"t1", int32(1 + r.IntN(2))}, {"dlq", int32(1 + r.IntN(3))}} {
		w.must(b.CreateTopic(tc.name, tc.n))
		for p := range tc.n {
			tp := TopicPartition{tc.name, p}
			w.all = append(w.all, tp)
			if tc.name != "dlq" {
				w.data = append(w.data, tp)
			}
		}
	}
	for _, g := range w.groups {
		gc := GroupConfig{}
		if r.IntN(2) == 0 {
			gc.DLQTopic = "dlq"
		}
		if r.IntN(3) == 0 {
			gc.MaxDeliveryCount = int32(2 + r.IntN(3))
		}
		w.must(b.SetGroupConfig(g, gc))
		for m := range 3 {
			w.clients = append(w.clients, &propClient{group: g, member: fmt.Sprintf("m%d", m), held: map[TopicPartition][]int64{}})
		}
	}
	b.SetPersistFault(func(share.Key) error {
		switch {
		case !w.failing:
			return nil
		case w.r.IntN(40) == 0:
			return kerr.FencedStateEpoch.WithMessage("injected fence")
		case w.r.IntN(3) == 0:
			return kerr.KafkaStorageError.WithMessage("injected")
		}
		return nil
	})
	b.SetDLQFault(func(share.Key, share.DLQWrite) bool { return w.dlqFails && w.r.IntN(2) == 0 })
	return w
}

func (w *propWorld) must(err error) {
	w.t.Helper()
	if err != nil {
		w.failf("unexpected error: %v", err)
	}
}

func (w *propWorld) failf(format string, args ...any) {
	w.t.Helper()
	n := len(w.trace)
	w.t.Fatalf("seed %d cfg %+v\nlast ops:\n%v\n%s", w.seed, w.cfg, w.trace[max(0, n-20):], fmt.Sprintf(format, args...))
}

func (w *propWorld) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("t=%d ", w.now)+fmt.Sprintf(format, args...))
}

func runPropWorld(t *testing.T, seed uint64) {
	w := newPropWorld(t, seed)
	for range propOps {
		w.now += int64(w.r.IntN(5))
		w.step()
		w.check()
	}
	w.drain()
}

func (w *propWorld) step() {
	r, b := w.r, w.b
	switch op := r.IntN(100); {
	case op < 15:
		tp := w.data[r.IntN(len(w.data))]
		n := int32(1 + r.IntN(8))
		w.logf("produce %v %d", tp, n)
		_, err := b.Produce(w.now, tp, n)
		w.must(err)
	case op < 45:
		w.fetch(w.clients[r.IntN(len(w.clients))])
	case op < 60:
		w.acknowledge(w.clients[r.IntN(len(w.clients))])
	case op < 64:
		c := w.clients[r.IntN(len(w.clients))]
		w.logf("drop %s/%s", c.group, c.member)
		err := b.DropConnection(w.now, c.group, c.member)
		if err != nil && !errors.Is(err, kerr.ShareSessionNotFound) {
			w.failf("drop: %v", err)
		}
		c.epoch, c.held = 0, map[TopicPartition][]int64{}
	case op < 75:
		w.now += int64(r.IntN(120))
		n, err := b.Poll(w.now)
		w.logf("poll → %d", n)
		w.must(err)
	case op < 78:
		tp := w.all[r.IntN(len(w.all))]
		w.logf("move leader %v", tp)
		w.must(b.MoveLeader(w.now, tp))
	case op < 81:
		tp := w.data[r.IntN(len(w.data))]
		start, _ := b.LogStartOffset(tp)
		end, _ := b.EndOffset(tp)
		off := start + r.Int64N(end-start+1)
		w.logf("delete records %v before %d", tp, off)
		w.must(b.DeleteRecords(w.now, tp, off))
	case op < 86:
		w.failing = !w.failing
		w.logf("persist faults %v", w.failing)
	case op < 89:
		w.dlqFails = !w.dlqFails
		w.logf("DLQ faults %v", w.dlqFails)
	case op < 91:
		g := w.groups[r.IntN(len(w.groups))]
		tp := w.data[r.IntN(len(w.data))]
		start, _ := b.LogStartOffset(tp)
		end, _ := b.EndOffset(tp)
		off := start + r.Int64N(end-start+1)
		w.logf("alter %s %v → %d", g, tp, off)
		w.must(b.AlterShareGroupOffsets(g, []PartitionOffset{{TopicPartition: tp, StartOffset: off}}))
	case op < 92:
		g := w.groups[r.IntN(len(w.groups))]
		w.logf("delete state %s", g)
		w.must(b.DeleteShareGroupState(g))
	case op < 95:
		c := w.clients[r.IntN(len(w.clients))]
		w.logf("restart session %s/%s", c.group, c.member)
		c.epoch = 0 // the next fetch replaces the session, keeping its records
	case op < 97:
		// A live group-config change: live share-partitions follow it.
		g := w.groups[r.IntN(len(w.groups))]
		gc := b.GroupConfig(g)
		gc.MaxDeliveryCount = int32(2 + r.IntN(4))
		gc.RecordLockDurationMs = int64(100 + r.IntN(100)) // the drain needs locks over DLQWriteDelayMs+1
		w.logf("group config %s limit %d lock %d", g, gc.MaxDeliveryCount, gc.RecordLockDurationMs)
		w.must(b.SetGroupConfig(g, gc))
	default:
		w.close(w.clients[r.IntN(len(w.clients))])
	}
}

// epochFor is the epoch c sends: its own, now and then a wrong one.
func (w *propWorld) epochFor(c *propClient) int32 {
	if w.r.IntN(25) == 0 {
		return c.epoch + 1 + int32(w.r.IntN(3))
	}
	return c.epoch
}

// sessionError handles a request-level error the workload may provoke: the
// client restarts its session.
func (w *propWorld) sessionError(c *propClient, what string, err error) {
	switch {
	case errors.Is(err, kerr.ShareSessionNotFound), errors.Is(err, kerr.InvalidShareSessionEpoch):
		c.epoch = 0
	case errors.Is(err, kerr.ShareSessionLimitReached):
	default:
		w.failf("%s %s/%s: %v", what, c.group, c.member, err)
	}
}

// pickAcks builds c's acknowledgements from what it holds: runs of
// ascending offsets, each offset skipped now and then, types varying.
func (w *propWorld) pickAcks(c *propClient) []PartitionAcks {
	var out []PartitionAcks
	tps := make([]TopicPartition, 0, len(c.held))
	for tp := range c.held {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool {
		return tps[i].Topic < tps[j].Topic || tps[i].Topic == tps[j].Topic && tps[i].Partition < tps[j].Partition
	})
	types := []share.AcknowledgeType{share.AckAccept, share.AckAccept, share.AckAccept, share.AckRelease, share.AckReject, share.AckRenew, share.AckGap}
	for _, tp := range tps {
		if w.r.IntN(3) == 0 {
			continue
		}
		pa := PartitionAcks{TopicPartition: tp}
		typ := types[w.r.IntN(len(types))]
		for _, off := range c.held[tp] {
			if w.r.IntN(6) == 0 {
				continue
			}
			if w.r.IntN(4) == 0 {
				typ = types[w.r.IntN(len(types))]
			}
			if k := len(pa.Batches) - 1; k >= 0 && pa.Batches[k].LastOffset+1 == off && pa.Batches[k].Type == typ {
				pa.Batches[k].LastOffset = off
				continue
			}
			pa.Batches = append(pa.Batches, share.AckBatch{FirstOffset: off, LastOffset: off, Type: typ})
		}
		if len(pa.Batches) > 0 {
			out = append(out, pa)
		}
	}
	return out
}

// forget drops what c acknowledged from what it believes it holds (RENEWed
// records stay held when the renewal succeeded).
func forget(c *propClient, acks []PartitionAcks, results []AckResult) {
	for i, pa := range acks {
		keep := c.held[pa.TopicPartition][:0]
		for _, off := range c.held[pa.TopicPartition] {
			drop := false
			for _, bt := range pa.Batches {
				if off >= bt.FirstOffset && off <= bt.LastOffset {
					drop = bt.Type != share.AckRenew || results[i].Err != nil
				}
			}
			if !drop {
				keep = append(keep, off)
			}
		}
		c.held[pa.TopicPartition] = keep
	}
}

func (w *propWorld) fetch(c *propClient) {
	epoch := w.epochFor(c)
	var acks []PartitionAcks
	if epoch != 0 {
		acks = w.pickAcks(c)
	}
	var parts []TopicPartition
	for _, tp := range w.data {
		if w.r.IntN(3) != 0 {
			parts = append(parts, tp)
		}
	}
	maxRecords := int32(0)
	if w.r.IntN(2) == 0 {
		maxRecords = int32(1 + w.r.IntN(20))
	}
	w.logf("fetch %s/%s epoch %d parts %v max %d acks %v", c.group, c.member, epoch, parts, maxRecords, acks)
	resp, err := w.b.ShareFetch(w.now, FetchRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: epoch, Partitions: parts, MaxRecords: maxRecords, Acks: acks})
	if err != nil {
		w.sessionError(c, "fetch", err)
		return
	}
	c.epoch = NextSessionEpoch(epoch)
	if epoch == 0 || c.sessParts == nil {
		c.sessParts = map[TopicPartition]bool{} // a new session, a new list
	}
	for _, tp := range parts {
		c.sessParts[tp] = true
	}
	forget(c, acks, resp.Acks)
	for _, p := range resp.Partitions {
		for _, a := range p.Records {
			for off := a.FirstOffset; off <= a.LastOffset; off++ {
				if !slices.Contains(c.held[p.TopicPartition], off) {
					c.held[p.TopicPartition] = append(c.held[p.TopicPartition], off)
				}
			}
		}
		slices.Sort(c.held[p.TopicPartition])
	}
}

func (w *propWorld) acknowledge(c *propClient) {
	epoch := w.epochFor(c)
	if epoch == 0 {
		return // ShareAcknowledge needs a session; tested elsewhere
	}
	acks := w.pickAcks(c)
	w.logf("ack %s/%s epoch %d %v", c.group, c.member, epoch, acks)
	res, err := w.b.ShareAcknowledge(w.now, AckRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: epoch, Acks: acks})
	if err != nil {
		w.sessionError(c, "ack", err)
		return
	}
	c.epoch = NextSessionEpoch(epoch)
	forget(c, acks, res)
}

func (w *propWorld) close(c *propClient) {
	acks := w.pickAcks(c)
	w.logf("close %s/%s %v", c.group, c.member, acks)
	var err error
	if w.r.IntN(2) == 0 {
		_, err = w.b.ShareAcknowledge(w.now, AckRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: FinalEpoch, Acks: acks})
	} else {
		_, err = w.b.ShareFetch(w.now, FetchRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: FinalEpoch, Acks: acks})
	}
	if err != nil && !errors.Is(err, kerr.ShareSessionNotFound) {
		w.failf("close: %v", err)
	}
	c.epoch, c.held = 0, map[TopicPartition][]int64{}
}

// client returns the client of (group, member); nil for the drainers.
func (w *propWorld) client(group, member string) *propClient {
	for _, c := range w.clients {
		if c.group == group && c.member == member {
			return c
		}
	}
	return nil
}

// check runs the invariants after every operation.
func (w *propWorld) check() {
	w.t.Helper()
	b := w.b
	if err := b.CheckInvariants(); err != nil {
		w.failf("%v", err)
	}
	for _, k := range b.Keys() {
		p, _ := b.Partition(k)
		end, _ := b.EndOffset(TopicPartition{k.Topic, k.Partition})
		for off := int64(0); off < end; off++ {
			if r, ok := p.Record(off); ok && r.State == share.Acquired {
				if _, has := b.sessions[sessionKey{k.Group, r.MemberID}]; !has && w.client(k.Group, r.MemberID) != nil && w.client(k.Group, r.MemberID).sessParts[TopicPartition{k.Topic, k.Partition}] {
					w.failf("%+v offset %d ACQUIRED by %q, whose closed session fetched the partition", k, off, r.MemberID)
				}
			}
		}
	}
	if st := b.Stats(); st.DLQWritten != b.DLQRecords("dlq") {
		w.failf("DLQ topic holds %d records, share-partitions wrote %d", b.DLQRecords("dlq"), st.DLQWritten)
	}
}

// drain turns faults off, drops every session, expires every lock, then
// fetches and accepts with one drainer per group until nothing is left.
func (w *propWorld) drain() {
	b := w.b
	w.failing, w.dlqFails = false, false
	var keys []sessionKey
	for k := range b.sessions {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].group < keys[j].group || keys[i].group == keys[j].group && keys[i].member < keys[j].member
	})
	for _, k := range keys {
		w.logf("drain: drop %s/%s", k.group, k.member)
		w.must(b.DropConnection(w.now, k.group, k.member))
	}
	w.now += 10 * share.MaxRecordLockDurationMs
	_, err := b.Poll(w.now)
	w.must(err)
	w.check()

	drainers := make([]*propClient, len(w.groups))
	for i, g := range w.groups {
		drainers[i] = &propClient{group: g, member: "drainer", held: map[TopicPartition][]int64{}}
	}
	const maxRounds = 10_000
	for round := 0; ; round++ {
		if round == maxRounds {
			w.failf("drain did not finish in %d rounds", maxRounds)
		}
		fetched := false
		for _, c := range drainers {
			var acks []PartitionAcks
			for _, tp := range w.data {
				offs := c.held[tp]
				if len(offs) == 0 {
					continue
				}
				pa := PartitionAcks{TopicPartition: tp}
				for _, off := range offs {
					if k := len(pa.Batches) - 1; k >= 0 && pa.Batches[k].LastOffset+1 == off {
						pa.Batches[k].LastOffset = off
						continue
					}
					pa.Batches = append(pa.Batches, share.AckBatch{FirstOffset: off, LastOffset: off, Type: share.AckAccept})
				}
				acks = append(acks, pa)
			}
			if c.epoch == 0 {
				acks = nil
			}
			resp, err := b.ShareFetch(w.now, FetchRequest{GroupID: c.group, MemberID: c.member, SessionEpoch: c.epoch, Partitions: w.data, MaxRecords: 1000, Acks: acks})
			w.must(err)
			c.epoch = NextSessionEpoch(c.epoch)
			for _, a := range resp.Acks {
				if a.Err != nil {
					w.failf("drain ack %v: %v", a.TopicPartition, a.Err)
				}
			}
			c.held = map[TopicPartition][]int64{}
			for _, p := range resp.Partitions {
				if p.Err != nil {
					w.failf("drain fetch %v: %v", p.TopicPartition, p.Err)
				}
				for _, a := range p.Records {
					for off := a.FirstOffset; off <= a.LastOffset; off++ {
						c.held[p.TopicPartition] = append(c.held[p.TopicPartition], off)
					}
				}
				fetched = true
			}
			w.check()
		}
		w.now += w.cfg.DLQWriteDelayMs + 1
		_, err := b.Poll(w.now)
		w.must(err)
		w.check()
		if !fetched && !w.anyHeld(drainers) {
			if _, pending := b.NextDeadline(); !pending {
				break
			}
		}
	}
	for _, g := range w.groups {
		for _, tp := range w.data {
			k := share.Key{Group: g, Topic: tp.Topic, Partition: tp.Partition}
			p, ok := b.Partition(k)
			if !ok {
				w.failf("drained %+v not cached", k)
			}
			end, _ := b.EndOffset(tp)
			if p.StartOffset() != end {
				w.failf("%+v: SPSO %d, log end %d: a record is neither ACKNOWLEDGED nor ARCHIVED", k, p.StartOffset(), end)
			}
		}
	}
}

func (w *propWorld) anyHeld(cs []*propClient) bool {
	for _, c := range cs {
		for _, offs := range c.held {
			if len(offs) > 0 {
				return true
			}
		}
	}
	return false
}
