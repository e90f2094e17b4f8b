package sim

import "fmt"

// checkShareInFlight holds every cached share-partition's in-flight window
// (SPEO − SPSO + 1) to share.partition.max.record.locks (17). The limit is
// soft in Kafka: an acquisition that starts under it takes whole log
// batches, so the window may pass it by less than one produced batch.
func (c *checker) checkShareInFlight() {
	if c.w.cw == nil {
		return
	}
	sb := c.w.cw.ShareBroker()
	if c.maxBatch == 0 {
		c.maxBatch = 1
		for _, p := range c.w.opts.Connect.Producers {
			c.maxBatch = max(c.maxBatch, int64(p.BatchRecords))
		}
	}
	for _, k := range sb.Keys() {
		sp, ok := sb.Partition(k)
		if !ok || !sp.Initialized() {
			continue
		}
		limit, n := sp.Config().MaxInFlightRecords, sp.InFlightCount()
		if n >= limit {
			c.w.mark("share-in-flight-cap-reached")
		}
		if n > limit-1+c.maxBatch {
			c.w.violate(InvShareInFlightCapped, fmt.Sprintf("%s/%s-%d has %d records in flight; the limit is %d (soft by one batch of at most %d)",
				k.Group, k.Topic, k.Partition, n, limit, c.maxBatch))
			return
		}
	}
}
