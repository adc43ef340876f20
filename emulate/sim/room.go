package sim

import (
	"cmp"
	"time"
)

// RoomSource reads Redrive's waiting room, where messages wait for their
// breaker to let them go: roomDepth is how many wait in it now, releases
// how many it has released since the start (cumulative, so it never
// decreases). Redrive's sampler calls it at each reading, on the stack's
// executor while the stack runs, so it must be safe for concurrent use with
// the stack. Redrive.WaitingRoom supplies it.
type RoomSource func() (roomDepth int, releases int64)

// RoomReading is one reading of a RoomSource.
type RoomReading struct {
	// Depth is how many messages waited in the room.
	Depth int
	// Releases counts the room's releases so far.
	Releases int64
}

// held is a value v held from one offset to the next, [from, to).
type held[V cmp.Ordered] struct {
	from, to time.Duration
	v        V
}

// roomLines are the room readings of samples (in order of At) as values
// held over time: each depth until the next reading, and the release rate
// (releases per second) between each reading and the next.
func roomLines(samples []Sample) (depth []held[int], rate []held[float64]) {
	for i, s := range samples {
		to := s.At
		if i+1 < len(samples) {
			next := samples[i+1]
			to = next.At
			perSecond := float64(next.Room.Releases-s.Room.Releases) / (next.At - s.At).Seconds()
			rate = append(rate, held[float64]{from: s.At, to: to, v: perSecond})
		}
		depth = append(depth, held[int]{from: s.At, to: to, v: s.Room.Depth})
	}
	return depth, rate
}

// peak is the most any of hs holds, or zero.
func peak[V cmp.Ordered](hs []held[V]) V {
	var out V
	for _, h := range hs {
		out = max(out, h.v)
	}
	return out
}

// heldPeaks is, for each of n buckets step wide, the most any of hs holds
// within it; a value held past the last bucket is left out.
func heldPeaks[V cmp.Ordered](hs []held[V], step time.Duration, n int) []V {
	out := make([]V, n)
	for _, h := range hs {
		if h.from >= step*time.Duration(n) {
			continue
		}
		for b := bucketOf(h.from, step, n); b <= bucketOf(max(h.from, h.to-1), step, n); b++ {
			out[b] = max(out[b], h.v)
		}
	}
	return out
}
