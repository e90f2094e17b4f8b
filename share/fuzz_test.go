package share

import (
	"testing"
)

// FuzzOperations drives the property-test workload from the fuzzer's bytes:
// any operation sequence must keep every invariant and never panic. `go
// test` runs the seed corpus; `go test -fuzz FuzzOperations ./share/`
// explores further.
func FuzzOperations(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19})
	f.Add([]byte("\x00\x05\x01\x02\x04\x06\x0a\x0b\x0e\x10\x12\x13\x00\x04\x09\x0e\x0e\x0e\x11\x12"))
	f.Add([]byte("share partitions acquire, acknowledge, expire and recover"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return
		}
		c := &byteChooser{data: data}
		w := newWorld(t, c)
		for c.pos < len(data) {
			w.step()
			w.check()
		}
		w.drain()
	})
}
