package share

import (
	"errors"
	"math"

	"github.com/google/btree"

	"github.com/coordsim/coordsim/kerr"
)

// acqLock is one acquisition lock: the timer Kafka keeps per acquired
// in-flight batch. Records point at their lock; a lock does not own its
// records, it only bounds where they are ([first, last]) and counts how many
// are still under it, so a partial acknowledgement or renewal needs no split
// of a batch structure.
type acqLock struct {
	id         uint64 // ties broken by creation order, so expiry order is fixed
	member     string
	first      int64
	last       int64
	deadlineMs int64
	remaining  int64 // ACQUIRED records pointing here; the lock is indexed iff > 0
}

func lockLess(a, b *acqLock) bool {
	if a.deadlineMs != b.deadlineMs {
		return a.deadlineMs < b.deadlineMs
	}
	return a.id < b.id
}

// record is one cached offset. 16 bytes: the window of a default partition
// (2000 in flight plus a batch) is a few tens of kilobytes.
type record struct {
	lock  *acqLock // non-nil iff state == Acquired
	count int32
	state RecordState
}

// SharePartition is the record state machine of one share-partition: the
// leader broker's cached state (§1). It is not safe for concurrent use.
type SharePartition struct {
	key         Key
	cfg         Config
	leaderEpoch int32
	stateEpoch  int32
	persister   *Persister
	fencedErr   error // set once a write is fenced: the partition is dead

	initialized bool
	spso        int64 // share-partition start offset
	// The cache: recs[head:] holds offsets winStart, winStart+1, ... up to
	// SPEO. It may start below SPSO only while records under SPSO are still
	// ACQUIRED or ARCHIVING (log start movement, §1.9).
	winStart int64
	recs     []record
	head     int

	locks      *btree.BTreeG[*acqLock] // by (deadline, id)
	nextLockID uint64

	deliveryComplete int64 // terminal offsets ≥ SPSO
	available        int64 // AVAILABLE offsets ≥ SPSO
	lastNowMs        int64

	undo  []undoRec // reused across acknowledgements
	stats Stats
	// countCeiling is the highest delivery-count limit in force since the
	// last Recover: records acquired under a higher limit keep their count
	// after UpdateConfig lowers it, until they are released and archived.
	countCeiling int32
}

type undoRec struct {
	off int64
	old record
}

// New returns the share-partition key led at leaderEpoch. With a persister
// it behaves like a new leader: the key is initialised (state epoch 0, start
// offset unresolved) when the persister has never seen it, then its state is
// read (fencing older leaders) and recovered. Without one, nothing is
// persisted and the partition starts uninitialised.
func New(key Key, cfg Config, leaderEpoch int32, p *Persister) (*SharePartition, error) {
	if err := key.validate(); err != nil {
		return nil, err
	}
	rc, err := cfg.resolve()
	if err != nil {
		return nil, err
	}
	if leaderEpoch < 0 {
		return nil, kerr.InvalidRequest.WithMessage("share: negative leader epoch %d", leaderEpoch)
	}
	sp := &SharePartition{key: key, cfg: rc, leaderEpoch: leaderEpoch, persister: p, countCeiling: rc.MaxDeliveryCount}
	sp.reset()
	if p == nil {
		return sp, nil
	}
	if p.get(key) == nil {
		if err := p.Initialize(key, 0, UninitializedStartOffset); err != nil {
			return nil, err
		}
	}
	st, err := p.Read(key, leaderEpoch)
	if err != nil {
		return nil, err
	}
	if err := sp.Recover(st); err != nil {
		return nil, err
	}
	return sp, nil
}

func (sp *SharePartition) reset() {
	sp.locks = btree.NewG(8, lockLess)
	sp.recs = sp.recs[:0]
	sp.head = 0
	sp.initialized = false
	sp.spso, sp.winStart = 0, 0
	sp.deliveryComplete, sp.available = 0, 0
}

// ---- window helpers ----

func (sp *SharePartition) n() int64 { return int64(len(sp.recs) - sp.head) }

// last is the last cached offset; meaningful only when n() > 0.
func (sp *SharePartition) last() int64 { return sp.winStart + sp.n() - 1 }

func (sp *SharePartition) at(off int64) *record {
	invariant(off >= sp.winStart && off <= sp.last(), "offset outside the cached window")
	return &sp.recs[sp.head+int(off-sp.winStart)]
}

func (sp *SharePartition) countIn(s RecordState, d int64) {
	switch {
	case s == Available:
		sp.available += d
	case s.Terminal():
		sp.deliveryComplete += d
	}
}

// store is the only writer of a cached record: it keeps the counters and
// the lock index in step. Transition legality is checked by its callers.
func (sp *SharePartition) store(off int64, nr record) {
	r := sp.at(off)
	old := *r
	if off >= sp.spso {
		sp.countIn(old.state, -1)
		sp.countIn(nr.state, +1)
	}
	*r = nr
	if old.lock != nr.lock {
		if old.lock != nil {
			old.lock.remaining--
			if old.lock.remaining == 0 {
				sp.locks.Delete(old.lock)
			}
		}
		if nr.lock != nil {
			nr.lock.remaining++
			if nr.lock.remaining == 1 {
				sp.locks.ReplaceOrInsert(nr.lock)
			}
		}
	}
}

