package plugin_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// ExampleBuilder builds the description of a word-count application the way Kafka's
// Topology API would, and prints it as Kafka does.
func ExampleBuilder() {
	d, err := plugin.NewBuilder().
		Subtopology("0").
		AddSource("source", "words").
		AddProcessor("count", "source").
		AddStateStore("counts", "count").
		AddSink("sink", "word-counts", "count").
		Build()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(d)
	// Output:
	// Topologies:
	//    Sub-topology: 0
	//     Source: source (topics: [words])
	//       --> count
	//     Processor: count (stores: [counts])
	//       --> sink
	//       <-- source
	//     Sink: sink (topic: word-counts)
	//       <-- count
}

// ExampleClassify shows how a store marks its errors and how the coordinator reads
// the class back; anything unmarked is transient.
func ExampleClassify() {
	backend := errors.New("connection refused")
	fmt.Println(plugin.Classify(backend))
	fmt.Println(plugin.Classify(plugin.Permanent(fmt.Errorf("schema mismatch"))))
	fmt.Println(plugin.Classify(fmt.Errorf("set group g: %w", plugin.ErrClosed)))
	fmt.Println(plugin.Classify(nil))
	// Output:
	// transient
	// permanent
	// permanent
	// none
}

// panickyStore is a store with a bug.
type panickyStore struct{ *memstore.Store }

func (panickyStore) GetTopology(context.Context, string, int32) (*plugin.TopologyDescription, error) {
	var m map[string]int
	//lint:ignore SA5000 the bug is the point: SafeGet must turn this panic into an error
	m["boom"]++ // assignment to a nil map
	return nil, nil
}

// ExampleSafeGet shows the safe-call layer turning a plugin's panic into a permanent
// error with Kafka's fixed message.
func ExampleSafeGet() {
	s := panickyStore{memstore.New()}
	d, err := plugin.SafeGet(context.Background(), s, "orders-app", 3)
	var pe *plugin.PanicError
	fmt.Println(d, err, plugin.Classify(err), errors.As(err, &pe))
	// Output:
	// <nil> Topology description plugin failed. permanent true
}
