package faultstore_test

import (
	"context"
	"fmt"
	"time"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/faultstore"
	"github.com/coordsim/coordsim/plugin/memstore"
)

// Example shows how a simulator drives the store on virtual time: decide a call now,
// run it at now+latency through Decided, and read the outcome.
func Example() {
	fs, err := faultstore.New(memstore.New(),
		faultstore.WithSeed(42),
		faultstore.WithLatency(faultstore.AnyOp, faultstore.Fixed(20*time.Millisecond)),
	)
	if err != nil {
		fmt.Println(err)
		return
	}
	// The second call fails, whatever the dice say.
	if err := fs.FailCall(2, faultstore.FaultTransient); err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	now := time.Duration(0) // virtual time
	for _, epoch := range []int32{1, 2} {
		d := fs.Decide(plugin.OpSet, "orders-app")
		at := now + d.Latency
		err := plugin.SafeSet(ctx, fs.Decided(d), "orders-app", epoch, plugin.SampleTopology(uint64(epoch), 1))
		fmt.Printf("call %d at %v: fault=%s class=%s\n", d.Call, at, d.Fault, plugin.Classify(err))
		now = at
	}
	fmt.Printf("sets: %+v\n", fs.Counts().Set)
	// Output:
	// call 1 at 20ms: fault=none class=none
	// call 2 at 40ms: fault=transient class=transient
	// sets: {Calls:2 Passed:1 Transient:1 Permanent:0 AppliedTransient:0 Panics:0 Nonsense:0 Invalid:0 Forwarded:1 InnerErrors:0}
}
