package sim

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRangeAssign is RangeAssignorTest's one-topic cases: contiguous runs,
// the first members one more.
func TestRangeAssign(t *testing.T) {
	require.Equal(t, [][]int32{{0, 1}, {2}}, rangeAssign(2, 3))
	require.Equal(t, [][]int32{{0}, {1}, nil}, rangeAssign(3, 2))
	require.Equal(t, [][]int32{}, rangeAssign(0, 4))
}

// TestCooperativeStickyAssign: owners keep what fits their quota, and a
// partition that changes owner is withheld for the second round (the
// cooperative adjustment of AbstractStickyAssignor/ConsumerCoordinator).
func TestCooperativeStickyAssign(t *testing.T) {
	// A new member joins a group whose one member owns all four partitions:
	// the owner keeps two, the new member gets nothing yet.
	got := cooperativeStickyAssign([]classicMemberSub{{id: "a", owned: []int32{0, 1, 2, 3}}, {id: "b"}}, 4)
	require.Equal(t, [][]int32{{0, 1}, {}}, got)
	// The second round, after a revoked 2 and 3: b takes them.
	got = cooperativeStickyAssign([]classicMemberSub{{id: "a", owned: []int32{0, 1}}, {id: "b"}}, 4)
	require.Equal(t, [][]int32{{0, 1}, {2, 3}}, got)
	// Nobody owns anything: every partition is given at once, balanced.
	got = cooperativeStickyAssign([]classicMemberSub{{id: "a"}, {id: "b"}, {id: "c"}}, 4)
	require.Equal(t, [][]int32{{0, 3}, {1}, {2}}, got)
}