// appendRec caches the next offset (last()+1, or winStart when empty).
func (sp *SharePartition) appendRec(nr record) {
	off := sp.winStart + sp.n()
	invariant(nr.lock == nil || off >= sp.spso, "a record below SPSO cannot be acquired")
	sp.recs = append(sp.recs, nr)
	if off >= sp.spso {
		sp.countIn(nr.state, +1)
	}
	if nr.lock != nil {
		nr.lock.remaining++
		if nr.lock.remaining == 1 {
			sp.locks.ReplaceOrInsert(nr.lock)
		}
	}
}

// transition moves off from its current state to nr.state, panicking on a
// move §1.2 forbids: a bug, not an input error (inputs are validated first).
func (sp *SharePartition) transition(off int64, nr record, archiveOp bool) {
	from := sp.at(off).state
	ok := validTransition(from, nr.state)
	if !ok && archiveOp {
		ok = from == Available && (nr.state == Archived || nr.state == Archiving)
	}
	if !ok {
		invariant(false, "illegal transition "+from.String()+" → "+nr.state.String())
	}
	invariant(nr.count >= 0 && nr.count <= sp.countCeiling, "delivery count outside [0, limit]")
	invariant((nr.state == Acquired) == (nr.lock != nil), "an ACQUIRED record has exactly one lock")
	sp.store(off, nr)
}

// advance moves SPSO over the terminal prefix and drops cached records
// nobody can change any more (§1.7).
func (sp *SharePartition) advance() {
	if sp.n() > 0 {
		last := sp.last()
		for sp.spso <= last && sp.spso >= sp.winStart && sp.at(sp.spso).state.Terminal() {
			sp.deliveryComplete--
			sp.spso++
		}
	}
	for sp.n() > 0 && sp.winStart < sp.spso && sp.recs[sp.head].state.Terminal() {
		sp.head++
		sp.winStart++
	}
	switch {
	case sp.n() == 0:
		sp.recs = sp.recs[:0]
		sp.head = 0
		sp.winStart = sp.spso
	case sp.head >= 1024 && sp.head*2 >= len(sp.recs):
		k := copy(sp.recs, sp.recs[sp.head:])
		clear(sp.recs[k:])
		sp.recs = sp.recs[:k]
		sp.head = 0
	}
}

// candidateStart is where SPSO will be once advance runs.
func (sp *SharePartition) candidateStart() int64 {
	s := sp.spso
	if sp.n() > 0 {
		for s <= sp.last() && s >= sp.winStart && sp.at(s).state.Terminal() {
			s++
		}
	}
	return s
}

// releaseTarget is where an ACQUIRED record goes when its target is
// AVAILABLE (release ack, lock expiry, session close): the redirect rule of
// §1.2. exhausted reports a delivery-limit archival.
func (sp *SharePartition) releaseTarget(off int64, count int32) (to RecordState, exhausted bool) {
	switch {
	case off < sp.spso:
		return Archived, false // below log start: nothing to copy to a DLQ
	case count >= sp.cfg.MaxDeliveryCount:
		if sp.cfg.DLQEnabled {
			return Archiving, true
		}
		return Archived, true
	}
	return Available, false
}

func (sp *SharePartition) checkLive() error {
	return sp.fencedErr
}

func (sp *SharePartition) checkNow(nowMs int64) error {
	if nowMs < 0 || nowMs < sp.lastNowMs {
		return kerr.InvalidRequest.WithMessage("share: time %d ms before %d ms", nowMs, sp.lastNowMs)
	}
	return nil
}

func (sp *SharePartition) newLock(member string, off, deadlineMs int64) *acqLock {
	sp.nextLockID++
	return &acqLock{id: sp.nextLockID, member: member, first: off, last: off, deadlineMs: deadlineMs}
}

// ---- result builders ----

// lastOf is s's last element, nil when s is empty: the run of offsets the
// next offset may extend (Result.addChange and addDLQ, WriteState's state
// batches).
func lastOf[T any](s []T) *T {
	if len(s) == 0 {
		return nil
	}
	return &s[len(s)-1]
}

func (r *Result) addChange(off int64, s RecordState, count int32) {
	if c := lastOf(r.Changes); c != nil && c.LastOffset+1 == off && c.State == s && c.DeliveryCount == count {
		c.LastOffset = off
		return
	}
	r.Changes = append(r.Changes, StateChange{FirstOffset: off, LastOffset: off, State: s, DeliveryCount: count})
}

func (r *Result) addDLQ(off int64, count int32, cause DLQCause) {
	if d := lastOf(r.DLQ); d != nil && d.LastOffset+1 == off && d.DeliveryCount == count && d.Cause == cause {
		d.LastOffset = off
		return
	}
	r.DLQ = append(r.DLQ, DLQWrite{FirstOffset: off, LastOffset: off, DeliveryCount: count, Cause: cause})
}

