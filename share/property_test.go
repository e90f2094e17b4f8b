package share

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// A random workload of produce / acquire / acknowledge / expire / release /
// log-start / DLQ-completion / leader-move operations, with persister write
// faults, checked against docs/invariants.md invariant 8 by an independent model: a
// record is held by at most one member at a time, its delivery count never
// exceeds the limit, an acknowledgement touching a record the member does not
// hold is refused and changes nothing, SPSO never moves back within a
// leadership and the persisted start offset never moves back, an accepted
// record never loses its ack, and after draining every produced record is
// acknowledged or archived (through the DLQ when one is configured), none
// lost.

// chooser supplies choices: a seeded PCG in the property test, bytes in the
// fuzz target.
type chooser interface{ intn(n int) int }

type randChooser struct{ r *rand.Rand }

func (c randChooser) intn(n int) int { return c.r.IntN(n) }

type byteChooser struct {
	data []byte
	pos  int
}

func (c *byteChooser) intn(n int) int {
	if c.pos >= len(c.data) {
		return 0
	}
	v := int(c.data[c.pos])
	c.pos++
	return v % n
}

// Fates the model tracks per offset.
const (
	fateNone      int8 = iota // in the log, not terminal
	fateAccepted              // ACKNOWLEDGED
	fateArchived              // ARCHIVED directly (reject/limit with no DLQ, gap ack)
	fateArchiving             // waiting for its DLQ write
	fateDLQ                   // ARCHIVED after a DLQ write
	fateRetention             // ARCHIVED or skipped because the log start passed it
	fateGap                   // ARCHIVED by a GAP acknowledgement (absent from the log, no DLQ)
)

var members = []string{"m0", "m1", "m2"}

type world struct {
	t       testing.TB
	c       chooser
	cfg     Config
	p       *Persister
	sp      *SharePartition
	epoch   int32
	now     int64
	lso     int64
	hwm     int64
	batches []LogBatch
	holder  []string // offset → member holding it, per the model
	fate    []int8
	pending []DLQWrite
	floor   int64 // SPSO high-water mark within this leadership
	pFloor  int64 // persisted start offset high-water mark
	failing bool  // persister write faults on
	trace   []string
}

func newWorld(t testing.TB, c chooser) *world {
	cfg := Config{
		MaxDeliveryCount:     int32(2 + c.intn(4)),
		RecordLockDurationMs: 100,
		MaxInFlightRecords:   int64(5 + c.intn(30)),
		BatchSize:            int32(1 + c.intn(20)),
		RenewDisabled:        c.intn(4) == 0,
		DLQEnabled:           c.intn(2) == 0,
		AutoOffsetReset:      ResetEarliest,
	}
	w := &world{t: t, c: c, cfg: cfg, p: NewPersister(), floor: -1, pFloor: -1}
	w.p.SetWriteFault(func(PersistedState) error {
		if w.failing && w.c.intn(3) == 0 {
			return kerr.KafkaStorageError.WithMessage("injected")
		}
		return nil
	})
	sp, err := New(testKey, cfg, 0, w.p)
	require.NoError(t, err)
	w.sp = sp
	return w
}

func (w *world) failf(format string, args ...any) {
	w.t.Helper()
	n := len(w.trace)
	w.t.Fatalf("cfg %+v\nlast ops:\n%v\n%s", w.cfg, w.trace[max(0, n-15):], fmt.Sprintf(format, args...))
}

func (w *world) logf(format string, args ...any) {
	w.trace = append(w.trace, fmt.Sprintf("t=%d ", w.now)+fmt.Sprintf(format, args...))
}

func (w *world) produce() {
	n := int64(1 + w.c.intn(8))
	w.batches = append(w.batches, LogBatch{BaseOffset: w.hwm, LastOffset: w.hwm + n - 1})
	for range n {
		w.holder = append(w.holder, "")
		w.fate = append(w.fate, fateNone)
	}
	w.hwm += n
	w.logf("produce %d", n)
}

