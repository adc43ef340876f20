package executor

import (
	"context"
	"sync/atomic"
)

// timer is the place of an event on the timeline: its time, in Unix
// nanoseconds on the executor's clock (virtual or scaled), and its
// sequence number. Events due at the same instant run in the order they
// were scheduled (seq).
type timer struct {
	at  int64
	seq uint64
}

// event is one entry on the executor's timeline: fn runs when the clock
// reads at; seq orders it as its timer does.
type event struct {
	at  int64
	seq uint64
	fn  func(ctx context.Context)
	// gen and want make the event cancellable: it is stale, and skipped
	// without moving the clock, once *gen no longer equals want.
	gen  *atomic.Uint64
	want uint64
}

// stale reports whether the event was cancelled.
func (ev *event) stale() bool { return ev.gen != nil && ev.gen.Load() != ev.want }

// timeline is a binary min-heap of events ordered by (at, seq).
type timeline []event

// less orders events by time, then by the order they were scheduled.
func (t timeline) less(i, j int) bool {
	return t[i].at < t[j].at || (t[i].at == t[j].at && t[i].seq < t[j].seq)
}

// push adds ev to the heap.
func (t *timeline) push(ev event) {
	*t = append(*t, ev)
	h := *t
	for i := len(h) - 1; i > 0; {
		parent := (i - 1) / 2
		if !h.less(i, parent) {
			break
		}
		h[i], h[parent] = h[parent], h[i]
		i = parent
	}
}

// pop removes and returns the earliest event.
func (t *timeline) pop() event {
	h := *t
	top := h[0]
	last := len(h) - 1
	h[0] = h[last]
	h[last] = event{}
	*t = h[:last]
	t.down(0)
	return top
}

// down moves the event at i down the heap to its place.
func (t timeline) down(i int) {
	for {
		small, l, r := i, 2*i+1, 2*i+2
		if l < len(t) && t.less(l, small) {
			small = l
		}
		if r < len(t) && t.less(r, small) {
			small = r
		}
		if small == i {
			return
		}
		t[i], t[small] = t[small], t[i]
		i = small
	}
}

// minCompaction is the least timeline length compact considers.
const minCompaction = 256

// compact drops the stale events from the timeline once it has doubled
// since the last compaction, or once executions as many as half its
// events have ended since (a drain: the timeline shrinks, and every
// finished execution's timers went stale), so that the timers of finished
// executions (their TimeoutSeconds, a waiting room's hours, far ahead) do
// not keep them in memory until due. Stale events never run, so the
// timeline runs as before. Amortised over the events scheduled and the
// executions ended, it costs O(1) each.
func (s *scheduler) compact() {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := len(s.queue)
	if n < minCompaction || n < 2*s.compacted+minCompaction && s.ended.Load() < int64(n/2) {
		return
	}
	s.ended.Store(0)
	live := s.queue[:0]
	for _, ev := range s.queue {
		if !ev.stale() {
			live = append(live, ev)
		}
	}
	clear(s.queue[len(live):])
	s.queue = live
	for i := len(live)/2 - 1; i >= 0; i-- {
		live.down(i)
	}
	s.compacted = len(live)
}
