package javaorder

// HashMap models the table of a java.util.HashMap step by step, for maps
// whose order depends on how they were filled: put appends a new key to
// its bucket, compute and computeIfAbsent link it at the bucket's head,
// and each resizes when Java's would. hash is the key's Java hashCode.
// Tree bins are not modelled (they need 9 keys in one bucket).
type HashMap[K comparable] struct {
	hash      func(K) int32
	buckets   [][]K // nil until the first insertion, as Java's table
	threshold int   // the initial capacity while buckets is nil
	size      int
}

// NewHashMap is new HashMap<>(initialCapacity) (0: new HashMap<>()).
func NewHashMap[K comparable](hash func(K) int32, initialCapacity int) *HashMap[K] {
	h := &HashMap[K]{hash: hash}
	if initialCapacity > 0 {
		h.threshold = TableSizeFor(initialCapacity)
	}
	return h
}

// NewHashMapCopy is new HashMap<>(m) for a map m of String keys, iterated
// in the order given: the table sized for them (putMapEntries), then each
// put.
func NewHashMapCopy(keys []string) *HashMap[string] {
	h := &HashMap[string]{hash: StringHash}
	if len(keys) > 0 {
		h.threshold = TableSizeFor(int(float32(len(keys))/0.75 + 1))
	}
	for _, k := range keys {
		h.Put(k)
	}
	return h
}

// Put is put of a new key (a present key keeps its place).
func (h *HashMap[K]) Put(key K) {
	if h.buckets == nil {
		h.resize()
	}
	b := h.bucket(key)
	for _, k := range h.buckets[b] {
		if k == key {
			return
		}
	}
	h.buckets[b] = append(h.buckets[b], key)
	h.size++
	if h.size > h.threshold {
		h.resize()
	}
}

// Compute is compute (or computeIfAbsent) giving key a value: a new key
// goes to the head of its bucket, after the resize Java does first when
// the map is already past its threshold.
func (h *HashMap[K]) Compute(key K) {
	if h.buckets == nil || h.size > h.threshold {
		h.resize()
	}
	b := h.bucket(key)
	for _, k := range h.buckets[b] {
		if k == key {
			return
		}
	}
	h.buckets[b] = append([]K{key}, h.buckets[b]...)
	h.size++
}

// Remove is remove (or a compute returning null, or an iterator's
// remove): the other keys keep their order.
func (h *HashMap[K]) Remove(key K) {
	if h.buckets == nil {
		return
	}
	b := h.bucket(key)
	for i, k := range h.buckets[b] {
		if k == key {
			h.buckets[b] = append(h.buckets[b][:i:i], h.buckets[b][i+1:]...)
			h.size--
			return
		}
	}
}

// Len is the number of keys.
func (h *HashMap[K]) Len() int { return h.size }

// Keys returns the keys in iteration order.
func (h *HashMap[K]) Keys() []K {
	out := make([]K, 0, h.size)
	for _, b := range h.buckets {
		out = append(out, b...)
	}
	return out
}

func (h *HashMap[K]) bucket(key K) int {
	x := uint32(h.hash(key))
	return int((x ^ x>>16) & uint32(len(h.buckets)-1))
}

// resize is HashMap.resize: the first table takes the initial capacity
// (16 without one), later ones double; a bucket splits in two keeping
// its keys' relative order, so rebucketing in iteration order is exact.
func (h *HashMap[K]) resize() {
	const defaultCapacity = 16
	if h.buckets == nil {
		capacity := defaultCapacity
		if h.threshold > 0 {
			capacity = h.threshold
		}
		h.buckets = make([][]K, capacity)
		h.threshold = int(float32(capacity) * 0.75)
		return
	}
	old := h.Keys()
	capacity := 2 * len(h.buckets)
	if len(h.buckets) >= defaultCapacity {
		h.threshold <<= 1
	} else {
		h.threshold = int(float32(capacity) * 0.75)
	}
	h.buckets = make([][]K, capacity)
	for _, k := range old {
		b := h.bucket(k)
		h.buckets[b] = append(h.buckets[b], k)
	}
}

// RecordHash is the hashCode Java gives a record of two components with
// hash codes a and b (ObjectMethods: 31 * a + b), Kafka's TopicIdPartition
// (topicId, partitionId) among them.
func RecordHash(a, b int32) int32 { return 31*a + b }

// TimelineOrder is the iteration order of Kafka's TimelineHashMap (new
// TimelineHashMap<>(registry, 0)) the keys were added to in that order,
// none removed: BaseHashTable's open table of slots chosen by Fibonacci
// hashing of the key's hashCode, at least 2 slots, doubled before an
// insertion would pass 3/4; a slot holding several keys keeps them in
// insertion order and its iterator hands them out last first.
func TimelineOrder(keys []string) []int {
	slots := make([][]int, 2)
	for i := range keys {
		if TimelineGrows(i, len(slots)) {
			next := make([][]int, 2*len(slots))
			for _, s := range slots {
				for _, k := range s {
					j := timelineSlot(keys[k], len(next))
					next[j] = append(next[j], k)
				}
			}
			slots = next
		}
		j := timelineSlot(keys[i], len(slots))
		slots[j] = append(slots[j], i)
	}
	out := make([]int, 0, len(keys))
	for _, s := range slots {
		for k := len(s) - 1; k >= 0; k-- {
			out = append(out, s[k])
		}
	}
	return out
}

// TimelineSlot is the slot BaseHashTable.findSlot gives a String key in a
// TimelineHashMap of n slots (a power of two, at least 2).
func TimelineSlot(key string, n int) int { return timelineSlot(key, n) }

// TimelineGrows reports whether a TimelineHashMap of size keys and n slots
// doubles its table before a put (of a new key or an existing one:
// BaseHashTable.baseAddOrReplace checks before it looks).
func TimelineGrows(size, n int) bool { return float64(size+1)*0.75 > float64(n) }

// timelineSlot is BaseHashTable.findSlot for a table of n slots (a power
// of two): the top log2(n) bits of hashCode times the 64-bit golden
// ratio.
func timelineSlot(key string, n int) int {
	log2 := 0
	for 1<<log2 < n {
		log2++
	}
	const phi = 0x9E3779B97F4A7C15 // -7046029254386353131 as unsigned
	return int(uint64(int64(StringHash(key))) * phi >> (64 - log2))
}
