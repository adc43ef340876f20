package executor

import "context"

// resumeKind is what a suspended execution continues with.
type resumeKind uint8

const (
	resumeStart      resumeKind = iota // entering its start state
	resumeWait                         // leaving a Wait state
	resumeRetry                        // a Task state's next attempt
	resumeOutcome                      // a callback task's settled outcome
	resumeCall                         // invoking a Task state's function again (Restore)
	resumeTransition                   // entering next once Options.Quotas has the transition's token
)

// resumption is a suspended execution's continuation: data rather than a
// closure, so that a snapshot records it and Restore schedules it again
// at its place on the timeline.
type resumption struct {
	kind    resumeKind
	timer   timer
	input   any      // resumeWait: the Wait state's effective input
	outcome *outcome // resumeOutcome
	call    callSpec // resumeCall
}

// suspend continues the execution with r at clock time at, unless it has
// ended by then. Call with x.mu held.
func (x *execution) suspend(at int64, r resumption) {
	x.pending = &r
	r.timer = x.later(at, x.resumer(&r))
}

// resumer is the event continuing the execution with r, its pending
// continuation, unless it has ended by then.
func (x *execution) resumer(r *resumption) func(ctx context.Context) {
	return func(ctx context.Context) {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.pending != r || x.status != Running {
			return
		}
		x.pending = nil
		x.resume(ctx, r)
		x.run(ctx)
	}
}

// resume continues the execution with r. Call with x.mu held.
func (x *execution) resume(ctx context.Context, r *resumption) {
	x.thaw()
	switch r.kind {
	case resumeStart:
		x.next, x.nextInput = x.sm.def.StartAt(), x.input
		x.input = nil // the start state has it; inputText keeps the text
	case resumeWait:
		x.leaveWait(r.input)
	case resumeRetry:
		x.startTask(ctx)
	case resumeOutcome:
		x.apply(ctx, r.outcome)
	case resumeCall:
		x.invoke(ctx, r.call)
	case resumeTransition: // x.next is where it goes
	}
}
