//go:build !race

package racecheck

// Enabled says the binary is built with the race detector.
const Enabled = false
