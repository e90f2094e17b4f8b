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

func equalAssignment(a, b []TopicPartitions) bool {
	if len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0]) {
		// A stable member shares its target's slices (shareTarget): the
		// steady heartbeat's check costs nothing then.
		return true
	}
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

// partitionsToTasks3 is partitionsToTasks of three lists at once, into one
// array (each list capped): the lists of one record or one answer are built
// and dropped together, so they need not cost an allocation each.
func partitionsToTasks3(a, b, c []TopicPartitions) (x, y, z []TaskIDs) {
	n := len(a) + len(b) + len(c)
	if n == 0 {
		return nil, nil, nil
	}
	buf := make([]TaskIDs, n)
	fill := func(t []TopicPartitions) []TaskIDs {
		if len(t) == 0 {
			return nil
		}
		out := buf[:len(t):len(t)]
		buf = buf[len(t):]
		for i, p := range t {
			out[i] = TaskIDs{SubtopologyID: p.Topic, Partitions: p.Partitions}
		}
		return out
	}
	return fill(a), fill(b), fill(c)
}

// tasksToPartitions3 is tasksToPartitions of three lists at once, into one
// array (each list capped), as partitionsToTasks3.
func tasksToPartitions3(a, b, c []TaskIDs) (x, y, z []TopicPartitions) {
	n := len(a) + len(b) + len(c)
	if n == 0 {
		return nil, nil, nil
	}
	buf := make([]TopicPartitions, n)
	fill := func(t []TaskIDs) []TopicPartitions {
		if len(t) == 0 {
			return nil
		}
		out := buf[:len(t):len(t)]
		buf = buf[len(t):]
		for i, p := range t {
			out[i] = TopicPartitions{Topic: p.SubtopologyID, Partitions: p.Partitions}
		}
		return out
	}
	return fill(a), fill(b), fill(c)
}

// countPartitions is the number of partitions (tasks) in a list.
func countPartitions(a []TopicPartitions) int {
	n := 0
	for _, t := range a {
		n += len(t.Partitions)
	}
	return n
}