func (w *world) fetch() Fetch {
	from := max(w.sp.NextFetchOffset(), w.lso)
	i := sort.Search(len(w.batches), func(i int) bool { return w.batches[i].LastOffset >= from })
	return Fetch{LogStartOffset: w.lso, HighWatermark: w.hwm, Batches: w.batches[i:min(len(w.batches), i+20)]}
}

// apply folds a result's changes into the model, checking that every record
// leaving ACQUIRED was held (by owner, when owner is set).
func (w *world) apply(res Result, owner string, fromDLQ bool) {
	w.t.Helper()
	for _, ch := range res.Changes {
		for off := ch.FirstOffset; off <= ch.LastOffset; off++ {
			switch {
			case fromDLQ:
			case w.holder[off] == "" && ch.State != Archived:
				w.failf("offset %d changed to %s but nobody held it", off, ch.State)
			case owner != "" && w.holder[off] != owner:
				w.failf("offset %d held by %q changed by %q", off, w.holder[off], owner)
			}
			w.holder[off] = ""
			if w.fate[off] == fateAccepted {
				w.failf("accepted offset %d changed to %s", off, ch.State)
			}
			switch {
			case ch.State == Available:
				w.fate[off] = fateNone
			case ch.State == Acknowledged:
				w.fate[off] = fateAccepted
			case ch.State == Archiving:
				w.fate[off] = fateArchiving
			case fromDLQ:
				w.fate[off] = fateDLQ
			case off < w.lso:
				w.fate[off] = fateRetention
			default:
				w.fate[off] = fateArchived
			}
		}
	}
	w.pending = append(w.pending, res.DLQ...)
}

func (w *world) check() {
	w.t.Helper()
	if err := w.sp.CheckInvariants(); err != nil {
		w.failf("%v", err)
	}
	if s := w.sp.StartOffset(); s < w.floor {
		w.failf("SPSO moved back from %d to %d", w.floor, s)
	} else {
		w.floor = s
	}
	if st := w.p.get(testKey).st.StartOffset; st < w.pFloor {
		w.failf("persisted start moved back from %d to %d", w.pFloor, st)
	} else {
		w.pFloor = st
	}
}

// refused checks that a failed call changed nothing.
func (w *world) refused(before string, err error, op string) {
	w.t.Helper()
	if after := dump(w.sp); after != before {
		w.failf("%s failed with %v but changed the partition:\n%s\n%s", op, err, before, after)
	}
}

func (w *world) acquire(member string) {
	w.t.Helper()
	res, archived, err := w.sp.Acquire(w.now, member, w.fetch())
	if err != nil {
		w.failf("acquire: %v", err)
	}
	w.apply(Result{Changes: archived}, "", false)
	for _, a := range res.Records {
		if a.DeliveryCount < 1 || a.DeliveryCount > w.cfg.MaxDeliveryCount {
			w.failf("acquired %+v with a count outside [1, %d]", a, w.cfg.MaxDeliveryCount)
		}
		for off := a.FirstOffset; off <= a.LastOffset; off++ {
			if w.holder[off] != "" {
				w.failf("offset %d acquired by %s while %s holds it", off, member, w.holder[off])
			}
			if w.fate[off] != fateNone {
				w.failf("offset %d with fate %d acquired", off, w.fate[off])
			}
			w.holder[off] = member
		}
	}
	w.logf("acquire %s → %v", member, res.Records)
}

// heldRuns returns member's held offsets as ascending runs.
func (w *world) heldRuns(member string) [][2]int64 {
	var runs [][2]int64
	for off, h := range w.holder {
		if h != member {
			continue
		}
		if k := len(runs) - 1; k >= 0 && runs[k][1]+1 == int64(off) {
			runs[k][1]++
		} else {
			runs = append(runs, [2]int64{int64(off), int64(off)})
		}
	}
	return runs
}

func (w *world) randomType() AcknowledgeType {
	return []AcknowledgeType{AckAccept, AckAccept, AckRelease, AckReject, AckRenew, AckGap}[w.c.intn(6)]
}

