package difftest

import (
	"maps"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/coordinator"
	"github.com/coordsim/coordsim/groupconfig"
)

// The generator's group configs reach both outcomes: configs that
// validate, configs refused, and removals, in the groups it drives.
func TestGeneratorDrawsGroupConfigs(t *testing.T) {
	b := coordinator.DefaultConfig().GroupConfigBounds()
	maps.Copy(b.Ranges, groupconfig.ShareRanges())
	valid, refused, removed := 0, 0, 0
	for seed := uint64(1); seed <= 100; seed++ {
		g := newGenerator(seed, GenConfig{})
		g.first()
		for range 200 {
			op, ok := g.next().(SetGroupConfig)
			if !ok {
				continue
			}
			switch _, err := groupconfig.Parse(op.Props, b); {
			case len(op.Props) == 0:
				removed++
			case err != nil:
				refused++
			default:
				valid++
			}
		}
	}
	t.Logf("group configs: %d valid, %d refused, %d removals", valid, refused, removed)
	require.Positive(t, valid)
	require.Positive(t, refused)
	require.Positive(t, removed)
}
