package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/shard"
)

// TestServeMigrationPolicyFlag proves --consumer-migration-policy reaches
// the coordinators' configuration, case insensitive as Kafka reads
// group.consumer.migration.policy, BIDIRECTIONAL by default, and that an
// unknown policy exits with the usage code.
func TestServeMigrationPolicyFlag(t *testing.T) {
	for value, want := range map[string]shard.MigrationPolicy{
		"": shard.MigrationBidirectional, "upgrade": shard.MigrationUpgrade, "DOWNGRADE": shard.MigrationDowngrade,
		"Disabled": shard.MigrationDisabled, "bidirectional": shard.MigrationBidirectional,
	} {
		args := []string{"--listen", "127.0.0.1:0", "--http", "127.0.0.1:0"}
		if value != "" {
			args = append(args, "--consumer-migration-policy", value)
		}
		o, _, ok := parseServe(args, io.Discard, io.Discard)
		require.True(t, ok, value)
		assert.Equal(t, want, o.cfg.Coordinator.Classic.MigrationPolicy, value)
	}
	var stderr strings.Builder
	_, code, ok := parseServe([]string{"--consumer-migration-policy", "sideways"}, io.Discard, &stderr)
	assert.False(t, ok)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr.String(), "group.consumer.migration.policy")
}
