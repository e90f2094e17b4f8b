package wire

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/kerr"
)

// TestListGroupsFailure is GroupCoordinatorService.listGroups'
// mapExceptionally: a partition answering NOT_COORDINATOR (one that failed
// to load, or is being unloaded) is an empty list, any other error fails
// the whole listing.
func TestListGroupsFailure(t *testing.T) {
	failed := func(errs ...error) []coordinator.PartitionResult[struct{}] {
		var out []coordinator.PartitionResult[struct{}]
		for i, err := range errs {
			out = append(out, coordinator.PartitionResult[struct{}]{Partition: int32(i), Err: err})
		}
		return out
	}
	notCoordinator := kerr.NotCoordinator.WithMessage("partition 0 failed to load")
	loading := kerr.CoordinatorLoadInProgress.WithMessage("partition 1 is loading")
	assert.NoError(t, listingError(nil))
	assert.NoError(t, listingError(failed(notCoordinator, notCoordinator)))
	assert.Equal(t, loading, listingError(failed(notCoordinator, loading)))
	assert.Equal(t, loading, listingError(failed(loading, notCoordinator)))
}
