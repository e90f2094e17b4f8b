package shard

import (
	"fmt"
	"maps"
	"testing"
)

// BenchmarkSetTopicImage installs a new metadata image on a shard of n
// streams groups, each an application with one member, one source topic
// and a changelog topic of its own, the way the simulator creates one
// application's internal topics at a time: the images alternate between
// all changelog topics but app-0's and all of them, so every install flips
// app-0 between NOT_READY and ready and leaves the other groups alone.
// "successor": each image is prepared as the other's successor
// (PrepareTopicImageFrom), the simulator's and the coordinator's way;
// "unrelated": prepared apart (PrepareTopicImage), so the shard walks its
// topic index. The preparation is outside the timer; ns/op is the install.
func BenchmarkSetTopicImage(b *testing.B) {
	for _, n := range []int{1_000, 10_000} {
		for _, successor := range []bool{true, false} {
			name := map[bool]string{true: "successor", false: "unrelated"}[successor]
			b.Run(fmt.Sprintf("groups=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				without := map[string]int32{"in": 2}
				for i := 1; i < n; i++ {
					without[benchApp(i)+"-store-changelog"] = 2
				}
				with := maps.Clone(without)
				with[benchApp(0)+"-store-changelog"] = 2
				h := newHarness(b, testConfig(), with)
				for i := range n {
					h.streamsJoin(benchApp(i), "m1", &Topology{Subtopologies: []Subtopology{{ID: "0", SourceTopics: []string{"in"},
						StateChangelogTopics: []TopicInfo{{Name: benchApp(i) + "-store-changelog"}}}}})
				}
				var images [2]*PreparedTopicImage
				var err error
				if images[0], err = PrepareTopicImage(TopicImage{Partitions: without}); err != nil {
					b.Fatal(err)
				}
				if images[1], err = PrepareTopicImage(TopicImage{Partitions: with}); err != nil {
					b.Fatal(err)
				}
				if successor {
					linkImages(images[0], images[1])
				}
				h.s.SetPreparedTopicImage(images[1])
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					h.s.SetPreparedTopicImage(images[i%2])
				}
			})
		}
	}
}

func benchApp(i int) string { return fmt.Sprintf("app-%05d", i) }
