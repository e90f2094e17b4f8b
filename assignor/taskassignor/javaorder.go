package taskassignor

import "github.com/coordsim/coordsim/assignor/javaorder"

// Kafka 4.4's StickyTaskAssignor breaks ties by the iteration order of
// java.util.HashMaps keyed by member and process ids and by the heap layout
// of java.util.PriorityQueues whose comparators see only loads. Both are
// deterministic functions of the keys and of the insertion order, so they
// are reproduced here exactly instead of being replaced by an id order
// (which gave other assignments than Kafka's on ties: the difftest's
// streams-target-differs).

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
func JavaHashMapPutOrder(keys []string) []int { return javaorder.PutOrder(keys) }
