package coordinator_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
)

// TestValidateGroupLivenessKeys proves that each group type's session and
// heartbeat checks name that type's own keys: a heartbeat interval equal to
// the session timeout is refused under group.<type>.heartbeat.interval.ms,
// citing group.<type>.session.timeout.ms, and a minimum session timeout
// under a millisecond under group.<type>.min.session.timeout.ms.
func TestValidateGroupLivenessKeys(t *testing.T) {
	type knobs struct{ session, minSession, heartbeat, maxHeartbeat *time.Duration }
	for group, of := range map[string]func(c *coordinator.Config) knobs{
		"consumer": func(c *coordinator.Config) knobs {
			return knobs{&c.ConsumerSessionTimeout, &c.ConsumerMinSessionTimeout, &c.ConsumerHeartbeatInterval, &c.ConsumerMaxHeartbeatInterval}
		},
		"streams": func(c *coordinator.Config) knobs {
			return knobs{&c.StreamsSessionTimeout, &c.StreamsMinSessionTimeout, &c.StreamsHeartbeatInterval, &c.StreamsMaxHeartbeatInterval}
		},
		"share": func(c *coordinator.Config) knobs {
			return knobs{&c.ShareSessionTimeout, &c.ShareMinSessionTimeout, &c.ShareHeartbeatInterval, &c.ShareMaxHeartbeatInterval}
		},
	} {
		cfg := coordinator.DefaultConfig()
		k := of(&cfg)
		*k.maxHeartbeat, *k.heartbeat = *k.session, *k.session
		var ce *coordinator.ConfigError
		require.ErrorAs(t, cfg.Validate(), &ce, group)
		require.Equal(t, "group."+group+".heartbeat.interval.ms", ce.Key)
		require.Contains(t, ce.Reason, "group."+group+".session.timeout.ms")

		cfg = coordinator.DefaultConfig()
		*of(&cfg).minSession = 0
		require.ErrorAs(t, cfg.Validate(), &ce, group)
		require.Equal(t, "group."+group+".min.session.timeout.ms", ce.Key)
	}
}