func (w *world) acknowledge(member string, batches []AckBatch) {
	w.t.Helper()
	before, spso := dump(w.sp), w.sp.StartOffset()
	res, err := w.sp.Acknowledge(w.now, member, batches)
	w.logf("ack %s %v → %v", member, batches, err)
	if err != nil {
		if !errors.Is(err, kerr.KafkaStorageError) && !errors.Is(err, kerr.InvalidRecordState) && !errors.Is(err, kerr.InvalidRequest) {
			w.failf("ack: unexpected error %v", err)
		}
		w.refused(before, err, "acknowledge")
		return
	}
	for _, b := range batches {
		for off := max(b.FirstOffset, spso); off <= b.LastOffset; off++ {
			if w.holder[off] != member {
				w.failf("ack of offset %d by %s accepted; holder %q", off, member, w.holder[off])
			}
		}
	}
	w.apply(res, member, false)
	for _, b := range batches {
		for off := max(b.FirstOffset, spso); b.Type == AckGap && off <= b.LastOffset; off++ {
			w.fate[off] = fateGap
		}
	}
}

func (w *world) step() {
	w.t.Helper()
	member := members[w.c.intn(len(members))]
	switch op := w.c.intn(20); {
	case op < 3:
		w.produce()
	case op < 7:
		w.acquire(member)
	case op < 11: // the member acknowledges some of what it holds
		runs := w.heldRuns(member)
		if len(runs) == 0 {
			return
		}
		var batches []AckBatch
		for _, r := range runs {
			if w.c.intn(2) == 0 {
				continue
			}
			last := r[0] + int64(w.c.intn(int(r[1]-r[0]+1)))
			batches = append(batches, AckBatch{r[0], last, w.randomType()})
		}
		w.acknowledge(member, batches)
	case op < 12: // a non-owner acknowledges someone else's record
		for off, h := range w.holder {
			if h != "" && h != member && int64(off) >= w.sp.StartOffset() {
				before := dump(w.sp)
				_, err := w.sp.Acknowledge(w.now, member, []AckBatch{{int64(off), int64(off), w.randomType()}})
				if !errors.Is(err, kerr.InvalidRecordState) {
					w.failf("non-owner ack of %d by %s (held by %s): %v", off, member, h, err)
				}
				w.refused(before, err, "non-owner ack")
				break
			}
		}
	case op < 13: // any range at all
		if w.hwm == 0 {
			return
		}
		first := int64(w.c.intn(int(w.hwm)))
		last := first + int64(w.c.intn(5))
		if last >= w.hwm {
			last = w.hwm - 1
		}
		w.acknowledge(member, []AckBatch{{first, last, w.randomType()}})
	case op < 15:
		w.now += int64(w.c.intn(80))
		res, err := w.sp.ExpireLocks(w.now)
		require.NoError(w.t, err)
		w.logf("expire → %v", res.Changes)
		w.apply(res, "", false)
	case op < 16:
		res, err := w.sp.ReleaseMember(member)
		require.NoError(w.t, err)
		w.logf("release %s → %v", member, res.Changes)
		w.apply(res, member, false)
	case op < 17:
		if len(w.pending) == 0 {
			return
		}
		d := w.pending[0]
		w.pending = w.pending[1:]
		res, err := w.sp.CompleteDLQWrite(d.FirstOffset, d.LastOffset, w.c.intn(3) != 0)
		if err != nil {
			w.failf("complete DLQ %+v: %v", d, err)
		}
		w.logf("dlq %+v", d)
		w.apply(res, "", true)
	case op < 18:
		w.failing = !w.failing
	case op < 19:
		w.leaderMove()
	default:
		if w.c.intn(4) != 0 || w.hwm == w.lso {
			return
		}
		w.moveLogStart(w.lso + int64(w.c.intn(int(w.hwm-w.lso)+1)))
	}
}

func (w *world) moveLogStart(lso int64) {
	w.t.Helper()
	if lso <= w.lso {
		return
	}
	w.lso = lso
	res, err := w.sp.UpdateLogStartOffset(lso)
	require.NoError(w.t, err)
	w.logf("log start %d → %v", lso, res.Changes)
	w.apply(res, "", false)
	for off := int64(0); off < lso; off++ {
		if w.fate[off] == fateNone && w.holder[off] == "" {
			w.fate[off] = fateRetention // never delivered, deleted by retention
		}
	}
}

