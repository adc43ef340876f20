// Package racecheck tells whether the race detector is on, for tests that
// measure the heap or run long simulations and skip under it.
package racecheck
