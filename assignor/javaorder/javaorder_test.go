package javaorder

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestStringMapOrder proves StringMapOrder is java.util.HashMap's
// iteration order, the expectations printed by JDK 17: two process ids
// that share a bucket in every table smaller than 16 come out in insertion
// order after put and reversed after computeIfAbsent (which links a new
// key at the bucket's head), and in hash order in a table of 16.
func TestStringMapOrder(t *testing.T) {
	keys := []string{"00000000-proc", "9e3779b1-proc"}
	assert.Equal(t, int32(1767288067), StringHash(keys[0]))
	assert.Equal(t, int32(-606118782), StringHash(keys[1]))
	for _, c := range []int{1, 2, 3, 4, 8} {
		assert.Equal(t, []int{1, 0}, StringMapOrder(keys, c, ComputeIfAbsent), "new HashMap(%d), computeIfAbsent", c)
		assert.Equal(t, []int{0, 1}, StringMapOrder(keys, c, Put), "new HashMap(%d), put", c)
	}
	assert.Equal(t, []int{0, 1}, StringMapOrder(keys, 0, ComputeIfAbsent), "new HashMap()")
	assert.Equal(t, []int{0, 1}, StringMapOrder(keys, 16, ComputeIfAbsent), "new HashMap(16)")
	// A present key is a no-op; non-ASCII hashes over UTF-16 units
	// ("é".hashCode() is 233, "😀".hashCode() is 1772899).
	assert.Equal(t, []int{0, 1}, StringMapOrder([]string{"a", "b", "a"}, 0, Put))
	assert.Equal(t, int32(233), StringHash("é"))
	assert.Equal(t, int32(1772899), StringHash("😀"))
}

// TestUUIDHashAndCompare proves UUIDHash and UUIDCompare are Uuid's
// hashCode and compareTo: Uuid(0x0123456789abcdef, 0xfedcba9876543210)
// hashes to 0xfedcba98^0x76543210 ^ 0x01234567^0x89abcdef = 0 (the halves
// cancel) in JDK 17, and a most significant long with the top bit set is
// negative, so it sorts first.
func TestUUIDHashAndCompare(t *testing.T) {
	id := [16]byte{0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef, 0xfe, 0xdc, 0xba, 0x98, 0x76, 0x54, 0x32, 0x10}
	assert.Equal(t, int32(0), UUIDHash(id))
	one := [16]byte{15: 1} // Uuid(0, 1): hashCode 1
	assert.Equal(t, int32(1), UUIDHash(one))
	high := [16]byte{0: 0x80}
	assert.Equal(t, -1, UUIDCompare(high, one))
	assert.Equal(t, 1, UUIDCompare(one, [16]byte{}))
	assert.Equal(t, 0, UUIDCompare(one, one))
}

// TestSetCopyCapacity is HashSet(Collection)'s sizing: 16 up to 11
// elements, then n/.75+1.
func TestSetCopyCapacity(t *testing.T) {
	assert.Equal(t, 16, SetCopyCapacity(0))
	assert.Equal(t, 16, SetCopyCapacity(11))
	assert.Equal(t, 17, SetCopyCapacity(12))
	assert.Equal(t, 32, TableSizeFor(SetCopyCapacity(12)))
}
