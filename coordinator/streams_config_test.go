package coordinator_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/coordinator/coordtest"
	"github.com/coordsim/coordsim/kerr"
)

// TestSetStreamsGroupConfig proves a streams group's
// streams.num.standby.replicas is kept within Kafka's bounds: bad input is
// refused with Kafka's error and changes nothing; nil removes the value.
func TestSetStreamsGroupConfig(t *testing.T) {
	c, err := coordinator.New(coordinator.DefaultConfig(), coordinator.Options{Clock: coordtest.NewClock(coordtest.Epoch)})
	require.NoError(t, err)
	n := func(v int32) *int32 { return &v }

	require.NoError(t, c.SetStreamsGroupConfig("app", coordinator.StreamsGroupConfig{NumStandbyReplicas: n(2)}))
	assert.Equal(t, n(2), c.StreamsGroupConfig("app").NumStandbyReplicas)

	for _, bad := range []struct {
		group string
		value int32
		want  error
	}{
		{"", 1, kerr.InvalidGroupID},
		{"app", -1, kerr.InvalidConfig},
		{"app", 3, kerr.InvalidConfig}, // above group.streams.max.standby.replicas (2)
	} {
		err := c.SetStreamsGroupConfig(bad.group, coordinator.StreamsGroupConfig{NumStandbyReplicas: n(bad.value)})
		require.ErrorIs(t, err, bad.want, "%q=%d", bad.group, bad.value)
		assert.Equal(t, n(2), c.StreamsGroupConfig("app").NumStandbyReplicas, "unchanged")
	}

	require.NoError(t, c.SetStreamsGroupConfig("app", coordinator.StreamsGroupConfig{}))
	assert.Nil(t, c.StreamsGroupConfig("app").NumStandbyReplicas, "removed")
	assert.Nil(t, c.StreamsGroupConfig("other").NumStandbyReplicas)
}
