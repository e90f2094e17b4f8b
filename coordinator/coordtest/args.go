package coordtest

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/cockroachdb/datadriven"

	"github.com/coordsim/coordsim/kerr"
	"github.com/coordsim/coordsim/shard"
)

// The readers of command arguments the handlers share.

// str returns an argument's first value, "" when it is absent.
func str(d *datadriven.TestData, key string) string {
	a, ok := d.Arg(key)
	if !ok || len(a.Vals) == 0 {
		return ""
	}
	return a.Vals[0]
}

// num returns a numeric argument, or def when it is absent. A malformed
// number is a broken scenario file: it panics with the file position, which
// fails the test loudly instead of running with a default.
func num(d *datadriven.TestData, key string, def int64) int64 {
	a, ok := d.Arg(key)
	if !ok || len(a.Vals) == 0 {
		return def
	}
	n, err := strconv.ParseInt(a.Vals[0], 10, 64)
	if err != nil {
		panic(fmt.Sprintf("%s: %s=%s is not a number", d.Pos, key, a.Vals[0]))
	}
	return n
}

// list returns a list argument: nil when absent, empty (not nil) for "()".
func list(d *datadriven.TestData, key string) []string {
	if a, ok := d.Arg(key); ok {
		if len(a.Vals) == 1 && a.Vals[0] == "" {
			return []string{}
		}
		return slices.Clone(a.Vals)
	}
	return nil
}

// ownedPartitions parses topic-partition specs as topicPartitions does,
// sorted by topic and partition and never nil: owned=() is an empty list
// (the member owns nothing), not a missing one.
func ownedPartitions(specs []string) ([]shard.TopicPartitions, error) {
	out, err := topicPartitions(specs)
	if err != nil {
		return nil, err
	}
	if out == nil {
		out = []shard.TopicPartitions{}
	}
	for i := range out {
		slices.Sort(out[i].Partitions)
	}
	slices.SortFunc(out, func(a, b shard.TopicPartitions) int { return strings.Compare(a.Topic, b.Topic) })
	return out, nil
}

// splitTopicPartition reads "foo-0" (or "foo--1" for partition -1).
func splitTopicPartition(s string) (string, int32, error) {
	i := strings.LastIndexByte(s, '-')
	if i > 0 && s[i-1] == '-' {
		i-- // "foo--1" is topic foo, partition -1
	}
	if i <= 0 {
		return "", 0, fmt.Errorf("%q is not topic-partition", s)
	}
	p, err := strconv.Atoi(s[i+1:])
	if err != nil {
		return "", 0, fmt.Errorf("%q is not topic-partition", s)
	}
	return s[:i], int32(p), nil
}

// topicPartitions parses topic-partition specs into request topics, one
// entry per topic in first-seen order; "()" names none.
func topicPartitions(specs []string) ([]shard.TopicPartitions, error) {
	var out []shard.TopicPartitions
	for _, spec := range specs {
		if spec == "" {
			continue
		}
		topic, p, err := splitTopicPartition(spec)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(out, func(tp shard.TopicPartitions) bool { return tp.Topic == topic })
		if i < 0 {
			out = append(out, shard.TopicPartitions{Topic: topic})
			i = len(out) - 1
		}
		out[i].Partitions = append(out[i].Partitions, p)
	}
	return out, nil
}

// errName is a per-group or per-partition answer: "deleted" or the error.
func errName(err error) string {
	if err == nil {
		return "deleted"
	}
	return kerr.Name(err)
}

// orNone is what a listing command printed, or none when it printed
// nothing.
func orNone(b *strings.Builder, none string) string {
	if b.Len() == 0 {
		return none
	}
	return b.String()
}
