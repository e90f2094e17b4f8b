package plugintest_test

import (
	"fmt"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/memstore"
	"github.com/coordsim/coordsim/plugin/plugintest"
)

// ExampleTestStore runs the conformance suite on a store. Replace memstore.New with
// your own constructor; each call must return a new, empty store. In a test, prefer
// plugintest.Run(t, newStore), which runs each check as a subtest.
func ExampleTestStore() {
	newStore := func() (plugin.Store, error) { return memstore.New(), nil }
	if err := plugintest.TestStore(newStore); err != nil {
		fmt.Println("the store does not conform:", err)
		return
	}
	fmt.Println("the store conforms")
	// Output: the store conforms
}