// persist writes the current state; a fenced write kills the partition.
func (sp *SharePartition) persist() error {
	if sp.persister == nil {
		return nil
	}
	err := sp.persister.Write(sp.WriteState())
	if err != nil {
		sp.stats.PersistFailures++
		if errors.Is(err, kerr.FencedStateEpoch) {
			sp.fencedErr = err
		}
	}
	return err
}

// ---- Acquire ----

// Acquire hands records of f to memberID (ShareFetch, §1.4–§1.7): cached
// AVAILABLE records inside the fetched batches first, then new records past
// SPEO while the in-flight window SPEO − SPSO + 1 is under
// MaxInFlightRecords. Both are soft limits: whole log batches are taken.
// Redelivered records are throttled (§1.4): from delivery count
// t = max(2, ⌈limit/2⌉) on, only batchLen >> (count − t + 1) records of
// their log batch are taken, and one alone on the last attempt; the
// acquisition stops there. Every contiguous run acquired gets one lock that
// expires at nowMs + RecordLockDurationMs.
//
// An uninitialised partition first resolves share.auto.offset.reset from f
// (pass batches from the log start then). A log start offset above SPSO is
// applied first (see UpdateLogStartOffset) and reported in Archived. Locks
// due at nowMs but not yet expired stay ACQUIRED: call ExpireLocks first.
// Acquisition is not persisted (§1.1).
func (sp *SharePartition) Acquire(nowMs int64, memberID string, f Fetch) (AcquireResult, []StateChange, error) {
	if err := sp.checkLive(); err != nil {
		return AcquireResult{}, nil, err
	}
	if err := sp.checkNow(nowMs); err != nil {
		return AcquireResult{}, nil, err
	}
	if memberID == "" {
		return AcquireResult{}, nil, kerr.InvalidRequest.WithMessage("share: empty member id")
	}
	if err := f.validate(); err != nil {
		return AcquireResult{}, nil, err
	}
	sp.lastNowMs = nowMs
	if !sp.initialized {
		sp.initialize(nowMs, &f)
	}
	var archived []StateChange
	if f.LogStartOffset > sp.spso {
		r := sp.moveLogStart(f.LogStartOffset)
		archived = r.Changes
		if sp.fencedErr != nil {
			return AcquireResult{}, archived, sp.fencedErr
		}
	}

	cfg := &sp.cfg
	limit := cfg.MaxDeliveryCount
	threshold := max(2, (limit+1)/2)
	res := AcquireResult{AcquisitionLockTimeoutMs: cfg.RecordLockDurationMs, LockDeadlineMs: nowMs + cfg.RecordLockDurationMs}
	var (
		cur       *acqLock
		acquired  int64
		budget    = int64(cfg.BatchSize)
		newBudget = int64(-1)
		newTaken  int64
	)
	// take acquires off; split starts a new AcquiredRecords entry even
	// where off would extend the last one.
	take := func(off int64, count int32, split bool) {
		if cur == nil || cur.last+1 != off {
			cur = sp.newLock(memberID, off, res.LockDeadlineMs)
		}
		cur.last = off
		acquired++
		sp.stats.Deliveries++
		if count > 1 {
			sp.stats.Redeliveries++
		}
		if k := len(res.Records) - 1; !split && k >= 0 && res.Records[k].LastOffset+1 == off && res.Records[k].DeliveryCount == count {
			res.Records[k].LastOffset = off
		} else {
			res.Records = append(res.Records, AcquiredRecords{FirstOffset: off, LastOffset: off, DeliveryCount: count})
		}
	}
	// newEntry is the first offset of the AcquiredRecords entry new
	// records go into, when f.BatchSize splits them (-1: none yet).
	newEntry := int64(-1)

outer:
	for _, b := range f.Batches {
		if acquired >= budget {
			break
		}
		lo := max(b.BaseOffset, sp.spso)
		if lo > b.LastOffset {
			continue
		}
		if sp.n() > 0 && lo <= sp.last() {
			hi := min(b.LastOffset, sp.last())
			maxCount := int32(-1)
			for off := lo; off <= hi; off++ {
				if r := sp.at(off); r.state == Available && r.count > maxCount {
					maxCount = r.count
				}
			}
			if maxCount >= 0 {
				allow, throttled := int64(math.MaxInt64), false
				if maxCount >= threshold {
					allow = max(1, (b.LastOffset-b.BaseOffset+1)>>(maxCount-threshold+1))
					throttled = true
				}
				if limit > 2 && maxCount >= limit-1 {
					allow, throttled = 1, true
				}
				for off, took := lo, int64(0); off <= hi && took < allow; off++ {
					r := sp.at(off)
					if r.state != Available {
						continue
					}
					count := r.count + 1
					take(off, count, false)
					sp.transition(off, record{state: Acquired, count: count, lock: cur}, false)
					took++
				}
				if throttled {
					sp.stats.AcquireThrottled++
					break outer
				}
			}
			lo = hi + 1
			if lo > b.LastOffset {
				continue
			}
		}
		// New records [lo, b.LastOffset], past SPEO.
		if newBudget < 0 {
			inFlight := sp.InFlightCount()
			newBudget = min(budget-acquired, cfg.MaxInFlightRecords-inFlight)
			if cfg.Mutants.ShareIgnoresMaxInFlight {
				newBudget = budget - acquired
			}
		}
		if newTaken >= newBudget {
			break
		}
		switch {
		case sp.n() == 0:
			if lo > sp.spso {
				sp.stats.ArchivedGaps += lo - sp.spso
				sp.spso = lo
			}
			sp.winStart = sp.spso
		case lo > sp.last()+1:
			for off := sp.last() + 1; off < lo; off++ {
				sp.appendRec(record{state: Archived})
				sp.stats.ArchivedGaps++
			}
		}
		for off := lo; off <= b.LastOffset; off++ {
			split := false
			if f.BatchSize > 0 {
				// SharePartition.createBatches: new records are their own
				// entries, cut at a log batch base once BatchSize records
				// are in the entry.
				k := len(res.Records) - 1
				split = k < 0 || res.Records[k].LastOffset+1 != off || newEntry < 0 ||
					off == b.BaseOffset && off-newEntry >= int64(f.BatchSize)
				if split {
					newEntry = off
				}
			}
			take(off, 1, split)
			sp.appendRec(record{state: Acquired, count: 1, lock: cur})
			newTaken++
		}
	}
	sp.advance() // gaps may have completed the prefix
	return res, archived, nil
}

