package coordinator

import (
	"fmt"
	"math"
	"testing"
	"unicode/utf16"

	"github.com/stretchr/testify/assert"
)

// longGroupID is 200 characters: "streams-app-0-streams-app-1-...", cut at 200.
const longGroupID = "streams-app-0-streams-app-1-streams-app-2-streams-app-3-streams-app-4-" +
	"streams-app-5-streams-app-6-streams-app-7-streams-app-8-streams-app-9-" +
	"streams-app-10-streams-app-11-streams-app-12-streams-app-13-"

// partitionForJavaVectors were produced by OpenJDK 17.0.15's String.hashCode and Kafka's
// Utils.abs (n == Integer.MIN_VALUE ? 0 : Math.abs(n)), modulo 50, 1 and 7, by a throwaway
// Java program that wrote the non-ASCII ids with \u escapes (so javac's source encoding could
// not change them) and printed each id's UTF-16 code units as a check. Do not edit the
// numbers by hand: regenerate them with Java.
var partitionForJavaVectors = []struct {
	groupID string
	hash    int32
	p50     int32
	p1      int32
	p7      int32
}{
	{"", 0, 0, 0, 0},
	{"a", 97, 47, 0, 6},
	{"G", 71, 21, 0, 1},
	{"foo", 101574, 24, 0, 4},
	{"group-0", 293427298, 48, 0, 3},
	{"my-streams-app", -1550722138, 38, 0, 0},
	{"connect-cluster", 1440343063, 13, 0, 5},
	{"console-consumer-42", 1109249087, 37, 0, 2},
	{longGroupID, -1786436977, 27, 0, 3},
	// Non-ASCII in the Basic Multilingual Plane: one UTF-16 unit per rune.
	{"grüße", 98768023, 23, 0, 4},
	{"日本語グループ", -305235731, 31, 0, 3},
	{"app-ß-α", -794999657, 7, 0, 4},
	// U+1F600 is two UTF-16 units in Java (d83d de00), one rune in Go.
	{"grp-😀", -1235730613, 13, 0, 5},
	// hashCode == Integer.MIN_VALUE: Utils.abs maps it to 0, so the partition is 0 at any
	// count. "xfjfxtf" and "group-ajxob4" were found by a meet-in-the-middle search in Go.
	{"polygenelubricants", math.MinInt32, 0, 0, 0},
	{"xfjfxtf", math.MinInt32, 0, 0, 0},
	{"group-ajxob4", math.MinInt32, 0, 0, 0},
}

func TestPartitionForMatchesJava(t *testing.T) {
	// Proves that JavaStringHashCode and PartitionFor give exactly what Java's String.hashCode
	// and Kafka's partitionFor give, for ASCII, long, non-ASCII, surrogate-pair, negative-hash
	// and Integer.MIN_VALUE-hash ids, at 50 (Kafka's default), 1 and 7 partitions.
	for _, v := range partitionForJavaVectors {
		t.Run(fmt.Sprintf("%.20q", v.groupID), func(t *testing.T) {
			assert.Equal(t, v.hash, JavaStringHashCode(v.groupID), "hash")
			assert.Equal(t, v.p50, PartitionFor(v.groupID, 50), "partition of 50")
			assert.Equal(t, v.p1, PartitionFor(v.groupID, 1), "partition of 1")
			assert.Equal(t, v.p7, PartitionFor(v.groupID, 7), "partition of 7")
		})
	}
}

