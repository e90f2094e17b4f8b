package shard

import (
	"strings"

	"github.com/coordsim/coordsim/kerr"
)

// Online migration between classic and consumer groups (KIP-848's
// upgrade and downgrade paths): the broker setting and the classic
// metadata a consumer group keeps for its classic members. The
// conversions are migration_upgrade.go and migration_downgrade.go, the
// classic requests to a consumer group migration_members.go.

// MigrationPolicy is group.consumer.migration.policy (Kafka's
// ConsumerGroupMigrationPolicy): which online conversions the coordinator
// performs. The zero value is Kafka's default, BIDIRECTIONAL.
type MigrationPolicy uint8

// The policies, Kafka's names.
const (
	// MigrationBidirectional upgrades a classic group when a
	// consumer-protocol member joins it and downgrades a consumer group
	// when its last consumer-protocol member leaves.
	MigrationBidirectional MigrationPolicy = iota
	// MigrationUpgrade upgrades only.
	MigrationUpgrade
	// MigrationDowngrade downgrades only.
	MigrationDowngrade
	// MigrationDisabled converts no group that has members.
	MigrationDisabled
)

func (p MigrationPolicy) String() string {
	switch p {
	case MigrationBidirectional:
		return "BIDIRECTIONAL"
	case MigrationUpgrade:
		return "UPGRADE"
	case MigrationDowngrade:
		return "DOWNGRADE"
	case MigrationDisabled:
		return "DISABLED"
	}
	return "UNKNOWN"
}

// ParseMigrationPolicy reads a group.consumer.migration.policy value, case
// insensitive as Kafka's ConfigDef.CaseInsensitiveValidString.
func ParseMigrationPolicy(s string) (MigrationPolicy, error) {
	for _, p := range [...]MigrationPolicy{MigrationBidirectional, MigrationUpgrade, MigrationDowngrade, MigrationDisabled} {
		if strings.EqualFold(s, p.String()) {
			return p, nil
		}
	}
	return 0, kerr.InvalidConfig.WithMessage("Invalid value %s for configuration group.consumer.migration.policy: String must be one of (case insensitive): DISABLED, DOWNGRADE, UPGRADE, BIDIRECTIONAL", s)
}

// upgradeEnabled is ConsumerGroupMigrationPolicy.isUpgradeEnabled.
func (p MigrationPolicy) upgradeEnabled() bool {
	return p == MigrationBidirectional || p == MigrationUpgrade
}

// downgradeEnabled is ConsumerGroupMigrationPolicy.isDowngradeEnabled.
func (p MigrationPolicy) downgradeEnabled() bool {
	return p == MigrationBidirectional || p == MigrationDowngrade
}

// ClassicMemberMetadata is ConsumerGroupMemberMetadataValue's
// ClassicMemberMetadata: a consumer group member that speaks the classic
// protocol (JoinGroup, SyncGroup, Heartbeat) keeps its session timeout and
// its supported protocols, in its order of preference, so that the group
// can answer its requests and turn it back into a classic member on a
// downgrade. Nil on a member that uses the consumer protocol.
type ClassicMemberMetadata struct {
	SessionTimeoutMs   int32
	SupportedProtocols []ClassicProtocol
}

// protocolName is the member's first protocol: the one its JoinGroup
// answer names (classicGroupJoinToConsumerGroup).
func (c *ClassicMemberMetadata) protocolName() string {
	if c == nil || len(c.SupportedProtocols) == 0 {
		return ""
	}
	return c.SupportedProtocols[0].Name
}
