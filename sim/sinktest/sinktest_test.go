package sinktest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/coordsim/coordsim/connect"
	"github.com/coordsim/coordsim/sim/sinktest"
)

// memSink is a user's sink task writing into a map every task shares (the
// destination). aheadBy > 0 makes PreCommit claim offsets it never
// flushed: the bug sinktest must catch.
type memSink struct {
	dest    map[connect.SinkRecord]bool
	buf     []connect.SinkRecord
	aheadBy int64
}

func (m *memSink) Initialize(connect.SinkTaskContext) {}
func (m *memSink) Start(map[string]string) error      { return nil }
func (m *memSink) Open([]connect.TopicPartition)      {}
func (m *memSink) Close([]connect.TopicPartition)     { m.flush() }
func (m *memSink) Stop()                              {}

// Put buffers; PreCommit flushes, as a batching JDBC sink would.
func (m *memSink) Put(recs []connect.SinkRecord) error {
	m.buf = append(m.buf, recs...)
	if m.aheadBy == 0 {
		m.flush() // a share sink's ACCEPT follows put(): write through
	}
	return nil
}

func (m *memSink) flush() {
	for _, r := range m.buf {
		m.dest[connect.SinkRecord{Topic: r.Topic, Partition: r.Partition, Offset: r.Offset}] = true
	}
	m.buf = m.buf[:0]
}

func (m *memSink) PreCommit(cur map[connect.TopicPartition]int64) map[connect.TopicPartition]int64 {
	if m.aheadBy == 0 {
		m.flush()
		return cur
	}
	out := map[connect.TopicPartition]int64{}
	for k, v := range cur {
		out[k] = v + m.aheadBy // claims records it has not even received
	}
	return out
}

func harness(aheadBy int64) (func() connect.SinkTask, func(connect.SinkRecord) bool) {
	dest := map[connect.SinkRecord]bool{}
	return func() connect.SinkTask { return &memSink{dest: dest, aheadBy: aheadBy} },
		func(r connect.SinkRecord) bool { return dest[r] }
}

// TestCheckAtLeastOnceAcceptsACorrectTask proves a task that writes what it
// is given passes under kills and scaling, as a share sink and as a
// consumer sink, called in Connect's order.
func TestCheckAtLeastOnceAcceptsACorrectTask(t *testing.T) {
	newTask, written := harness(0)
	reps, err := sinktest.Run(1, newTask, written)
	require.NoError(t, err)
	require.Len(t, reps, 2)
	for _, r := range reps {
		assert.Positive(t, r.Produced, r.Kind)
		assert.Zero(t, r.Unwritten, r.Kind)
		assert.Positive(t, r.Killed, r.Kind)
	}
}

// TestCheckAtLeastOnceCatchesAPreCommitThatRunsAhead proves the helper
// fails a consumer-sink task whose PreCommit returns offsets past what it
// flushed: after a kill the committed offsets skip records.
func TestCheckAtLeastOnceCatchesAPreCommitThatRunsAhead(t *testing.T) {
	newTask, written := harness(50)
	_, err := sinktest.Run(1, newTask, written)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at-least-once broken")
}
