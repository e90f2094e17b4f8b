//go:build race

package sharebroker

// raceEnabled says the race detector instruments this test binary
// (propertySeeds).
const raceEnabled = true
