package memstore_test

import (
	"context"
	"fmt"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// Example shows the store's epoch-scoped contract: a description is returned only for
// the epoch it was stored at, "not stored" is (nil, nil), and a delete by group id
// removes every epoch.
func Example() {
	ctx := context.Background()
	s := memstore.New()
	defer s.Close()

	d := plugin.NewBuilder().
		Subtopology("0").
		AddSource("source", "words").
		AddProcessor("count", "source").
		AddStateStore("counts", "count").
		AddSink("sink", "word-counts", "count").
		MustBuild()

	if err := plugin.SafeSet(ctx, s, "word-count-app", 3, d); err != nil {
		fmt.Println("set:", err)
	}
	got, err := plugin.SafeGet(ctx, s, "word-count-app", 3)
	fmt.Print(got)
	fmt.Println("err:", err)

	got, err = plugin.SafeGet(ctx, s, "word-count-app", 4)
	fmt.Println("epoch 4:", got, err)

	fmt.Println("rows:", s.List())
	_ = plugin.SafeDelete(ctx, s, "word-count-app")
	fmt.Println("rows after delete:", s.Len())
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
	//
	// err: <nil>
	// epoch 4: <nil> <nil>
	// rows: [{word-count-app 3}]
	// rows after delete: 0
}
