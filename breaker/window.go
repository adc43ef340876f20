package breaker

import "math/bits"

// mask keeps the newest size bits of a window.
func mask(size int) uint64 {
	switch {
	case size <= 0:
		return 0
	case size >= maxWindow:
		return ^uint64(0)
	default:
		return 1<<uint(size) - 1
	}
}

// push shifts one outcome into a window of at most size outcomes.
func (w Window) push(failed bool, size int) Window {
	w.Failures <<= 1
	if failed {
		w.Failures |= 1
	}
	w.Failures &= mask(size)
	w.Count = min(w.Count+1, max(size, 0))
	return w
}

// FailureCount is how many failures the newest size outcomes hold.
func (w Window) FailureCount(size int) int {
	return bits.OnesCount64(w.Failures & mask(size))
}

// healthy reports a full window of successes: one more success would
// change nothing, so it is not written.
func (w Window) healthy(size int) bool {
	return w.Count >= size && w.FailureCount(size) == 0
}

// tripsOnRate reports whether the failure rate over the window has reached
// the policy's threshold with at least MinimumCalls outcomes in it.
func (w Window) tripsOnRate(p Policy) bool {
	if p.FailureRateThreshold <= 0 || w.Count < p.MinimumCalls || w.Count == 0 {
		return false
	}
	n := min(w.Count, p.WindowSize)
	return float64(w.FailureCount(p.WindowSize))/float64(n) >= p.FailureRateThreshold
}
