//go:build race

package localrun_test

// raceEnabled says the tests run with the race detector.
const raceEnabled = true
