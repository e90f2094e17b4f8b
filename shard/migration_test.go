package shard

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRandomWorkloadsMigrate proves the random workloads of
// property_test.go (whose replay equality and index checks then cover
// them) reach online migration: upgrades of classic groups, classic
// members joining consumer groups, and downgrades.
func TestRandomWorkloadsMigrate(t *testing.T) {
	upgrades, classicMembers, downgrades := 0, 0, 0
	for seed := uint64(1); seed <= 40; seed++ {
		w := newWorkload(t, randChooser{rand.New(rand.NewPCG(seed, 0))}, fmt.Sprintf("seed=%d", seed), 300)
		for w.step = 0; w.step < 300; w.step++ {
			w.do()
		}
		for i, r := range w.h.log {
			switch r := r.(type) {
			case *ConsumerGroupMemberMetadata:
				if r.Classic != nil {
					classicMembers++
				}
			case *GroupMetadata:
				if i+1 < len(w.h.log) && r.Tombstone {
					if next, ok := w.h.log[i+1].(*ConsumerGroupMemberMetadata); ok && next.Classic != nil {
						upgrades++
					}
				}
			case *ConsumerGroupMetadata:
				if i+1 < len(w.h.log) && r.Tombstone {
					if next, ok := w.h.log[i+1].(*GroupMetadata); ok && !next.Tombstone && len(next.Members) > 0 {
						downgrades++
					}
				}
			}
		}
	}
	t.Logf("upgrades=%d classic member records=%d downgrades=%d", upgrades, classicMembers, downgrades)
	require.Positive(t, upgrades, "no upgrade")
	require.Positive(t, classicMembers, "no classic member in a consumer group")
	require.Positive(t, downgrades, "no downgrade")
}
