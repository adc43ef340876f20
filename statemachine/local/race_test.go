//go:build race

package local

// raceEnabled says the tests run with the race detector.
const raceEnabled = true
