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
// members joining consumer groups, and downgrades. And that an upgrade
// keeps what every classic member owns: each converted member holds
// exactly the partitions of its last classic assignment (those the image
// knows), so no client loses a partition it still consumes to another.
func TestRandomWorkloadsMigrate(t *testing.T) {
	upgrades, classicMembers, downgrades, kept := 0, 0, 0, 0
	for seed := uint64(1); seed <= 200; seed++ {
		w := newWorkload(t, randChooser{rand.New(rand.NewPCG(seed, 0))}, fmt.Sprintf("seed=%d", seed), 300)
		for w.step = 0; w.step < 300; w.step++ {
			before := classicAssignments(w.h.s)
			w.do()
			for group, owned := range before {
				g := w.h.s.lookup(group)
				if g == nil || g.typ != Consumer {
					continue // not upgraded by this step
				}
				for member, parts := range owned {
					if m := g.members[member]; m != nil && m.classic != nil {
						if len(parts) > 0 {
							kept++
						}
						require.Equal(t, parts, m.assigned, "seed %d step %d: %s/%s after the upgrade", seed, w.step, group, member)
					}
				}
			}
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
	t.Logf("upgrades=%d classic member records=%d downgrades=%d members converted with partitions=%d", upgrades, classicMembers, downgrades, kept)
	require.Positive(t, upgrades, "no upgrade")
	require.Positive(t, classicMembers, "no classic member in a consumer group")
	require.Positive(t, downgrades, "no downgrade")
	require.Positive(t, kept, "no upgrade converted a member that held partitions: the assignment check is vacuous")
}

// classicAssignments is every classic group member's assignment, decoded
// and filtered to the image's partitions, by group and member.
func classicAssignments(s *Shard) map[string]map[string][]TopicPartitions {
	out := map[string]map[string][]TopicPartitions{}
	s.groups.Ascend(func(g *group) bool {
		if g.typ != Classic || g.classic == nil {
			return true
		}
		byMember := map[string][]TopicPartitions{}
		for _, m := range g.classic.Members {
			parts, _, err := decodeAssignment(m.Assignment)
			if err != nil {
				return true
			}
			byMember[m.MemberID] = s.knownPartitions(parts)
		}
		out[g.id] = byMember
		return true
	})
	return out
}
