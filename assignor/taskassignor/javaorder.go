package taskassignor

import (
	"cmp"
	"slices"
	"unicode/utf16"
)

// Kafka 4.4's StickyTaskAssignor breaks ties by the iteration order of
// java.util.HashMaps keyed by member and process ids and by the heap layout
// of java.util.PriorityQueues whose comparators see only loads. Both are
// deterministic functions of the keys and of the insertion order, so they
// are reproduced here exactly instead of being replaced by an id order
// (which gave other assignments than Kafka's on ties: the difftest's
// streams-target-differs).

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... over
// the UTF-16 code units, in 32-bit two's complement.
func javaStringHash(s string) int32 {
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

// hashMapInsert is how keys go into a java.util.HashMap.
type hashMapInsert int

const (
	// put appends a new key to the tail of its bucket and resizes after
	// the insertion that passes the threshold.
	put hashMapInsert = iota
	// computeIfAbsent puts a new key at the head of its bucket and
	// resizes before a call (for a present key too) that finds the size
	// past the threshold.
	computeIfAbsent
)

// javaHashMapOrder returns the iteration order of a java.util.HashMap the
// keys were inserted into, in that order, by how (a present key is a
// no-op but for computeIfAbsent's resize check): the indices of the
// distinct keys, by bucket, and within a bucket by insertion for put and
// against it for computeIfAbsent (a resize splits a bucket keeping the
// relative order). initialCapacity is the constructor's argument, 0 for
// new HashMap(). A bucket reaching 9 keys in a table smaller than 64
// resizes it, as treeifyBin does; real tree bins (tables of 64 and more)
// are not modelled: a group would need 9 ids in one bucket of them.
func javaHashMapOrder(keys []string, initialCapacity int, how hashMapInsert) []int {
	const defaultCapacity, treeifyThreshold, minTreeifyCapacity = 16, 8, 64
	var order []int // distinct keys, insertion order
	hashes := make([]uint32, 0, len(keys))
	seen := make(map[string]bool, len(keys)) // looked up only
	capacity, threshold := 0, 0
	if initialCapacity > 0 {
		threshold = tableSizeFor(initialCapacity)
	}
	resize := func() {
		if capacity == 0 {
			capacity = defaultCapacity
			if threshold > 0 {
				capacity = threshold
			}
			threshold = int(float32(capacity) * 0.75)
			return
		}
		old := capacity
		capacity <<= 1
		if old >= defaultCapacity {
			threshold <<= 1
		} else {
			threshold = int(float32(capacity) * 0.75)
		}
	}
	for i, k := range keys {
		if how == computeIfAbsent && (capacity == 0 || len(order) > threshold) {
			resize()
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		h := uint32(javaStringHash(k))
		h ^= h >> 16
		if capacity == 0 {
			resize()
		}
		// With 8 keys in the bucket already, treeifyBin resizes a small
		// table instead.
		inBucket := 0
		for _, x := range hashes {
			if x&uint32(capacity-1) == h&uint32(capacity-1) {
				inBucket++
			}
		}
		order = append(order, i)
		hashes = append(hashes, h)
		if inBucket >= treeifyThreshold && capacity < minTreeifyCapacity {
			resize()
		}
		if how == put && len(order) > threshold {
			resize()
		}
	}
	idx := make([]int, len(order))
	for i := range idx {
		idx[i] = i
	}
	mask := uint32(capacity - 1)
	slices.SortFunc(idx, func(a, b int) int {
		if c := cmp.Compare(hashes[a]&mask, hashes[b]&mask); c != 0 || how == put {
			return cmp.Or(c, cmp.Compare(a, b))
		}
		return cmp.Compare(b, a)
	})
	out := make([]int, len(idx))
	for i, x := range idx {
		out[i] = order[x]
	}
	return out
}

// tableSizeFor is HashMap.tableSizeFor: the smallest power of two >= c,
// at least 1.
func tableSizeFor(c int) int {
	n := 1
	for n < c {
		n <<= 1
	}
	return n
}

// javaPQ is java.util.PriorityQueue with a comparator: the same binary
// heap, sift for sift, so elements that compare equal come out in Java's
// order.
type javaPQ[T any] struct {
	es  []T
	cmp func(a, b T) int
}

// add is PriorityQueue.add (offer, siftUpUsingComparator).
func (q *javaPQ[T]) add(x T) {
	k := len(q.es)
	q.es = append(q.es, x)
	for k > 0 {
		parent := (k - 1) >> 1
		e := q.es[parent]
		if q.cmp(x, e) >= 0 {
			break
		}
		q.es[k] = e
		k = parent
	}
	q.es[k] = x
}

// poll is PriorityQueue.poll: the head, false when empty.
func (q *javaPQ[T]) poll() (T, bool) {
	var zero T
	if len(q.es) == 0 {
		return zero, false
	}
	result := q.es[0]
	n := len(q.es) - 1
	x := q.es[n]
	q.es[n] = zero
	q.es = q.es[:n]
	if n > 0 {
		q.siftDown(0, x, n)
	}
	return result, true
}

// siftDown is siftDownUsingComparator.
func (q *javaPQ[T]) siftDown(k int, x T, n int) {
	half := n >> 1
	for k < half {
		child := 2*k + 1
		c := q.es[child]
		if right := child + 1; right < n && q.cmp(c, q.es[right]) > 0 {
			child = right
			c = q.es[child]
		}
		if q.cmp(x, c) <= 0 {
			break
		}
		q.es[k] = c
		k = child
	}
	q.es[k] = x
}

// JavaHashMapPutOrder is the iteration order of a new java.util.HashMap
// (default capacity) the keys were put into, in that order: the indices of
// the distinct keys. Kafka's share-group simple assignor numbers its
// members so (TargetAssignmentBuilder's HashMap of member specs).
func JavaHashMapPutOrder(keys []string) []int { return javaHashMapOrder(keys, 0, put) }
