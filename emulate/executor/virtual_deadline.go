package executor

import (
	"context"
	"slices"
	"sync"
)

// deadlineKey finds a handler's deadline on the virtual clock in its
// context: a *virtualDeadline.
type deadlineKey struct{}

// virtualDeadline is a deadline on the virtual clock, at (Unix
// nanoseconds). One set with WithDeadline is also the context that ends
// at it, or when its parent ends: its Done, Err and Value are its own,
// and Deadline is its parent's, since the wall-clock deadline that the
// context interface means is not this one. A Task state's deadline is a
// bare value (no context, done nil): its call's context ends at it.
type virtualDeadline struct {
	context.Context // the parent
	at              int64

	once  sync.Once
	done  chan struct{}
	mu    sync.Mutex
	err   error
	after []*func()   // run when d ends (AfterFunc)
	stop  func() bool // unregisters from the parent
}

// newVirtualDeadline returns a context ending at at or when parent ends.
func newVirtualDeadline(parent context.Context, at int64) *virtualDeadline {
	d := &virtualDeadline{Context: parent, at: at, done: make(chan struct{})}
	// Under d.mu: if parent has ended, end runs at once on another
	// goroutine, and reads stop.
	d.mu.Lock()
	defer d.mu.Unlock()
	d.stop = context.AfterFunc(parent, func() { d.end(parent.Err()) })
	return d
}

// end ends d with err, once; a Task state's deadline is left to its call.
func (d *virtualDeadline) end(err error) {
	if d.done == nil {
		return
	}
	d.once.Do(func() {
		d.mu.Lock()
		d.err = err
		after, stop := d.after, d.stop
		d.after = nil
		d.mu.Unlock()
		close(d.done)
		stop()
		for _, f := range after {
			go (*f)()
		}
	})
}

// AfterFunc arranges to call f on its own goroutine once d ends, as
// context.AfterFunc does; stop cancels that, and reports whether it did.
// The context package propagates d's end to the contexts made from it
// with this method: without it, each of them would start a goroutine to
// wait on Done.
func (d *virtualDeadline) AfterFunc(f func()) (stop func() bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.err != nil {
		go f()
		return func() bool { return false }
	}
	p := &f
	d.after = append(d.after, p)
	return func() bool {
		d.mu.Lock()
		defer d.mu.Unlock()
		i := slices.Index(d.after, p)
		if i < 0 {
			return false
		}
		d.after = slices.Delete(d.after, i, i+1)
		return true
	}
}

// Done is closed when d ends.
func (d *virtualDeadline) Done() <-chan struct{} { return d.done }

// Err is why d ended, or nil.
func (d *virtualDeadline) Err() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.err
}

// Value finds d under deadlineKey, and the rest in its parent.
func (d *virtualDeadline) Value(key any) any {
	if key == (deadlineKey{}) {
		return d
	}
	return d.Context.Value(key)
}