func (sp *SharePartition) initialize(nowMs int64, f *Fetch) {
	start := f.HighWatermark
	switch sp.cfg.AutoOffsetReset {
	case ResetEarliest:
		start = f.LogStartOffset
	case ResetByDuration:
		since := nowMs - sp.cfg.AutoOffsetResetDurationMs
		for _, b := range f.Batches {
			if b.MaxTimestampMs >= since {
				start = max(b.BaseOffset, f.LogStartOffset)
				break
			}
		}
	}
	sp.initialized = true
	sp.spso, sp.winStart = start, start
}

// ---- Acknowledge ----

// Acknowledge applies memberID's acknowledgements (ShareAcknowledge or the
// acks piggy-backed on ShareFetch, §1.3) all or nothing. Every targeted
// offset at or above SPSO must be ACQUIRED by memberID under a lock that
// has not reached its deadline, else INVALID_RECORD_STATE; offsets below
// SPSO are skipped; offsets past SPEO, overlapping or descending batches and
// unknown types are INVALID_REQUEST. The changes are persisted with one
// write; a failed write rolls them back and returns its error. RENEW
// restarts the lock of its records (nothing persisted) and is
// INVALID_RECORD_STATE when renewal is disabled.
func (sp *SharePartition) Acknowledge(nowMs int64, memberID string, batches []AckBatch) (Result, error) {
	if err := sp.validateAcks(nowMs, memberID, batches); err != nil {
		if errors.Is(err, kerr.InvalidRecordState) {
			sp.stats.AcksRefused++
		}
		return Result{}, err
	}
	var (
		res     Result
		delta   Stats
		renews  bool
		changed bool
	)
	undo := sp.undo[:0]
	for _, b := range batches {
		if b.Type == AckRenew {
			renews = true
			continue
		}
		for off := max(b.FirstOffset, sp.spso); off <= b.LastOffset; off++ {
			r := *sp.at(off)
			undo = append(undo, undoRec{off, r})
			to := Archived
			switch b.Type {
			case AckAccept:
				to = Acknowledged
				delta.Accepted++
			case AckRelease:
				var exhausted bool
				to, exhausted = sp.releaseTarget(off, r.count)
				delta.Released++
				if exhausted {
					delta.ArchivedAtLimit++
				}
				if to == Archiving {
					res.addDLQ(off, r.count, DLQDeliveryCountExceeded)
				}
			case AckReject:
				delta.Rejected++
				if sp.cfg.DLQEnabled {
					to = Archiving
					res.addDLQ(off, r.count, DLQRejected)
				}
			case AckGap:
				delta.ArchivedGaps++
			}
			sp.transition(off, record{state: to, count: r.count}, false)
			res.addChange(off, to, r.count)
			changed = true
		}
	}
	sp.undo = undo
	if changed {
		if err := sp.persist(); err != nil {
			for i := len(undo) - 1; i >= 0; i-- {
				sp.store(undo[i].off, undo[i].old) // rollback: not a §1.2 transition
			}
			return Result{}, err
		}
	}
	sp.lastNowMs = nowMs
	if renews {
		for _, b := range batches {
			if b.Type == AckRenew {
				delta.LockRenewals += sp.renew(nowMs, max(b.FirstOffset, sp.spso), b.LastOffset)
			}
		}
	}
	sp.advance()
	sp.addStats(delta)
	return res, nil
}

func (sp *SharePartition) addStats(d Stats) {
	s := &sp.stats
	s.Accepted += d.Accepted
	s.Released += d.Released
	s.Rejected += d.Rejected
	s.ArchivedAtLimit += d.ArchivedAtLimit
	s.ArchivedGaps += d.ArchivedGaps
	s.LockRenewals += d.LockRenewals
}

