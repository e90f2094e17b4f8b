package connect_test

import (
	"errors"
	"fmt"

	"github.com/coordsim/coordsim/connect"
)

// A worker switches its sinks to share groups (KIP-1302); the connector
// keeps Connect's earliest default and sets a session timeout a share
// consumer would reject. Resolve strips it, forces explicit
// acknowledgement, and moves "earliest" to the share group's config.
func ExampleResolve() {
	worker := connect.Props{"consumer.group.protocol": "share"}
	connector := connect.Props{
		"name":                                 "orders-sink",
		"topics":                               "orders, payments",
		"tasks.max":                            "8",
		"consumer.override.session.timeout.ms": "10000",
	}
	cfg, err := connect.Resolve(worker, connector)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("kind:", cfg.Kind)
	fmt.Println("group:", cfg.GroupID)
	fmt.Println("topics:", cfg.Topics, "tasks:", cfg.Tasks)
	fmt.Println("stripped:", cfg.Stripped)
	for _, k := range cfg.GroupConfigs.SortedKeys() {
		fmt.Printf("group config: %s=%s\n", k, cfg.GroupConfigs[k])
	}
	for _, k := range cfg.Consumer.SortedKeys() {
		fmt.Printf("consumer: %s=%s\n", k, cfg.Consumer[k])
	}
	for _, w := range cfg.Warnings {
		fmt.Println("warning:", w)
	}
	// Output:
	// kind: share
	// group: connect-orders-sink
	// topics: [orders payments] tasks: 8
	// stripped: [auto.offset.reset enable.auto.commit group.protocol session.timeout.ms]
	// group config: share.auto.offset.reset=earliest
	// consumer: group.id=connect-orders-sink
	// consumer: share.acknowledgement.mode=explicit
	// warning: consumer.override.session.timeout.ms=10000 dropped: a share consumer rejects it; the group config share.session.timeout.ms governs it
}

// A share sink maps each outcome to an acknowledgement: a batch put()
// accepts, a retriable put() failure releases for redelivery, a fatal one
// rejects (KIP-1302: to the dead-letter queue when configured), and a record
// that fails conversion under errors.tolerance=all is rejected into the
// broker's dead-letter queue when the group has one.
func ExampleSinkConfig_OnPut() {
	cfg, _ := connect.Resolve(nil, connect.Props{
		"name": "s", "topics": "orders", "errors.tolerance": "all",
		"consumer.override.group.protocol": "share",
	})
	for _, o := range []connect.PutOutcome{connect.PutOK, connect.PutRetriable, connect.PutFatal} {
		d, _ := cfg.OnPut(o)
		fmt.Printf("%v: %v\n", o, d)
	}
	d, _ := cfg.OnConvertFailure(true)
	fmt.Printf("convert failure, broker DLQ: %v\n", d)
	// Output:
	// PutOK: ACCEPT
	// PutRetriable: RELEASE
	// PutFatal: REJECT
	// convert failure, broker DLQ: SKIP_RECORD+REJECT
}

// A SinkTask's put() reports the outcome by its error: nil writes, a
// RetriableError asks for another try, anything else is fatal; a panic is
// caught as fatal.
func ExampleCallPut() {
	for _, err := range []error{nil, connect.Retriable(errors.New("db busy")), errors.New("schema mismatch")} {
		o, _ := connect.CallPut(putReturning{err: err}, nil)
		fmt.Println(o)
	}
	o, _ := connect.CallPut(putReturning{panics: true}, nil)
	fmt.Println(o)
	// Output:
	// PutOK
	// PutRetriable
	// PutFatal
	// PutFatal
}

// putReturning is a SinkTask whose Put returns err (or panics).
type putReturning struct {
	err    error
	panics bool
}

func (p putReturning) Initialize(connect.SinkTaskContext) {}
func (p putReturning) Start(map[string]string) error      { return nil }
func (p putReturning) Open([]connect.TopicPartition)      {}
func (p putReturning) Close([]connect.TopicPartition)     {}
func (p putReturning) Stop()                              {}
func (p putReturning) PreCommit(c map[connect.TopicPartition]int64) map[connect.TopicPartition]int64 {
	return c
}
func (p putReturning) Put([]connect.SinkRecord) error {
	if p.panics {
		panic("boom")
	}
	return p.err
}
