package connect

import (
	"errors"
	"fmt"
)

// The SinkTask SPI: Kafka Connect's org.apache.kafka.connect.sink.SinkTask
// in Go. The simulator's worker drives one per task, for both task classes
// (WorkerSinkTask on a consumer group, KIP-1302's WorkerShareSinkTask on a
// share group), in Connect's order:
//
//	Initialize(ctx) → Start(props) → Open(partitions) → { Put(records) … PreCommit(offsets) }
//	                → Close(partitions) → Stop()
//
// A consumer sink opens the partitions each assignment adds and closes the
// ones it revokes (the rebalance listener); a share sink has no assignment
// listener, so it opens every partition of its subscribed topics once, at
// startup, and closes them once at shutdown (KIP-1302: "task.open() once at
// startup for all topics"). A task that fails is closed and stopped like a
// stopped one; a task killed hard (a crashed worker) is neither. Users plug
// in their own SinkTask as they plug in topology stores (connectsim.Connector's
// NewTask), and sim/sinktest checks it keeps at-least-once delivery under
// kills and scaling.
//
// A SinkTask runs inside a deterministic simulation: it must not read the
// wall clock, start goroutines or use global randomness, or the run stops
// being reproducible. A panic is caught and treated as a fatal exception.

// TopicPartition is one partition of a topic, as SinkTask sees it.
type TopicPartition struct {
	Topic     string
	Partition int32
}

// SinkRecord is one record handed to Put. The simulator's records carry no
// payload: a task learns where the record is and, on a share sink, how many
// times it was delivered (KIP-932's delivery count; 0 on consumer sinks).
type SinkRecord struct {
	Topic         string
	Partition     int32
	Offset        int64
	DeliveryCount int32
}

// ErrantRecordReporter is Connect's KIP-610 reporter: a record Put cannot
// write is reported and Put returns normally. A reported record goes where
// errors.tolerance and the dead-letter queues send a failed conversion
// (SinkConfig.OnConvertFailure): Connect's DLQ when one is configured, the
// broker's KIP-1191 DLQ through REJECT on a share sink whose group has
// one; the rest of the batch is ACCEPTed. Under errors.tolerance=none a
// report fails the task, as Connect's reporter throws.
type ErrantRecordReporter interface {
	Report(record SinkRecord, err error)
}

// SinkTaskContext is what the worker gives a task at Initialize
// (SinkTaskContext): its errant-record reporter and its current assignment.
type SinkTaskContext interface {
	ErrantRecordReporter() ErrantRecordReporter
	// Assignment is the partitions the task has open, sorted.
	Assignment() []TopicPartition
}

// SinkTask is one sink task. See the comment at the top of this file for
// the order of calls.
type SinkTask interface {
	// Initialize hands the task its context; called once, first.
	Initialize(ctx SinkTaskContext)
	// Start starts the task with the connector's configuration; an error
	// fails the task before it consumes anything.
	Start(props map[string]string) error
	// Open is called with partitions the task now consumes.
	Open(partitions []TopicPartition)
	// Put writes records. nil: written (ACCEPT, or offsets committable);
	// a RetriableError: try again (share: RELEASE; consumer: the same batch
	// again after a pause); any other error: fatal (share: REJECT, or fail
	// the task under FatalPutFailTask; consumer: fail the task).
	Put(records []SinkRecord) error
	// PreCommit flushes and returns the offsets that may be committed
	// (Connect's default flushes and returns currentOffsets). A consumer
	// sink commits what it returns, never beyond what was put; a share sink
	// ignores the answer (acknowledgements are its commits) but calls it
	// before each commitSync so the task can flush.
	PreCommit(currentOffsets map[TopicPartition]int64) map[TopicPartition]int64
	// Close is called with partitions the task no longer consumes, and with
	// all of them before Stop.
	Close(partitions []TopicPartition)
	// Stop is the last call.
	Stop()
}

// RetriableError marks a Put failure as Connect's RetriableException.
type RetriableError struct{ Err error }

// Error says the failure is retriable and why.
func (e *RetriableError) Error() string { return fmt.Sprintf("retriable: %v", e.Err) }

// Unwrap returns the cause.
func (e *RetriableError) Unwrap() error { return e.Err }

// Retriable wraps err as a RetriableError (nil stays nil).
func Retriable(err error) error {
	if err == nil {
		return nil
	}
	return &RetriableError{Err: err}
}

// PutOutcomeOf classifies what Put returned: nil is PutOK, a RetriableError
// anywhere in the chain is PutRetriable, anything else PutFatal.
func PutOutcomeOf(err error) PutOutcome {
	var r *RetriableError
	switch {
	case err == nil:
		return PutOK
	case errors.As(err, &r):
		return PutRetriable
	}
	return PutFatal
}

// CallPut calls task.Put and classifies the result; a panic inside Put is
// a fatal outcome carrying the panic, never a crash of the worker.
func CallPut(task SinkTask, records []SinkRecord) (outcome PutOutcome, err error) {
	defer func() {
		if p := recover(); p != nil {
			outcome, err = PutFatal, fmt.Errorf("connect: put() panicked: %v", p)
		}
	}()
	err = task.Put(records)
	return PutOutcomeOf(err), err
}
