package shard

import (
	"slices"
)

// assignee is one member as the assignor sees it.
type assignee struct {
	id       string
	subs     []string // sorted topics (or subtopology ids) it may take
	previous []TopicPartitions
}

// assignUniform is a balanced, sticky assignor in the spirit of Kafka's
// UniformAssignor: each member first keeps what it had while under its fair
// share, then every unassigned partition goes to the least-loaded subscribed
// member (ties broken by member id). Members must be sorted by id; the result
// is deterministic and every partition is assigned to exactly one member if
// any member subscribes to its topic.
func assignUniform(members []assignee, partitionsOf func(topic string) int32) [][]TopicPartitions {
	type tp struct {
		topic string
		p     int32
	}
	var topics []string
	for _, m := range members {
		topics = append(topics, m.subs...)
	}
	slices.Sort(topics)
	topics = slices.Compact(topics)
	total := 0
	for _, t := range topics {
		total += int(partitionsOf(t))
	}
	owner := map[tp]int{}
	load := make([]int, len(members))
	if len(members) == 0 {
		return nil
	}
	quota := (total + len(members) - 1) / len(members)
	for i, m := range members {
		for _, prev := range m.previous {
			if _, ok := slices.BinarySearch(m.subs, prev.Topic); !ok {
				continue
			}
			n := partitionsOf(prev.Topic)
			for _, p := range prev.Partitions {
				k := tp{prev.Topic, p}
				if _, taken := owner[k]; taken || p >= n || load[i] >= quota {
					continue
				}
				owner[k] = i
				load[i]++
			}
		}
	}
	for _, t := range topics {
		n := partitionsOf(t)
		for p := int32(0); p < n; p++ {
			k := tp{t, p}
			if _, taken := owner[k]; taken {
				continue
			}
			best := -1
			for i, m := range members {
				if _, ok := slices.BinarySearch(m.subs, t); !ok {
					continue
				}
				if best < 0 || load[i] < load[best] {
					best = i
				}
			}
			if best >= 0 {
				owner[k] = best
				load[best]++
			}
		}
	}
	out := make([][]TopicPartitions, len(members))
	for _, t := range topics {
		n := partitionsOf(t)
		for p := int32(0); p < n; p++ {
			i, ok := owner[tp{t, p}]
			if !ok {
				continue
			}
			a := out[i]
			if len(a) == 0 || a[len(a)-1].Topic != t {
				a = append(a, TopicPartitions{Topic: t})
			}
			a[len(a)-1].Partitions = append(a[len(a)-1].Partitions, p)
			out[i] = a
		}
	}
	return out
}

func equalAssignment(a, b []TopicPartitions) bool {
	return slices.EqualFunc(a, b, func(x, y TopicPartitions) bool {
		return x.Topic == y.Topic && slices.Equal(x.Partitions, y.Partitions)
	})
}

func sortedTopics(topics []string) []string {
	out := slices.Clone(topics)
	slices.Sort(out)
	return slices.Compact(out)
}

func tasksToPartitions(t []TaskIDs) []TopicPartitions {
	if len(t) == 0 {
		return nil
	}
	out := make([]TopicPartitions, len(t))
	for i, x := range t {
		out[i] = TopicPartitions{Topic: x.SubtopologyID, Partitions: x.Partitions}
	}
	return out
}

func partitionsToTasks(t []TopicPartitions) []TaskIDs {
	if len(t) == 0 {
		return nil
	}
	out := make([]TaskIDs, len(t))
	for i, x := range t {
		out[i] = TaskIDs{SubtopologyID: x.Topic, Partitions: x.Partitions}
	}
	return out
}

func countPartitions(a []TopicPartitions) int {
	n := 0
	for _, t := range a {
		n += len(t.Partitions)
	}
	return n
}