// leaderMove hands the partition to a new leader that recovers from the
// persister; the old leader is fenced.
func (w *world) leaderMove() {
	w.t.Helper()
	old := w.sp
	w.epoch++
	sp, err := New(testKey, w.cfg, w.epoch, w.p)
	require.NoError(w.t, err)
	if err := w.p.Write(old.WriteState()); !errors.Is(err, kerr.FencedStateEpoch) {
		w.failf("stale leader's write answered %v", err)
	}
	w.sp = sp
	w.floor = sp.StartOffset()
	if w.floor < w.pFloor {
		w.failf("recovered SPSO %d below the persisted start %d", w.floor, w.pFloor)
	}
	for off := range w.holder {
		w.holder[off] = ""
		info, cached := sp.Record(int64(off))
		switch {
		case cached:
			if w.fate[off] == fateAccepted && info.State != Acknowledged {
				w.failf("accepted offset %d recovered as %s", off, info.State)
			}
			switch info.State {
			case Available:
				w.fate[off] = fateNone
			case Archiving:
				w.fate[off] = fateArchiving
			case Acknowledged:
				w.fate[off] = fateAccepted
			}
		case int64(off) < w.lso:
			if w.fate[off] == fateNone || w.fate[off] == fateArchiving {
				w.fate[off] = fateRetention // deleted from the log while in flight
			}
		case int64(off) < sp.StartOffset():
			if f := w.fate[off]; f == fateNone || f == fateArchiving {
				w.failf("offset %d below recovered SPSO %d has fate %d", off, sp.StartOffset(), f)
			}
		default:
			w.fate[off] = fateNone // beyond the persisted window: fetched as new
		}
	}
	w.pending = sp.PendingDLQ()
	w.logf("leader move to epoch %d, SPSO %d", w.epoch, sp.StartOffset())
}

// drain heals faults and consumes everything, then checks that no record is
// lost.
func (w *world) drain() {
	w.t.Helper()
	w.failing = false
	for i := 0; ; i++ {
		if i > 100_000 {
			w.failf("drain did not converge: SPSO %d of %d", w.sp.StartOffset(), w.hwm)
		}
		w.now += 101
		res, err := w.sp.ExpireLocks(w.now)
		require.NoError(w.t, err)
		w.apply(res, "", false)
		for len(w.pending) > 0 {
			d := w.pending[0]
			w.pending = w.pending[1:]
			res, err := w.sp.CompleteDLQWrite(d.FirstOffset, d.LastOffset, true)
			require.NoError(w.t, err)
			w.apply(res, "", true)
		}
		w.check()
		if w.sp.StartOffset() >= w.hwm && w.sp.InFlightCount() == 0 {
			break
		}
		w.acquire("drainer")
		for _, r := range w.heldRuns("drainer") {
			typ := AckAccept
			if w.c.intn(4) == 0 {
				typ = []AcknowledgeType{AckRelease, AckReject}[w.c.intn(2)]
			}
			w.acknowledge("drainer", []AckBatch{{r[0], r[1], typ}})
		}
		w.check()
	}
	for off, f := range w.fate {
		switch {
		case f == fateAccepted, f == fateRetention, f == fateDLQ, f == fateGap:
		case f == fateArchived && !w.cfg.DLQEnabled:
		default:
			w.failf("offset %d ends with fate %d (DLQ %v)", off, f, w.cfg.DLQEnabled)
		}
	}
}

func runWorld(t testing.TB, c chooser, steps int) *world {
	w := newWorld(t, c)
	for range steps {
		w.step()
		w.check()
	}
	return w
}

func TestPropertyInvariant8(t *testing.T) {
	for seed := uint64(1); seed <= 250; seed++ {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			w := runWorld(t, randChooser{rand.New(rand.NewPCG(seed, 0x5eed))}, 400)
			w.drain()
		})
	}
}
