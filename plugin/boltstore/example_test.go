package boltstore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coordsim/coordsim/plugin"
	"github.com/coordsim/coordsim/plugin/boltstore"
)

// Example shows a description surviving a restart of the store.
func Example() {
	dir, err := os.MkdirTemp("", "boltstore-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "topologies.db")
	ctx := context.Background()

	s, err := boltstore.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	d := plugin.SampleTopology(7, 2)
	fmt.Println("set:", plugin.SafeSet(ctx, s, "orders-app", 7, d))
	fmt.Println("close:", s.Close())

	s, err = boltstore.Open(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	got, err := plugin.SafeGet(ctx, s, "orders-app", 7)
	fmt.Println("after reopen:", got.Equal(d), err)
	// Output:
	// set: <nil>
	// close: <nil>
	// after reopen: true <nil>
}