func TestJavaStringHashCodeInvalidUTF8(t *testing.T) {
	// Proves the documented choice for ids that are not valid UTF-8: every invalid byte counts
	// as one U+FFFD. That matches what a broker computes after new String(bytes, UTF_8) for a
	// lone bad byte, and deliberately differs where the JDK folds a truncated sequence or an
	// encoded surrogate into a single U+FFFD. The Java hashes were produced by OpenJDK 17.0.15
	// from the same bytes.
	agree := []struct {
		bytes    string
		javaHash int32
	}{
		{"\xff", 65533},
		{"g\xffx", 2130626},
		{"\xc0\xaf", 2097056},
	}
	for _, c := range agree {
		assert.Equal(t, c.javaHash, JavaStringHashCode(c.bytes), "%q", c.bytes)
	}

	differ := []struct {
		bytes    string
		javaHash int32
		goSameAs string // the valid string whose hash ours equals
	}{
		{"\xe6\x97", 65533, "\uFFFD\uFFFD"},
		{"a\xe6\x97b", 2124838, "a\uFFFD\uFFFDb"},
		{"\xed\xa0\x80", 65533, "\uFFFD\uFFFD\uFFFD"},
		{"\xf0\x9f\x98", 65533, "\uFFFD\uFFFD\uFFFD"},
	}
	for _, c := range differ {
		got := JavaStringHashCode(c.bytes)
		assert.Equal(t, JavaStringHashCode(c.goSameAs), got, "%q", c.bytes)
		assert.NotEqual(t, c.javaHash, got, "%q: if this now matches Java, update the doc", c.bytes)
	}
}

func TestJavaStringHashCodeMatchesUTF16Encoding(t *testing.T) {
	// Proves that emitting surrogate pairs by hand gives the same code units as
	// unicode/utf16, at the edges of the planes and the surrogate range.
	for _, r := range []rune{0, 0x7F, 0x80, 0xD7FF, 0xE000, 0xFFFD, 0xFFFF, 0x10000, 0x1F600, 0x10FFFF} {
		s := "x" + string(r) + "y"
		assert.Equal(t, javaStringHashCodeReference(s), JavaStringHashCode(s), "U+%04X", r)
	}
}

func TestPartitionForPanicsOnNonPositiveCount(t *testing.T) {
	// Proves that a partition count Kafka would never accept is refused loudly rather than
	// answered with a partition that does not exist.
	for _, n := range []int32{0, -1, math.MinInt32} {
		assert.Panics(t, func() { PartitionFor("g", n) }, "numPartitions %d", n)
	}
}

func TestPartitionForDoesNotAllocate(t *testing.T) {
	// Proves routing allocates nothing, including for ids that need surrogate pairs.
	for _, id := range []string{"my-streams-app", "日本語グループ", "grp-😀", longGroupID} {
		allocs := testing.AllocsPerRun(100, func() { PartitionFor(id, 50) })
		assert.Zero(t, allocs, "%q", id)
	}
}

// javaStringHashCodeReference is the obvious, allocating version: decode to UTF-16 code units
// with the standard library, then hash them as Java does.
func javaStringHashCodeReference(s string) int32 {
	var h int32
	for _, u := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(u)
	}
	return h
}

func FuzzPartitionFor(f *testing.F) {
	for _, v := range partitionForJavaVectors {
		f.Add(v.groupID, int32(50))
	}
	f.Add("\xe6\x97", int32(7))
	f.Add("g", int32(math.MaxInt32))
	f.Fuzz(func(t *testing.T, groupID string, numPartitions int32) {
		// Fold every count into a valid one (1..MaxInt32) rather than skip inputs.
		numPartitions &= math.MaxInt32
		if numPartitions == 0 {
			numPartitions = 1
		}
		p := PartitionFor(groupID, numPartitions)
		if p < 0 || p >= numPartitions {
			t.Fatalf("PartitionFor(%q, %d) = %d, outside [0, %d)", groupID, numPartitions, p, numPartitions)
		}
		if got, want := JavaStringHashCode(groupID), javaStringHashCodeReference(groupID); got != want {
			t.Fatalf("JavaStringHashCode(%q) = %d, reference %d", groupID, got, want)
		}
	})
}

func ExamplePartitionFor() {
	// Kafka's default offsets.topic.num.partitions is 50.
	fmt.Println(PartitionFor("my-streams-app", 50))
	fmt.Println(PartitionFor("polygenelubricants", 50)) // hashCode is Integer.MIN_VALUE
	// Output:
	// 38
	// 0
}

// BenchmarkPartitionFor routes ids of different shapes; it must report 0 allocs/op.
func BenchmarkPartitionFor(b *testing.B) {
	for _, bc := range []struct{ name, id string }{
		{"ascii", "my-streams-app"},
		{"long200", longGroupID},
		{"cjk", "日本語グループ"},
		{"emoji", "grp-😀"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				PartitionFor(bc.id, 50)
			}
		})
	}
}
