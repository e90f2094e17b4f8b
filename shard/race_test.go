//go:build race

package shard

// raceEnabled says the race detector instruments this test binary
// (propertySeeds).
const raceEnabled = true
