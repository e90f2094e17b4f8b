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
