package connect

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// Every sink kind (and consumer-sink protocol) against every existing group
// type: a sink starts only on a group it can join, and a refusal carries
// the answer the broker would give its first request.
func TestValidateGroupMatrix(t *testing.T) {
	shareSink := mustResolve(t, nil, connectorProps("consumer.override.group.protocol", "share"))
	classicSink := mustResolve(t, nil, connectorProps())
	consumerSink := mustResolve(t, nil, connectorProps("consumer.override.group.protocol", "consumer"))
	cases := []struct {
		name     string
		cfg      SinkConfig
		existing GroupType
		answer   *kerr.Error // nil = starts
	}{
		{"share sink, no group", shareSink, GroupNone, nil},
		{"share sink, consumer group", shareSink, GroupConsumer, kerr.GroupIDNotFound},
		{"share sink, classic group", shareSink, GroupClassic, kerr.GroupIDNotFound},
		{"share sink, share group", shareSink, GroupShare, nil},
		{"share sink, streams group", shareSink, GroupStreams, kerr.GroupIDNotFound},

		{"consumer-protocol sink, no group", consumerSink, GroupNone, nil},
		{"consumer-protocol sink, consumer group", consumerSink, GroupConsumer, nil},
		{"consumer-protocol sink, classic group", consumerSink, GroupClassic, nil},
		{"consumer-protocol sink, share group", consumerSink, GroupShare, kerr.GroupIDNotFound},
		{"consumer-protocol sink, streams group", consumerSink, GroupStreams, kerr.GroupIDNotFound},

		{"classic sink, no group", classicSink, GroupNone, nil},
		{"classic sink, consumer group", classicSink, GroupConsumer, nil},
		{"classic sink, classic group", classicSink, GroupClassic, nil},
		{"classic sink, share group", classicSink, GroupShare, kerr.InconsistentGroupProtocol},
		{"classic sink, streams group", classicSink, GroupStreams, kerr.InconsistentGroupProtocol},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateGroup(tc.cfg, tc.existing)
			if tc.answer == nil {
				assert.NoError(t, err)
				return
			}
			var gc *GroupCollisionError
			require.True(t, errors.As(err, &gc), "want *GroupCollisionError, got %T: %v", err, err)
			assert.Equal(t, GroupCollisionError{GroupID: "connect-orders-sink", Existing: tc.existing, Wanted: tc.cfg.Kind, Answer: tc.answer}, *gc)
			assert.ErrorIs(t, err, tc.answer)
			assert.Contains(t, err.Error(), "group connect-orders-sink already exists as a "+string(tc.existing)+" group")
			assert.Contains(t, err.Error(), "a "+tc.cfg.Kind.String()+" sink needs a new group id")
			assert.Contains(t, err.Error(), tc.answer.Name)
		})
	}
}

// The message is the operator's instruction, spelled out in full once.
func TestValidateGroupMessage(t *testing.T) {
	cfg := mustResolve(t, nil, connectorProps("name", "x", "consumer.override.group.protocol", "share"))
	err := ValidateGroup(cfg, GroupConsumer)
	assert.EqualError(t, err, "group connect-x already exists as a consumer group; a share sink needs a new group id (consumer.override.group.id) or the consumer group deleted (the broker would answer GROUP_ID_NOT_FOUND). "+
		"To delete it: kafka-consumer-groups.sh --bootstrap-server <broker> --delete --group connect-x (Admin.deleteConsumerGroups; its committed offsets are lost: to start the share sink there, alter the new share group's offsets from them first)")
	assert.ErrorIs(t, err, kerr.GroupIDNotFound)
}

// TestValidateGroupRollbackMessage is KIP-1302's rollback: the connector
// drops group.protocol=share and keeps its default connect-<name> id, which
// the share group it left behind still holds. The refusal names exactly
// the admin step that resolves it.
func TestValidateGroupRollbackMessage(t *testing.T) {
	cfg := mustResolve(t, nil, connectorProps("name", "x"))
	err := ValidateGroup(cfg, GroupShare)
	assert.ErrorIs(t, err, kerr.InconsistentGroupProtocol, "a classic JoinGroup on a share group")
	assert.Contains(t, err.Error(), "group connect-x already exists as a share group")
	assert.Contains(t, err.Error(), "kafka-share-groups.sh --bootstrap-server <broker> --delete --group connect-x")
	assert.Contains(t, err.Error(), "Admin.deleteShareGroups")
	assert.Contains(t, err.Error(), "must be EMPTY")
}

// A config that did not come from Resolve, or a group type the cluster
// cannot report, is the caller's bug: INVALID_REQUEST, not a collision.
func TestValidateGroupBadInput(t *testing.T) {
	good := mustResolve(t, nil, connectorProps())
	for _, tc := range []struct {
		name     string
		cfg      SinkConfig
		existing GroupType
	}{
		{"zero config", SinkConfig{}, GroupNone},
		{"unknown kind", SinkConfig{Kind: 9}, GroupShare},
		{"unknown group type", good, "Share"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateGroup(tc.cfg, tc.existing)
			assert.ErrorIs(t, err, kerr.InvalidRequest)
			var gc *GroupCollisionError
			assert.False(t, errors.As(err, &gc))
		})
	}
	// A hand-built collision without an answer unwraps to nothing rather
	// than to a typed nil.
	assert.Nil(t, (&GroupCollisionError{GroupID: "g", Existing: GroupShare, Wanted: ConsumerSink}).Unwrap())
}
