package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// TestSharedStoreKeepsFencing proves each broker's view of the shared store
// is still a FencedStore when the store is one (memstore is), so protocol
// v3, serve's default, fences plugin calls instead of running as v2; and
// that a broker's Close leaves the shared store open.
func TestSharedStoreKeepsFencing(t *testing.T) {
	store := memstore.New()
	shared := shareStore(store)
	_, fenced := plugin.AsFenced(shared)
	assert.True(t, fenced, "a fenced store stays fenced")
	assert.NoError(t, shared.Close())
	_, err := store.GetTopology(t.Context(), "g", 1)
	assert.NoError(t, err, "the shared store is still open")

	_, fenced = plugin.AsFenced(shareStore(unfenced{store}))
	assert.False(t, fenced, "an unfenced store is not made to look fenced")
}

// unfenced is a store written for Kafka's SPI alone.
type unfenced struct{ plugin.Store }
