//go:build race

package offsets

// raceEnabled says the race detector instruments this test binary
// (propertySeeds).
const raceEnabled = true