func (sp *SharePartition) validateAcks(nowMs int64, memberID string, batches []AckBatch) error {
	if err := sp.checkLive(); err != nil {
		return err
	}
	if err := sp.checkNow(nowMs); err != nil {
		return err
	}
	if memberID == "" {
		return kerr.InvalidRequest.WithMessage("share: empty member id")
	}
	if len(batches) > MaxAckBatches {
		return kerr.InvalidRequest.WithMessage("share: %d ack batches exceed %d", len(batches), MaxAckBatches)
	}
	prev := int64(-1)
	for i, b := range batches {
		if b.FirstOffset < 0 || b.LastOffset < b.FirstOffset || b.FirstOffset <= prev {
			return kerr.InvalidRequest.WithMessage("share: ack batch %d [%d, %d] is not ascending", i, b.FirstOffset, b.LastOffset)
		}
		if b.Type < AckGap || b.Type > AckRenew {
			return kerr.InvalidRequest.WithMessage("share: unknown acknowledge type %d", b.Type)
		}
		prev = b.LastOffset
		if b.LastOffset < sp.spso {
			continue // entirely below SPSO: skipped
		}
		if !sp.initialized || sp.n() == 0 || b.LastOffset > sp.last() {
			return kerr.InvalidRequest.WithMessage("share: offsets [%d, %d] past the cached range", b.FirstOffset, b.LastOffset)
		}
	}
	for _, b := range batches {
		if b.LastOffset < sp.spso {
			continue
		}
		if b.Type == AckRenew && sp.cfg.RenewDisabled {
			return kerr.InvalidRecordState.WithMessage("share: lock renewal is disabled")
		}
		for off := max(b.FirstOffset, sp.spso); off <= b.LastOffset; off++ {
			r := sp.at(off)
			switch {
			case r.state != Acquired:
				return kerr.InvalidRecordState.WithMessage("share: offset %d is %s, not ACQUIRED", off, r.state)
			case r.lock.member != memberID:
				return kerr.InvalidRecordState.WithMessage("share: member is not the owner of offset %d", off)
			case r.lock.deadlineMs <= nowMs:
				return kerr.InvalidRecordState.WithMessage("share: the acquisition lock of offset %d expired", off)
			}
		}
	}
	return nil
}

// renew restarts the lock of [first, last] (all ACQUIRED by one member,
// validated): a lock entirely covered gets a new deadline, a partly covered
// one gives the covered records a lock of their own (Kafka moves them to
// per-offset timers). It returns the number of records renewed.
func (sp *SharePartition) renew(nowMs, first, last int64) int64 {
	deadline := nowMs + sp.cfg.RecordLockDurationMs
	var n int64
	for off := first; off <= last; {
		old := sp.at(off).lock
		end := off
		for end+1 <= last && sp.at(end+1).lock == old {
			end++
		}
		run := end - off + 1
		n += run
		if run == old.remaining {
			sp.locks.Delete(old)
			old.deadlineMs = deadline
			sp.locks.ReplaceOrInsert(old)
		} else {
			nl := sp.newLock(old.member, off, deadline)
			nl.last = end
			for o := off; o <= end; o++ {
				r := *sp.at(o)
				r.lock = nl
				sp.store(o, r)
			}
		}
		off = end + 1
	}
	return n
}

// ---- locks, release, log start, DLQ ----

// NextLockDeadline returns the earliest acquisition-lock deadline, for the
// coordinator's timer; false when no record is acquired.
func (sp *SharePartition) NextLockDeadline() (int64, bool) {
	l, ok := sp.locks.Min()
	if !ok {
		return 0, false
	}
	return l.deadlineMs, true
}

// ExpireLocks expires every lock whose deadline is <= nowMs, in (deadline,
// creation) order: its still-ACQUIRED records become AVAILABLE (count
// kept), or ARCHIVED (ARCHIVING with the DLQ) at the delivery limit, or
// ARCHIVED below SPSO (§1.5). The change is persisted; a failed write does
// not undo it (reported in PersistErr).
func (sp *SharePartition) ExpireLocks(nowMs int64) (Result, error) {
	if err := sp.checkLive(); err != nil {
		return Result{}, err
	}
	if err := sp.checkNow(nowMs); err != nil {
		return Result{}, err
	}
	sp.lastNowMs = nowMs
	var res Result
	for {
		l, ok := sp.locks.Min()
		if !ok || l.deadlineMs > nowMs {
			break
		}
		sp.stats.LockExpired += sp.releaseLock(l, &res)
	}
	sp.finishRelease(&res)
	return res, nil
}

