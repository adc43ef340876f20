//go:build !race

package sim_test

// raceEnabled says the tests run with the race detector.
const raceEnabled = false
