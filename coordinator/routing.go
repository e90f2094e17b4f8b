package coordinator

import (
	"fmt"
	"math"
)

// PartitionFor returns the __consumer_offsets partition (the shard) that owns groupID when
// the topic has numPartitions partitions (offsets.topic.num.partitions, 50 by default). It is
// Kafka's GroupCoordinatorService.partitionFor bit for bit (docs/kip1331.md §4.1):
//
//	Utils.abs(groupId.hashCode()) % numPartitions
//
// so a simulated cluster routes every group to the shard a real Kafka cluster would, and
// traces can be compared with a broker's. See JavaStringHashCode for how the hash is taken
// and for ids that are not valid UTF-8.
//
// numPartitions must be positive: Kafka validates the config at startup, and with 0 it would
// throw ArithmeticException here. PartitionFor panics instead of returning a partition that
// does not exist. It does not allocate.
func PartitionFor(groupID string, numPartitions int32) int32 {
	if numPartitions <= 0 {
		panic(fmt.Sprintf("coordinator: PartitionFor: numPartitions must be positive, got %d", numPartitions))
	}
	return kafkaUtilsAbs(JavaStringHashCode(groupID)) % numPartitions
}

// JavaStringHashCode returns what Java's String.hashCode returns for the Java string that s
// decodes to: s[0]*31^(n-1) + ... + s[n-1] over the string's UTF-16 code units, in int32
// arithmetic that wraps around (Go's int32 wraps exactly like Java's int). A code point
// above U+FFFF is one rune in Go but two code units (a surrogate pair) in Java, and both
// units enter the hash.
//
// Bytes that are not valid UTF-8 decode as U+FFFD, one per invalid byte, the way ranging
// over a Go string does. A broker decodes a group id off the wire with
// new String(bytes, UTF_8), which also substitutes U+FFFD but follows the JDK's own rules
// for how many: it agrees for a lone invalid byte such as "\xff" or "g\xffx", and for
// "\xc0\xaf", but gives a single U+FFFD for a truncated sequence such as "\xe6\x97" or for
// an encoded surrogate such as "\xed\xa0\x80", where Go gives one per byte. Such ids hash
// differently from Kafka. We accept that: Java clients never send them (the JDK's UTF-8
// encoder always emits well-formed UTF-8, writing '?' for a lone surrogate), and copying
// the JDK decoder's rules is not worth it for ids no real client produces. For every
// valid UTF-8 string the result is exact. routing_test.go pins both behaviours.
//
// It does not allocate: it walks the runes and emits surrogate pairs itself instead of
// building a []uint16.
func JavaStringHashCode(s string) int32 {
	var h int32
	for _, r := range s {
		// Ranging yields runes in [0, 0x10FFFF] minus the surrogates (UTF-8 cannot encode
		// them validly; they come out as U+FFFD), so r is either one code unit or, above
		// U+FFFF, exactly one surrogate pair.
		if r <= 0xFFFF {
			h = 31*h + r
			continue
		}
		r -= 0x10000
		h = 31*h + (0xD800 + r>>10)   // high surrogate
		h = 31*h + (0xDC00 + r&0x3FF) // low surrogate
	}
	return h
}

// kafkaUtilsAbs is org.apache.kafka.common.utils.Utils.abs: |n|, except that
// math.MinInt32, which has no positive counterpart in int32, maps to 0 (Math.abs would
// return it unchanged, and a negative partition).
func kafkaUtilsAbs(n int32) int32 {
	if n == math.MinInt32 {
		return 0
	}
	if n < 0 {
		return -n
	}
	return n
}