// ReleaseMember releases every record memberID holds, as when its share
// session closes or its connection drops (§1.11): like a lock expiry, counts
// kept, ARCHIVED below SPSO or at the limit. An unknown member releases
// nothing.
func (sp *SharePartition) ReleaseMember(memberID string) (Result, error) {
	if err := sp.checkLive(); err != nil {
		return Result{}, err
	}
	if memberID == "" {
		return Result{}, kerr.InvalidRequest.WithMessage("share: empty member id")
	}
	var mine []*acqLock
	sp.locks.Ascend(func(l *acqLock) bool {
		if l.member == memberID {
			mine = append(mine, l)
		}
		return true
	})
	var res Result
	for _, l := range mine {
		sp.stats.SessionReleased += sp.releaseLock(l, &res)
	}
	sp.finishRelease(&res)
	return res, nil
}

func (sp *SharePartition) finishRelease(res *Result) {
	if len(res.Changes) == 0 {
		return
	}
	sp.advance()
	res.PersistErr = sp.persist()
}

// releaseLock moves the records still under l out of ACQUIRED.
func (sp *SharePartition) releaseLock(l *acqLock, res *Result) int64 {
	var n int64
	if sp.n() > 0 {
		for off := max(l.first, sp.winStart); off <= min(l.last, sp.last()); off++ {
			r := sp.at(off)
			if r.lock != l {
				continue
			}
			to, exhausted := sp.releaseTarget(off, r.count)
			count := r.count
			if exhausted {
				sp.stats.ArchivedAtLimit++
			}
			if to == Archiving {
				res.addDLQ(off, count, DLQDeliveryCountExceeded)
			}
			sp.transition(off, record{state: to, count: count}, false)
			res.addChange(off, to, count)
			n++
		}
	}
	invariant(l.remaining == 0, "a lock outlived its records")
	return n
}

// UpdateLogStartOffset applies a log start offset above SPSO (retention,
// DeleteRecords, §1.9): AVAILABLE records below it are ARCHIVED and SPSO
// moves to it; ACQUIRED records below it stay ACQUIRED until their lock
// expires or their member is released, then become ARCHIVED whatever their
// count. A lower or equal offset changes nothing.
func (sp *SharePartition) UpdateLogStartOffset(logStartOffset int64) (Result, error) {
	if err := sp.checkLive(); err != nil {
		return Result{}, err
	}
	if logStartOffset < 0 {
		return Result{}, kerr.InvalidRequest.WithMessage("share: negative log start offset %d", logStartOffset)
	}
	if !sp.initialized || logStartOffset <= sp.spso {
		return Result{}, nil
	}
	res := sp.moveLogStart(logStartOffset)
	return res, nil
}

func (sp *SharePartition) moveLogStart(lso int64) Result {
	var res Result
	if sp.n() > 0 {
		end := min(lso-1, sp.last())
		for off := sp.spso; off <= end; off++ {
			if r := sp.at(off); r.state == Available {
				sp.transition(off, record{state: Archived, count: r.count}, true)
				res.addChange(off, Archived, r.count)
				sp.stats.ArchivedLogStart++
			}
		}
		for off := sp.spso; off <= end; off++ {
			sp.countIn(sp.at(off).state, -1) // leaves the counted range
		}
	}
	sp.spso = lso
	sp.advance()
	res.PersistErr = sp.persist()
	return res
}

// CompleteDLQWrite reports the outcome of a DLQ write for [first, last]
// (all ARCHIVING, else INVALID_RECORD_STATE): they become ARCHIVED whether
// or not the write succeeded (KIP-1191: a DLQ failure never blocks
// progress).
func (sp *SharePartition) CompleteDLQWrite(first, last int64, succeeded bool) (Result, error) {
	if err := sp.checkLive(); err != nil {
		return Result{}, err
	}
	if first < 0 || last < first || sp.n() == 0 || first < sp.winStart || last > sp.last() {
		return Result{}, kerr.InvalidRequest.WithMessage("share: DLQ range [%d, %d] outside the cache", first, last)
	}
	for off := first; off <= last; off++ {
		if s := sp.at(off).state; s != Archiving {
			return Result{}, kerr.InvalidRecordState.WithMessage("share: offset %d is %s, not ARCHIVING", off, s)
		}
	}
	var res Result
	for off := first; off <= last; off++ {
		count := sp.at(off).count
		sp.transition(off, record{state: Archived, count: count}, false)
		res.addChange(off, Archived, count)
	}
	n := last - first + 1
	if succeeded {
		sp.stats.DLQWritten += n
	} else {
		sp.stats.DLQFailed += n
	}
	sp.advance()
	res.PersistErr = sp.persist()
	return res, nil
}

// PendingDLQ lists the ARCHIVING records, whose DLQ write the caller must
// (re)issue, e.g. after Recover (the cause is inferred from the count, as
// Kafka does at re-initialisation).
func (sp *SharePartition) PendingDLQ() []DLQWrite {
	var res Result
	for off := sp.winStart; sp.n() > 0 && off <= sp.last(); off++ {
		if r := sp.at(off); r.state == Archiving {
			cause := DLQRejected
			if r.count >= sp.cfg.MaxDeliveryCount {
				cause = DLQDeliveryCountExceeded
			}
			res.addDLQ(off, r.count, cause)
		}
	}
	return res.DLQ
}

// ---- persistence ----

