//go:build race

package ddbmem_test

// raceEnabled says the tests run with the race detector.
const raceEnabled = true
