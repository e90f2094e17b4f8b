package share

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/kerr"
)

// TestNewBoundsGroupIDLikeSharebroker proves share.New and the persister
// refuse a group id longer than MaxGroupIDLength with INVALID_REQUEST, the
// bound sharebroker applies to its requests, and that the persister is left
// untouched; an id of exactly the bound is accepted.
func TestNewBoundsGroupIDLikeSharebroker(t *testing.T) {
	p := NewPersister()
	long := Key{Group: strings.Repeat("g", MaxGroupIDLength+1), Topic: "t", Partition: 0}
	_, err := New(long, kafkaTestConfig(), 0, p)
	require.ErrorIs(t, err, kerr.InvalidRequest)
	assert.Nil(t, p.get(long), "a refused key is never initialised")
	require.ErrorIs(t, p.Initialize(long, 0, 0), kerr.InvalidRequest)
	assert.Nil(t, p.get(long))

	ok := Key{Group: strings.Repeat("g", MaxGroupIDLength), Topic: "t", Partition: 0}
	_, err = New(ok, kafkaTestConfig(), 0, p)
	require.NoError(t, err)
	assert.NotNil(t, p.get(ok))
}