// WriteState returns the snapshot this partition would write: state
// epoch, leader epoch, SPSO, deliveryCompleteCount and the state batches
// from SPSO to SPEO. ACQUIRED records are written as they were before their
// acquisition (AVAILABLE, count − 1) because acquisition is never persisted.
func (sp *SharePartition) WriteState() PersistedState {
	st := PersistedState{Key: sp.key, StateEpoch: sp.stateEpoch, LeaderEpoch: sp.leaderEpoch, StartOffset: UninitializedStartOffset}
	if !sp.initialized {
		return st
	}
	st.StartOffset = sp.candidateStart()
	if sp.n() == 0 {
		return st
	}
	for off := st.StartOffset; off <= sp.last(); off++ {
		r := sp.at(off)
		s, c := r.state, r.count
		if s == Acquired {
			s, c = Available, c-1
		}
		if s.Terminal() {
			st.DeliveryCompleteCount++
		}
		if b := lastOf(st.StateBatches); b != nil && b.DeliveryState == s && b.DeliveryCount == c {
			b.LastOffset = off
			continue
		}
		st.StateBatches = append(st.StateBatches, StateBatch{FirstOffset: off, LastOffset: off, DeliveryState: s, DeliveryCount: c})
	}
	return st
}

// maxRecoverWindow bounds the offsets a recovered snapshot may span.
const maxRecoverWindow = 4 * MaxMaxInFlightRecords

// Recover rebuilds the cached state from persisted state, as a new leader
// does (§1.8): no record is ACQUIRED and no lock runs; offsets between
// persisted batches are AVAILABLE with count 0 (fetched as new); AVAILABLE
// records at or over the delivery limit are archived (ARCHIVING with the
// DLQ); ARCHIVING records await PendingDLQ. A snapshot written by a newer
// leader than this one is FENCED_STATE_EPOCH.
func (sp *SharePartition) Recover(persisted PersistedState) error {
	if persisted.Key != sp.key {
		return kerr.InvalidRequest.WithMessage("share: state of %+v recovered into %+v", persisted.Key, sp.key)
	}
	if err := validateBatches(persisted); err != nil {
		return err
	}
	if persisted.LeaderEpoch > sp.leaderEpoch {
		return kerr.FencedStateEpoch.WithMessage("share: state written by leader epoch %d > %d", persisted.LeaderEpoch, sp.leaderEpoch)
	}
	if k := len(persisted.StateBatches); k > 0 && persisted.StateBatches[k-1].LastOffset-persisted.StartOffset >= maxRecoverWindow {
		return kerr.InvalidRequest.WithMessage("share: persisted window exceeds %d offsets", maxRecoverWindow)
	}
	sp.reset()
	sp.fencedErr = nil
	sp.countCeiling = sp.cfg.MaxDeliveryCount
	sp.stateEpoch = persisted.StateEpoch
	if persisted.StartOffset == UninitializedStartOffset {
		return nil
	}
	sp.initialized = true
	sp.spso, sp.winStart = persisted.StartOffset, persisted.StartOffset
	limit := sp.cfg.MaxDeliveryCount
	for _, b := range persisted.StateBatches {
		for off := sp.winStart + sp.n(); off < b.FirstOffset; off++ {
			sp.appendRec(record{state: Available})
		}
		for off := b.FirstOffset; off <= b.LastOffset; off++ {
			s, c := b.DeliveryState, min(b.DeliveryCount, limit)
			if s == Available && c >= limit {
				s = Archived
				if sp.cfg.DLQEnabled {
					s = Archiving
				}
			}
			sp.appendRec(record{state: s, count: c})
		}
	}
	sp.advance()
	return nil
}

// ---- live configuration ----

// UpdateConfig applies a changed group config to this live share-partition,
// as Kafka trunk's SharePartition does by reading the group config on every
// use (GroupConfigManager): a lower MaxDeliveryCount archives, at once, the
// AVAILABLE records already at or over it (ARCHIVING with the DLQ, cause
// delivery count exceeded), and ACQUIRED ones on their next release, lock
// expiry or session release (testDynamicDeliveryCountDecreaseCausesArchival);
// a new RecordLockDurationMs applies to acquisitions and renewals from now
// on (running locks keep their deadline); MaxInFlightRecords and
// RenewDisabled apply to the next call; AutoOffsetReset applies when an
// uninitialised partition initialises (an initialised one has nothing to
// reset). BatchSize and DLQEnabled are fixed at creation: a different value
// is INVALID_REQUEST (the caller rebuilds the partition for them). An
// invalid cfg is INVALID_REQUEST and changes nothing. Archiving is
// persisted; a failed write stands, as for lock expiry (PersistErr).
func (sp *SharePartition) UpdateConfig(cfg Config) (Result, error) {
	if err := sp.checkLive(); err != nil {
		return Result{}, err
	}
	rc, err := cfg.resolve()
	if err != nil {
		return Result{}, err
	}
	if rc.BatchSize != sp.cfg.BatchSize || rc.DLQEnabled != sp.cfg.DLQEnabled {
		return Result{}, kerr.InvalidRequest.WithMessage("share: batch size and DLQ are fixed for a live share-partition")
	}
	sp.cfg = rc
	sp.countCeiling = max(sp.countCeiling, rc.MaxDeliveryCount)
	var res Result
	if !sp.initialized || sp.available == 0 {
		return res, nil
	}
	for off := sp.spso; off <= sp.last(); off++ {
		r := sp.at(off)
		if r.state != Available || r.count < rc.MaxDeliveryCount {
			continue
		}
		to := Archived
		if rc.DLQEnabled {
			to = Archiving
			res.addDLQ(off, r.count, DLQDeliveryCountExceeded)
		}
		sp.stats.ArchivedAtLimit++
		sp.transition(off, record{state: to, count: r.count}, true)
		res.addChange(off, to, r.count)
	}
	sp.finishRelease(&res)
	return res, nil
}

