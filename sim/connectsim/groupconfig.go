package connectsim

import (
	"fmt"
	"time"

	"github.com/coordsim/coordsim/sharebroker"
)

// Live share-group config changes (issue 14): an operator alters a share
// sink's group config while it runs (kafka-configs --entity-type groups),
// and the group's live share-partitions follow it, as Kafka trunk's do.

// GroupConfigChange alters a share sink's group config at At. Zero fields
// leave that config as it is.
type GroupConfigChange struct {
	At time.Duration
	// DeliveryCountLimit is share.delivery.count.limit, within Kafka's
	// group bounds [2, 10]: lowering it archives records at or over it.
	DeliveryCountLimit int32
	// RecordLockDuration is share.record.lock.duration.ms, within Kafka's
	// group bounds [15s, 60s]: it applies to new acquisitions and renewals.
	RecordLockDuration time.Duration
}

// invalidStep returns the error maker of step j of connector i's timed list
// (reset_offsets, group_config_changes): each error names the step's key.
func invalidStep(i int, list string, j int) func(why string, args ...any) error {
	return func(why string, args ...any) error {
		return fmt.Errorf("sim: invalid connect.connectors[%d].%s[%d]: %s", i, list, j, fmt.Sprintf(why, args...))
	}
}

// validateGroupConfigChange checks change j of connector i.
func validateGroupConfigChange(i, j int, c GroupConfigChange, d time.Duration) error {
	bad := invalidStep(i, "group_config_changes", j)
	switch {
	case c.At < 0 || c.At >= d:
		return bad("at must be in [0, duration)")
	case c.DeliveryCountLimit == 0 && c.RecordLockDuration == 0:
		return bad("changes nothing: set delivery_count_limit or record_lock_duration")
	case c.DeliveryCountLimit != 0 && (c.DeliveryCountLimit < sharebroker.GroupDeliveryCountLimitMin || c.DeliveryCountLimit > sharebroker.GroupDeliveryCountLimitMax):
		return bad("delivery_count_limit must be in [%d, %d] (share.delivery.count.limit)", sharebroker.GroupDeliveryCountLimitMin, sharebroker.GroupDeliveryCountLimitMax)
	case c.RecordLockDuration != 0 && (c.RecordLockDuration.Milliseconds() < sharebroker.GroupRecordLockDurationMin || c.RecordLockDuration.Milliseconds() > sharebroker.GroupRecordLockDurationMax ||
		c.RecordLockDuration%time.Millisecond != 0):
		return bad("record_lock_duration must be whole milliseconds in [15s, 60s] (share.record.lock.duration.ms)")
	}
	return nil
}

// scheduleGroupConfigChanges arms a share sink's config changes.
func (cw *Sim) scheduleGroupConfigChanges(s *sink) {
	for _, c := range s.spec.GroupConfigChanges {
		cc := c
		cw.eng.At(max(cw.eng.NowMs(), cw.startMs+c.At.Milliseconds()), func() { cw.changeGroupConfig(s, cc) })
	}
}

// changeGroupConfig applies one change through the broker's admin path and
// makes the checks follow it.
func (cw *Sim) changeGroupConfig(s *sink, c GroupConfigChange) {
	w := cw.eng
	gc := cw.sb.GroupConfig(s.cfg.GroupID)
	if c.DeliveryCountLimit != 0 {
		gc.MaxDeliveryCount = c.DeliveryCountLimit
	}
	if c.RecordLockDuration != 0 {
		gc.RecordLockDurationMs = c.RecordLockDuration.Milliseconds()
	}
	if err := cw.sb.SetGroupConfig(s.cfg.GroupID, gc); err != nil {
		w.Violate("connect-config", fmt.Sprintf("%s: group config change refused: %v", s.cfg.Name, err))
		return
	}
	if gc.MaxDeliveryCount != 0 {
		s.limit = gc.MaxDeliveryCount
		s.minLimit = min(s.minLimit, s.limit)
	}
	if gc.RecordLockDurationMs != 0 {
		s.lockMs = gc.RecordLockDurationMs
	}
	w.Mark("share-group-config-changed")
	w.Trace(TraceTask, s.cfg.GroupID, s.cfg.Name, fmt.Sprintf("group config share.delivery.count.limit=%d share.record.lock.duration.ms=%d", s.limit, s.lockMs), 0)
	cw.dirty = true
	cw.touchGroup(s.cfg.GroupID)
}
