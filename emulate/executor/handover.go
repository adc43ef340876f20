package executor

import (
	"cmp"
	"context"
	"iter"
	"maps"
	"slices"
	"sync"

	"github.com/redrive/redrive/emulate/asl"
)

// On the virtual clock (see virtualTime.invoke) the loop and a handler
// hand control to each other: the handler runs while the loop waits, and
// yields when it returns or suspends in Delay; its wake-up is an event.
// A handler runs on a routine, a goroutine the loop switches to and back
// from directly (a coroutine, as iter.Pull makes), on the same thread:
// unless the handler blocks, neither the scheduler nor another thread is
// woken, and a simulation makes millions of these switches.

// handOver lets c's handler start or continue, and waits until it yields
// again: the duration it suspends for in Delay, or -1 when it has
// returned, when its routine goes back to the executor's idle ones. Call
// with x.mu held; it is released meanwhile.
func (x *execution) handOver(c *call) int64 {
	x.mu.Unlock()
	d, _ := c.routine.next()
	x.mu.Lock()
	if d < 0 {
		x.e.routines.put(c.routine)
		c.routine = nil
	}
	return d
}

// routine is a coroutine that runs handlers, one after the other: next
// runs fn until it yields, and fn suspends itself with yield (Delay).
type routine struct {
	next  func() (int64, bool)
	stop  func()
	yield func(int64) bool
	fn    func() // the handler to run when next starts it
	// exited is set when fn called runtime.Goexit: the routine yielded
	// as though it had returned, and ends when stopped.
	exited bool
}

// newRoutine starts a routine, waiting for its first handler.
func newRoutine() *routine {
	r := &routine{}
	r.next, r.stop = iter.Pull(func(yield func(int64) bool) {
		r.yield = yield
		defer func() {
			// Only runtime.Goexit leaves fn unfinished (runHandler
			// recovers panics). iter.Pull would pass the exit on to the
			// loop's goroutine, inside handOver: yield instead, and let
			// the exit go on once the routine is stopped.
			if r.fn != nil {
				r.exited = true
				yield(-1)
			}
		}()
		for {
			r.fn()
			r.fn = nil
			if !yield(-1) {
				return
			}
		}
	})
	return r
}

// routines keeps the idle routines (up to maxIdleHandlers), so that the
// stack a handler grew is used again instead of being grown anew for each
// invocation.
type routines struct {
	mu   sync.Mutex
	idle []*routine
	// exiting counts the routines whose handler exited, ending.
	exiting sync.WaitGroup
}

// get is an idle routine, or a new one.
func (rs *routines) get() *routine {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if n := len(rs.idle); n > 0 {
		r := rs.idle[n-1]
		rs.idle = rs.idle[:n-1]
		return r
	}
	return newRoutine()
}

// put keeps r, whose handler has returned, for the next invocation, or
// ends it when enough routines are idle. A routine whose handler exited
// ends on a goroutine of its own, which the exit then ends too.
func (rs *routines) put(r *routine) {
	if r.exited {
		rs.exiting.Go(r.stop)
		return
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if len(rs.idle) < maxIdleHandlers {
		rs.idle = append(rs.idle, r)
		return
	}
	r.stop()
}

// close ends the idle routines and waits for those ending (Executor.Close,
// once no handler runs).
func (rs *routines) close() {
	rs.mu.Lock()
	for _, r := range rs.idle {
		r.stop()
	}
	rs.idle = nil
	rs.mu.Unlock()
	rs.exiting.Wait()
}

// afterYield continues once the handler of c yielded d (virtual mode):
// -1 means it finished; otherwise it is suspended in Delay(d) and resumes
// d later, unless the task times out first. Call with x.mu held.
func (x *execution) afterYield(ctx context.Context, c *call, d int64) {
	if d < 0 {
		c.cancel()
		if x.call != c {
			return
		}
		x.call = nil
		if x.status == Running {
			x.taskDone(ctx, c)
		}
		return
	}
	c.suspended = true
	x.e.suspended.add(c)
	wake, timeout := x.e.clock.now()+d, false
	if wake >= c.deadline {
		wake, timeout = c.deadline, true
	}
	x.later(wake, func(ctx context.Context) { x.resumeCall(ctx, c, timeout) })
}

// resumeCall wakes c's handler from Delay (virtual mode). On a timeout, or
// when the execution has ended, the call is cancelled first: Delay then
// returns at once, the handler runs to its end, and its result is ignored.
func (x *execution) resumeCall(ctx context.Context, c *call, timeout bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if !c.suspended {
		return
	}
	c.suspended = false
	x.e.suspended.remove(c)
	if !timeout && x.call == c && x.status == Running {
		x.afterYield(ctx, c, x.handOver(c))
		x.run(ctx)
		return
	}
	x.abandon(c)
	if x.call == c {
		x.call = nil
		if timeout && x.status == Running {
			x.taskTimedOut(ctx, asl.StatesTimeout)
			x.run(ctx)
		}
	}
}

// abandon ends c's handler, suspended in Delay: cancelled, it returns from
// Delay at once and runs to its end, and its result is ignored. Call with
// x.mu held; it is released meanwhile.
func (x *execution) abandon(c *call) {
	c.cancel()
	for x.handOver(c) >= 0 {
		// Delay does not suspend a cancelled call; be safe anyway.
	}
}

// suspendedCalls are the calls whose handlers are suspended in Delay
// (virtual clock), for Close to end them all, even those of executions
// compacted since they ended (see Executor.eachCall).
type suspendedCalls struct {
	mu   sync.Mutex
	m    map[*call]uint64 // the order of suspension
	next uint64
}

func (s *suspendedCalls) add(c *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil {
		s.m = make(map[*call]uint64)
	}
	s.next++
	s.m[c] = s.next
}

func (s *suspendedCalls) remove(c *call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, c)
}

// all lists the calls suspended, in the order they were suspended (so
// that Close ends them in the same order on every run).
func (s *suspendedCalls) all() []*call {
	s.mu.Lock()
	defer s.mu.Unlock()
	calls := slices.Collect(maps.Keys(s.m))
	slices.SortFunc(calls, func(a, b *call) int { return cmp.Compare(s.m[a], s.m[b]) })
	return calls
}
