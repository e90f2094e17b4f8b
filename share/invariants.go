package share

import "fmt"

// invariant panics when cond is false. It guards what validation already
// excludes (an illegal §1.2 transition, a count over the limit, a lock
// without its records): reaching one is a bug that must stop the test or
// the simulator, not a state to serve.
func invariant(cond bool, msg string) {
	if !cond {
		panic("share: invariant violated: " + msg)
	}
}

// CheckInvariants recomputes everything the partition keeps incrementally
// and checks the record-level rules of docs/invariants.md invariant 8 that are
// visible from one partition: every ACQUIRED record has exactly one live
// lock and owner, no delivery count exceeds the limit, SPSO sits on a
// non-terminal record or past SPEO, AVAILABLE records are never below SPSO,
// and the counters match. The simulator calls it after every event; it
// costs O(cached records + locks).
func (sp *SharePartition) CheckInvariants() error {
	if !sp.initialized {
		if sp.n() != 0 || sp.locks.Len() != 0 {
			return fmt.Errorf("share: uninitialised partition has %d cached records and %d locks", sp.n(), sp.locks.Len())
		}
		return nil
	}
	if sp.n() == 0 && sp.winStart != sp.spso {
		return fmt.Errorf("share: empty cache starts at %d, SPSO %d", sp.winStart, sp.spso)
	}
	if sp.n() > 0 && sp.winStart > sp.spso {
		return fmt.Errorf("share: cache starts at %d above SPSO %d", sp.winStart, sp.spso)
	}
	var avail, done int64
	perLock := map[*acqLock]int64{} // lookups only; never iterated
	for i := int64(0); i < sp.n(); i++ {
		off := sp.winStart + i
		r := sp.at(off)
		switch {
		case r.state < Available || r.state > Archived:
			return fmt.Errorf("share: offset %d has state %d", off, r.state)
		case r.count < 0 || r.count > sp.countCeiling:
			return fmt.Errorf("share: offset %d delivery count %d outside [0, %d]", off, r.count, sp.countCeiling)
		case r.state == Available && r.count >= sp.cfg.MaxDeliveryCount:
			return fmt.Errorf("share: offset %d AVAILABLE at delivery count %d, limit %d", off, r.count, sp.cfg.MaxDeliveryCount)
		case (r.state == Acquired) != (r.lock != nil):
			return fmt.Errorf("share: offset %d is %s with lock %v", off, r.state, r.lock != nil)
		case r.state == Acquired && (r.count < 1 || r.lock.member == "" || off < r.lock.first || off > r.lock.last):
			return fmt.Errorf("share: offset %d acquired with count %d outside its lock [%d, %d] or without owner", off, r.count, r.lock.first, r.lock.last)
		case off < sp.spso && r.state == Available:
			return fmt.Errorf("share: offset %d below SPSO %d is AVAILABLE", off, sp.spso)
		case off == sp.winStart && off < sp.spso && r.state.Terminal():
			return fmt.Errorf("share: terminal offset %d below SPSO not dropped", off)
		case off == sp.spso && r.state.Terminal():
			return fmt.Errorf("share: SPSO %d is terminal", off)
		}
		if r.lock != nil {
			perLock[r.lock]++
		}
		if off >= sp.spso {
			if r.state == Available {
				avail++
			} else if r.state.Terminal() {
				done++
			}
		}
	}
	if avail != sp.available || done != sp.deliveryComplete {
		return fmt.Errorf("share: counters available %d/%d, delivery complete %d/%d", sp.available, avail, sp.deliveryComplete, done)
	}
	var err error
	seen := 0
	sp.locks.Ascend(func(l *acqLock) bool {
		seen++
		if l.remaining <= 0 || perLock[l] != l.remaining {
			err = fmt.Errorf("share: lock %d of %q holds %d records, counts %d", l.id, l.member, perLock[l], l.remaining)
			return false
		}
		return true
	})
	if err == nil && seen != len(perLock) {
		err = fmt.Errorf("share: %d locks indexed, %d referenced", seen, len(perLock))
	}
	return err
}
