package sim_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/sim"
)

// TestRetriableReleaseArchivedAtLimitCountsAsLost proves the loss class of
// issue 14: under heavy transient put() failures RELEASE-at-once (KIP-1302)
// drives records to the delivery limit; without a dead-letter queue the
// broker archives them and nobody keeps their data. They are counted as
// lost at the delivery limit (not as an invariant-8 loss), every offset is
// classified once, and a DLQ'd run counts none.
func TestRetriableReleaseArchivedAtLimitCountsAsLost(t *testing.T) {
	run := func(dlq string) sim.SinkResult {
		c := shareSink("s", "2")
		c.PutRetriableProb = 0.6
		c.BrokerDLQ = dlq
		o := connectOptions(1, 10*time.Minute, map[string]int32{"t": 2}, []sim.Producer{{Topic: "t", RatePerSec: 20, BatchRecords: 5}}, c)
		o.Connect.DeliveryCountLimit = 3
		r, err := sim.Run(o, nil)
		require.NoError(t, err)
		require.Nil(t, r.Violation, "%+v", r.Violation)
		s := sinkNamed(t, r, "s")
		t.Logf("dlq %q: produced %d, unique %d, archived %d, lost at limit %d, dead-lettered %d", dlq, r.Produced, s.Unique, s.Archived, s.LostAtLimit, s.DeadLettered)
		assert.Zero(t, s.Lost+s.Undelivered)
		assert.Equal(t, r.Produced, s.Unique+s.Archived, "every record put, or archived at the limit unput")
		return s
	}
	noDLQ := run("")
	assert.Positive(t, noDLQ.LostAtLimit, "60 %% transient failures with limit 3 archive records")
	assert.Zero(t, noDLQ.LostRejected)
	assert.Equal(t, noDLQ.Archived, noDLQ.LostAtLimit, "no archived record was ever put")
	withDLQ := run("dlq.s")
	assert.Zero(t, withDLQ.LostAtLimit+withDLQ.LostRejected, "a DLQ keeps them")
	assert.Positive(t, withDLQ.DeadLettered)
}