// ---- queries ----

// Key returns the share-partition's key.
func (sp *SharePartition) Key() Key { return sp.key }

// Config returns the effective configuration (defaults applied).
func (sp *SharePartition) Config() Config { return sp.cfg }

// LeaderEpoch returns the leader epoch this partition writes with.
func (sp *SharePartition) LeaderEpoch() int32 { return sp.leaderEpoch }

// StateEpoch returns the state epoch read at recovery.
func (sp *SharePartition) StateEpoch() int32 { return sp.stateEpoch }

// Fenced returns the fencing error once a write was fenced, else nil.
func (sp *SharePartition) Fenced() error { return sp.fencedErr }

// Initialized reports whether the start offset is resolved.
func (sp *SharePartition) Initialized() bool { return sp.initialized }

// StartOffset is SPSO: the first offset not known to be terminal
// (UninitializedStartOffset before initialisation).
func (sp *SharePartition) StartOffset() int64 {
	if !sp.initialized {
		return UninitializedStartOffset
	}
	return sp.spso
}

// EndOffset is SPEO: the last cached offset, or SPSO when the cache is
// empty or the log start moved past every cached offset (§1.7, §1.9).
func (sp *SharePartition) EndOffset() int64 {
	if !sp.initialized {
		return UninitializedStartOffset
	}
	if sp.n() == 0 {
		return sp.spso
	}
	return max(sp.last(), sp.spso)
}

// NextFetchOffset is where the next fetch reads: the first AVAILABLE cached
// offset, else SPEO + 1, or SPSO when the cache is empty;
// UninitializedStartOffset before initialisation (fetch from log start).
func (sp *SharePartition) NextFetchOffset() int64 {
	switch {
	case !sp.initialized:
		return UninitializedStartOffset
	case sp.available > 0:
		for off := sp.spso; off <= sp.last(); off++ {
			if sp.at(off).state == Available {
				return off
			}
		}
		invariant(false, "available counter out of step")
	case sp.n() == 0:
		return sp.spso
	}
	return max(sp.last()+1, sp.spso)
}

// InFlightCount is SPEO − SPSO + 1 while the cache is not empty, else 0:
// what MaxInFlightRecords limits (§1.6).
func (sp *SharePartition) InFlightCount() int64 {
	if sp.n() == 0 {
		return 0
	}
	return max(0, sp.last()-sp.spso+1)
}

// CanAcquireRecords reports whether a fetch may acquire anything: the cache
// is empty, an AVAILABLE cached record exists, or the window is under the
// limit (Kafka's canAcquireRecords).
func (sp *SharePartition) CanAcquireRecords() bool {
	if sp.n() == 0 || sp.available > 0 {
		return true
	}
	return sp.InFlightCount() < sp.cfg.MaxInFlightRecords || sp.cfg.Mutants.ShareIgnoresMaxInFlight
}

// DeliveryCompleteCount is the number of terminal offsets at or above SPSO
// (KIP-1226).
func (sp *SharePartition) DeliveryCompleteCount() int64 { return sp.deliveryComplete }

// Lag is KIP-1226's partitionEndOffset − SPSO − deliveryCompleteCount, or
// -1 while uninitialised; never negative.
func (sp *SharePartition) Lag(partitionEndOffset int64) int64 {
	if !sp.initialized {
		return -1
	}
	return max(0, partitionEndOffset-sp.spso-sp.deliveryComplete)
}

// Record returns the cached state of offset; false when it is not cached.
func (sp *SharePartition) Record(offset int64) (RecordInfo, bool) {
	if sp.n() == 0 || offset < sp.winStart || offset > sp.last() {
		return RecordInfo{}, false
	}
	r := sp.at(offset)
	info := RecordInfo{State: r.state, DeliveryCount: r.count}
	if r.lock != nil {
		info.MemberID, info.LockDeadlineMs = r.lock.member, r.lock.deadlineMs
	}
	return info, true
}

// AcquiredCount returns the number of ACQUIRED records.
func (sp *SharePartition) AcquiredCount() int64 {
	var n int64
	sp.locks.Ascend(func(l *acqLock) bool { n += l.remaining; return true })
	return n
}

// Stats returns the cumulative counters.
func (sp *SharePartition) Stats() Stats { return sp.stats }
