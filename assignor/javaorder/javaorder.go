// Package javaorder reproduces the iteration orders of java.util.HashMap
// and HashSet and the hash codes and ordering of the Java keys Kafka's
// assignors put in them (String, Uuid).
//
// Kafka's assignors break ties by those orders: the members of a target
// computation are visited in the order of a HashMap of their ids
// (TargetAssignmentBuilder's member specs), and the uniform assignor
// visits topics in the order of HashSets and HashMaps of topic ids. The
// orders are deterministic functions of the keys, the insertion order and
// the table's capacity, so they are computed here exactly rather than
// replaced by a sorted order, which gives other assignments than Kafka's
// on ties.
package javaorder

import (
	"cmp"
	"encoding/binary"
	"slices"
	"unicode/utf16"
)

// StringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... over the
// UTF-16 code units, in 32-bit two's complement.
func StringHash(s string) int32 {
	var h int32
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x80 {
			h = 31*h + int32(c)
			continue
		}
		// Not ASCII: hash the rest as UTF-16, as Java stores it.
		for _, u := range utf16.Encode([]rune(s[i:])) {
			h = 31*h + int32(u)
		}
		return h
	}
	return h
}

// UUIDHash is org.apache.kafka.common.Uuid.hashCode of the id whose 16
// bytes are id (most significant long first, big-endian, as Kafka writes
// it): the two halves of msb^lsb xored.
func UUIDHash(id [16]byte) int32 {
	x := binary.BigEndian.Uint64(id[:8]) ^ binary.BigEndian.Uint64(id[8:])
	return int32(x>>32) ^ int32(x)
}

// UUIDCompare is Uuid.compareTo: the most significant longs compared as
// signed numbers, then the least significant ones.
func UUIDCompare(a, b [16]byte) int {
	return cmp.Or(
		cmp.Compare(int64(binary.BigEndian.Uint64(a[:8])), int64(binary.BigEndian.Uint64(b[:8]))),
		cmp.Compare(int64(binary.BigEndian.Uint64(a[8:])), int64(binary.BigEndian.Uint64(b[8:]))))
}

// Insert is how keys go into a java.util.HashMap.
type Insert int

const (
	// Put appends a new key to the tail of its bucket and resizes after
	// the insertion that passes the threshold (put, putIfAbsent, add).
	Put Insert = iota
	// ComputeIfAbsent puts a new key at the head of its bucket and
	// resizes before a call (for a present key too) that finds the size
	// past the threshold.
	ComputeIfAbsent
)

// HashMapOrder returns the iteration order of a java.util.HashMap whose
// keys, with Java hash codes hashes, were inserted in that order by how:
// the indices of the distinct keys (same[i] true when key i equals an
// earlier key, nil when all are distinct), by bucket, and within a bucket
// by insertion for Put and against it for ComputeIfAbsent (a resize
// splits a bucket keeping the relative order). initialCapacity is the
// constructor's argument, 0 for new HashMap(). A bucket reaching 9 keys
// in a table smaller than 64 resizes it, as treeifyBin does; real tree
// bins (tables of 64 and more) are not modelled: they need 9 keys in one
// bucket of such a table.
func HashMapOrder(hashes []int32, same []bool, initialCapacity int, how Insert) []int {
	const defaultCapacity, treeifyThreshold, minTreeifyCapacity = 16, 8, 64
	capacity, threshold := 0, 0
	if initialCapacity > 0 {
		threshold = TableSizeFor(initialCapacity)
	}
	ints := make([]int, 2*len(hashes))
	order := ints[:0:len(hashes)] // distinct keys, insertion order
	// Their spread hashes, then the keys per bucket of the current table,
	// sized for the largest table the keys can need (a treeifyBin resize
	// past it, which takes 9 equal buckets, reallocates).
	words := make([]uint32, len(hashes)+max(2*TableSizeFor(int(float32(len(hashes))/0.75)+1), threshold, 16))
	spread, buf := words[:0:len(hashes)], words[len(hashes):]
	var inBucket []uint32
	rebucket := func() {
		if capacity > len(buf) {
			buf = make([]uint32, capacity)
		}
		inBucket = buf[:capacity]
		clear(inBucket)
		for _, h := range spread {
			inBucket[h&uint32(capacity-1)]++
		}
	}
	resize := func() {
		if capacity == 0 {
			capacity = defaultCapacity
			if threshold > 0 {
				capacity = threshold
			}
			threshold = int(float32(capacity) * 0.75)
			rebucket()
			return
		}
		old := capacity
		capacity <<= 1
		if old >= defaultCapacity {
			threshold <<= 1
		} else {
			threshold = int(float32(capacity) * 0.75)
		}
		rebucket()
	}
	for i, k := range hashes {
		if how == ComputeIfAbsent && (capacity == 0 || len(order) > threshold) {
			resize()
		}
		if same != nil && same[i] {
			continue
		}
		h := uint32(k)
		h ^= h >> 16
		if capacity == 0 {
			resize()
		}
		b := h & uint32(capacity-1)
		// With 8 keys in the bucket already, treeifyBin resizes a small
		// table instead.
		full := inBucket[b] >= treeifyThreshold
		order = append(order, i)
		spread = append(spread, h)
		inBucket[b]++
		if full && capacity < minTreeifyCapacity {
			resize()
		}
		if how == Put && len(order) > threshold {
			resize()
		}
	}
	idx := ints[len(hashes) : len(hashes)+len(order)]
	for i := range idx {
		idx[i] = i
	}
	mask := uint32(capacity - 1)
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(spread[a]&mask, spread[b]&mask); c != 0 || how == Put {
			return cmp.Or(c, cmp.Compare(a, b))
		}
		return cmp.Compare(b, a)
	})
	for i, x := range idx {
		idx[i] = order[x]
	}
	return idx
}

// StringMapOrder is HashMapOrder for String keys, equal keys found by
// value.
func StringMapOrder(keys []string, initialCapacity int, how Insert) []int {
	hashes := make([]int32, len(keys))
	var same []bool
	seen := make(map[string]bool, len(keys)) // looked up only
	for i, k := range keys {
		hashes[i] = StringHash(k)
		if seen[k] {
			if same == nil {
				same = make([]bool, len(keys))
			}
			same[i] = true
		}
		seen[k] = true
	}
	return HashMapOrder(hashes, same, initialCapacity, how)
}

// PutOrder is the iteration order of a new java.util.HashMap (default
// capacity) the String keys were put into, in that order: the indices of
// the distinct keys. TargetAssignmentBuilder's member specs are such a
// map, so Kafka's assignors visit members in this order.
func PutOrder(keys []string) []int { return StringMapOrder(keys, 0, Put) }

// DistinctStringMapOrder is StringMapOrder for keys known to be distinct
// (an assignor's member ids, topic names), without looking for equal ones.
func DistinctStringMapOrder(keys []string, initialCapacity int, how Insert) []int {
	hashes := make([]int32, len(keys))
	for i, k := range keys {
		hashes[i] = StringHash(k)
	}
	return HashMapOrder(hashes, nil, initialCapacity, how)
}

// SetCopyCapacity is the initial capacity new HashSet<>(c) gives its
// table for a collection of n elements: max(n/.75+1, 16).
func SetCopyCapacity(n int) int { return max(int(float32(n)/0.75)+1, 16) }

// TableSizeFor is HashMap.tableSizeFor: the smallest power of two >= c,
// at least 1.
func TableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}
