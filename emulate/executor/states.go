package executor

import (
	"github.com/redrive/redrive/emulate/asl"
)

// The runs of the state types but Task (task.go): each processes the
// state's input, leaves it (exit) or ends the execution. Call them with
// x.mu held.

// pass runs a Pass state.
func (x *execution) pass(st *asl.State) {
	out, err := st.PassOutput(x.rawInput, x.contextObject(), x)
	if err != nil {
		x.failState(err)
		return
	}
	x.exit(st, out, st.Next())
}

// wait runs a Wait state: the execution resumes when the wait is over.
func (x *execution) wait(st *asl.State) {
	ctxObj := x.contextObject()
	eff, err := st.InputPath(x.rawInput, ctxObj)
	if err != nil {
		x.failState(err)
		return
	}
	until, err := st.WaitUntil(eff, ctxObj, x.e.Now())
	if err != nil {
		x.failState(err)
		return
	}
	if until.UnixNano() <= x.e.clock.now() {
		x.leaveWait(eff)
		return
	}
	x.suspend(until.UnixNano(), resumption{kind: resumeWait, input: eff})
}

// leaveWait leaves the current Wait state, whose effective input is eff.
func (x *execution) leaveWait(eff any) {
	st := x.cur
	out, err := st.OutputPath(eff, x.contextObject())
	if err != nil {
		x.failState(err)
		return
	}
	x.exit(st, out, st.Next())
}

// choose runs a Choice state: the first matching rule's Next, else
// Default.
func (x *execution) choose(st *asl.State) {
	ctxObj := x.contextObject()
	eff, err := st.InputPath(x.rawInput, ctxObj)
	if err != nil {
		x.failState(err)
		return
	}
	target, err := st.Choose(eff, ctxObj)
	if err != nil {
		x.failState(err)
		return
	}
	out, err := st.OutputPath(eff, ctxObj)
	if err != nil {
		x.failState(err)
		return
	}
	x.exit(st, out, target)
}

// succeedState runs a Succeed state.
func (x *execution) succeedState(st *asl.State) {
	ctxObj := x.contextObject()
	eff, err := st.InputPath(x.rawInput, ctxObj)
	if err == nil {
		eff, err = st.OutputPath(eff, ctxObj)
	}
	if err != nil {
		x.failState(err)
		return
	}
	x.exit(st, eff, nil)
}

// failWith runs a Fail state.
func (x *execution) failWith(st *asl.State) {
	name, cause, err := st.FailError(x.rawInput, x.contextObject())
	if err != nil {
		x.failState(err)
		return
	}
	x.fail(name, cause)
}
