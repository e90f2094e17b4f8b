package shard

import "testing"

// propertySeeds is how many seeds a random-workload property test runs:
// all of them, except in CI's race pass (go test -race -short), where the
// detector makes each seed 5-10 times slower while the workload runs in
// one goroutine with nothing to race. There a fifth of them runs; CI's
// plain go test ./... runs them all.
func propertySeeds(all int) int {
	if raceEnabled && testing.Short() {
		return max(all/5, 1)
	}
	return all
}
