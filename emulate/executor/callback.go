package executor

// The callback pattern ("Wait for a Callback with the Task Token",
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-to-resource.html#connect-wait-token)
// for arn:aws:states:::lambda:invoke.waitForTaskToken. Each attempt of
// such a task issues a token, seen by its Parameters as $$.Task.Token. The
// function is invoked as lambda:invoke invokes it (RequestResponse): a
// function error fails the task at once, and TimeoutSeconds counts from
// the start; once the function has returned, TaskSubmitted records its
// response and the task waits, with nothing on the timeline but its
// timeouts, for SendTaskSuccess or SendTaskFailure. The heartbeat clock
// starts then ("the heartbeat timeout doesn't start counting until after
// the Lambda function has completed executing",
// https://docs.aws.amazon.com/step-functions/latest/dg/connect-lambda.html).
//
// SendTask* never runs the state machine: under the execution's lock it
// settles the token (so exactly one of concurrent calls wins) and puts the
// continuation on the timeline at the current instant, where it runs in
// order with every other event. An outcome sent while the function is
// still running (a handler calling back with its own token) is applied
// when the invocation returns, after TaskSubmitted.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"time"

	"github.com/ohler55/ojg/oj"

	"github.com/redrive/redrive/emulate/asl"
	"github.com/redrive/redrive/emulate/quota"
)

// Task token layout: a header (version, the execution's index, the
// attempt's number), the HMAC-SHA256 of the header under the executor's
// key, and a ChaCha8 stream seeded by that HMAC to pad it to the length of
// AWS's tokens, base64-encoded as theirs are. 504 bytes make 672
// characters, within the API's taskToken limit. Version 1 tokens, which
// states saved before version 2 hold, padded with more HMACs instead.
// Version 3 tokens, which Options.Compact issues, are the header and the
// HMAC cut to 17 bytes, unpadded: 40 characters, for simulations that hold
// a million of them in waiting rooms.
const (
	tokenVersion = 2
	tokenHeader  = 1 + 8 + 4
	tokenBytes   = 504

	shortTokenVersion = 3
	shortTokenBytes   = tokenHeader + 17
)

// callback is a callback task's current attempt, from its TaskScheduled
// until its token settles, it times out or the execution ends.
type callback struct {
	// attempt is the number of the attempt's token (see issueToken): the
	// token itself, up to 672 characters, is not kept, as a million executions
	// may wait at once; a token naming this execution and attempt is one
	// the executor issued, since it is authenticated.
	attempt   uint32
	heartbeat time.Duration // HeartbeatSeconds; 0 means none
	deadline  int64         // clock time of the TimeoutSeconds timeout
	timed     bool          // TimeoutSeconds(Path) is set: deadline applies
	// submitted is set once the function has returned (TaskSubmitted).
	submitted bool
	// outcome is the settled result, waiting for the invocation to
	// return when it was sent earlier.
	outcome *outcome
	// open increases when the attempt closes, making its timers stale;
	// beat increases with each heartbeat (and on close), making the
	// previous heartbeat timer stale.
	open, beat atomic.Uint64
	// expiry and pulse are the events of its TimeoutSeconds and its
	// current HeartbeatSeconds, once submitted.
	expiry, pulse timer
}

// outcome is what SendTaskSuccess or SendTaskFailure settled a token with.
type outcome struct {
	output         any // SendTaskSuccess's output
	failed         bool
	errName, cause string // SendTaskFailure's
}

// SendTaskSuccess completes the callback task that issued token with
// output (JSON text of at most 256 KiB) as its result, to which
// ResultSelector, ResultPath and OutputPath then apply. The execution
// resumes at the clock's current instant. It is safe from any goroutine,
// including the Lambda handlers the executor runs. Errors, as the Step
// Functions API's: ErrInvalidToken, ErrTaskDoesNotExist, ErrTaskTimedOut
// (the task already succeeded, failed or timed out, or its execution
// ended), ErrInvalidOutput.
func (e *Executor) SendTaskSuccess(ctx context.Context, token, output string) error {
	if err := e.takeQuota(quota.SendTaskSuccess); err != nil {
		return err
	}
	f, attempt, err := e.tokenExecution(token)
	if err != nil {
		return err
	}
	if len(output) > asl.MaxPayloadBytes {
		return fmt.Errorf("%w: output is %d bytes, over the %d-byte limit", ErrInvalidOutput, len(output), asl.MaxPayloadBytes)
	}
	v, err := asl.DecodeJSON([]byte(output))
	if err != nil {
		return fmt.Errorf("%w: output is not valid JSON: %v", ErrInvalidOutput, err)
	}
	return f.onTask(attempt, func(x *execution, cb *callback) { x.settle(cb, &outcome{output: v}) })
}

// SendTaskFailure fails the callback task that issued token with the
// error errName and cause (either may be empty); its Retry and Catch
// apply. Otherwise it behaves as SendTaskSuccess, with the same errors
// but ErrInvalidOutput.
func (e *Executor) SendTaskFailure(ctx context.Context, token, errName, cause string) error {
	if err := e.takeQuota(quota.SendTaskFailure); err != nil {
		return err
	}
	f, attempt, err := e.tokenExecution(token)
	if err != nil {
		return err
	}
	return f.onTask(attempt, func(x *execution, cb *callback) {
		x.settle(cb, &outcome{failed: true, errName: errName, cause: cause})
	})
}

// SendTaskHeartbeat restarts the HeartbeatSeconds clock of the callback
// task that issued token (once its function has returned; before, the
// heartbeat is not yet enforced). TimeoutSeconds still applies. It records
// no event. Errors: ErrInvalidToken, ErrTaskDoesNotExist, ErrTaskTimedOut.
func (e *Executor) SendTaskHeartbeat(ctx context.Context, token string) error {
	if err := e.takeQuota(quota.SendTaskHeartbeat); err != nil {
		return err
	}
	f, attempt, err := e.tokenExecution(token)
	if err != nil {
		return err
	}
	return f.onTask(attempt, func(x *execution, cb *callback) {
		if cb.submitted {
			cb.beat.Add(1)
			x.armHeartbeat(cb)
		}
	})
}

// issueToken returns a new task token for the current attempt. Call with
// x.mu held.
func (x *execution) issueToken() string {
	x.issued++
	return x.e.token(x.rec.index, x.issued)
}

// token returns the task token of an execution's attempt: version 3
// with Options.Compact, 2 otherwise.
func (e *Executor) token(index uint64, attempt uint32) string {
	b := make([]byte, tokenHeader, tokenBytes)
	b[0] = tokenVersion
	if e.opts.Compact {
		b[0] = shortTokenVersion
	}
	binary.BigEndian.PutUint64(b[1:9], index)
	binary.BigEndian.PutUint32(b[9:13], attempt)
	return base64.StdEncoding.EncodeToString(append(b, e.tokenBody(b)...))
}

// tokenBody returns the part of a token that authenticates its header.
func (e *Executor) tokenBody(header []byte) []byte {
	switch header[0] {
	case 1:
		return e.tokenBodyV1(header)
	case shortTokenVersion:
		m := hmac.New(sha256.New, e.tokenKey)
		m.Write(header)
		return m.Sum(nil)[:shortTokenBytes-tokenHeader]
	}
	m := hmac.New(sha256.New, e.tokenKey)
	m.Write(header)
	body := make([]byte, tokenBytes-tokenHeader)
	mac := m.Sum(body[:0])
	_, _ = rand.NewChaCha8([32]byte(mac)).Read(body[len(mac):]) // never fails
	return body
}

// tokenBodyV1 is tokenBody for a version 1 token: HMACs of the header and
// a counter.
func (e *Executor) tokenBodyV1(header []byte) []byte {
	body := make([]byte, 0, tokenBytes-tokenHeader+sha256.Size)
	for i := byte(0); len(body) < tokenBytes-tokenHeader; i++ {
		m := hmac.New(sha256.New, e.tokenKey)
		m.Write(header)
		m.Write([]byte{i})
		body = m.Sum(body)
	}
	return body[:tokenBytes-tokenHeader]
}

// tokenExecution returns the execution that issued token and the number
// of the attempt it was issued for.
func (e *Executor) tokenExecution(token string) (found, uint32, error) {
	index, attempt, err := e.parseToken(token)
	if err != nil {
		return found{}, 0, err
	}
	e.mu.Lock()
	f, ok := e.byIndex(index)
	e.mu.Unlock()
	if !ok {
		return found{}, 0, fmt.Errorf("%w: no execution of this executor has the token (it issued none, or evicted it after Options.Retention)", ErrTaskDoesNotExist)
	}
	return f, attempt, nil
}

// parseToken returns the index of the execution that issued token and the
// number of the attempt it was issued for.
func (e *Executor) parseToken(token string) (index uint64, attempt uint32, err error) {
	// The length check also rejects the line breaks the decoder skips.
	b, err := base64.StdEncoding.DecodeString(token)
	if err != nil || !validTokenLength(token, b) || !hmac.Equal(b[tokenHeader:], e.tokenBody(b[:tokenHeader])) {
		return 0, 0, fmt.Errorf("%w: not a task token this executor issued", ErrInvalidToken)
	}
	return binary.BigEndian.Uint64(b[1:9]), binary.BigEndian.Uint32(b[9:13]), nil
}

// validTokenLength says the decoded token b is as long as its version's
// tokens, and token as long as their text.
func validTokenLength(token string, b []byte) bool {
	n := tokenBytes
	switch {
	case len(b) == 0:
		return false
	case b[0] == shortTokenVersion:
		n = shortTokenBytes
	case b[0] != tokenVersion && b[0] != 1:
		return false
	}
	return len(b) == n && len(token) == base64.StdEncoding.EncodedLen(n)
}

// onTask calls fn, with x.mu held, with the callback attempt waiting for
// the token of attempt, if it is open; otherwise it returns why not. A
// compacted execution has ended: its attempts are closed.
func (f found) onTask(attempt uint32, fn func(x *execution, cb *callback)) error {
	x := f.x
	if x == nil {
		return closedTask(f.sm.executionARN(f.r.name), f.r.issued, attempt)
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	cb := x.cb
	if cb == nil || cb.attempt != attempt || cb.outcome != nil {
		return closedTask(x.arn(), x.issued, attempt)
	}
	fn(x, cb)
	return nil
}

// closedTask is the error of a token for attempt, which has no open
// callback attempt, of the execution arn, which has issued issued tokens.
func closedTask(arn string, issued, attempt uint32) error {
	if attempt > issued {
		return fmt.Errorf("%w: %s issued no such task token", ErrTaskDoesNotExist, arn)
	}
	return fmt.Errorf("%w: the task of this token in %s has already closed", ErrTaskTimedOut, arn)
}

// settle settles cb, the open attempt, with o: at once, on the timeline,
// when its function has returned; otherwise when it returns. Call with
// x.mu held.
func (x *execution) settle(cb *callback, o *outcome) {
	cb.outcome = o
	if cb.submitted {
		x.closeCallback()
		x.suspend(x.e.clock.now(), resumption{kind: resumeOutcome, outcome: o})
	}
}

// await makes the current callback task wait for its token once its
// function has returned, or applies the outcome already sent. Call with
// x.mu held.
func (x *execution) await(ctx context.Context) {
	cb := x.cb
	cb.submitted = true
	if cb.outcome != nil {
		x.closeCallback()
		x.apply(ctx, cb.outcome)
		return
	}
	x.armHeartbeat(cb)
	if cb.timed {
		cb.expiry = x.e.scheduleIf(cb.deadline, &cb.open, cb.open.Load(), x.expirer(cb, asl.StatesTimeout))
	}
	x.freeze()
}

// freeze keeps the state's input as JSON text while the execution waits
// for a task token, which may take hours, and drops the context object
// (rebuilt alike on use): a parsed document takes several times the
// memory of its text, and a simulation can have a million executions
// waiting at once. thaw parses it back, so the text's key order does
// not matter. Call with x.mu held.
func (x *execution) freeze() {
	if x.rawInput == nil {
		return
	}
	x.frozenInput = []byte(oj.JSON(x.rawInput))
	x.rawInput, x.ctxObj = nil, nil
}

// thaw restores the input freeze kept as text. Call with x.mu held.
func (x *execution) thaw() {
	if x.frozenInput == nil {
		return
	}
	in, err := asl.DecodeJSON(x.frozenInput)
	if err != nil {
		panic(fmt.Sprintf("executor: thaw the input of %s: %v", x.arn(), err)) // it was written by oj.JSON
	}
	x.rawInput, x.frozenInput = in, nil
}

// armHeartbeat schedules cb's heartbeat timeout, HeartbeatSeconds from now.
func (x *execution) armHeartbeat(cb *callback) {
	if cb.heartbeat == 0 {
		return
	}
	cb.pulse = x.e.scheduleIf(x.e.after(cb.heartbeat), &cb.beat, cb.beat.Load(), x.expirer(cb, asl.StatesHeartbeatTimeout))
}

// expirer is the event timing cb out with name (States.Timeout or
// asl.StatesHeartbeatTimeout).
func (x *execution) expirer(cb *callback, name string) func(ctx context.Context) {
	return func(ctx context.Context) {
		x.mu.Lock()
		defer x.mu.Unlock()
		if x.cb != cb || x.status != Running {
			return
		}
		x.thaw()
		x.taskTimedOut(ctx, name)
		x.run(ctx)
	}
}

// apply ends the current callback task with a settled outcome.
func (x *execution) apply(ctx context.Context, o *outcome) {
	if o.failed {
		x.taskFailed(ctx, o.errName, o.cause)
		return
	}
	x.taskSucceeded(ctx, o.output)
}

// closeCallback closes the current callback attempt, if any: its token
// settles no more and its timers go stale. Call with x.mu held.
func (x *execution) closeCallback() {
	if cb := x.cb; cb != nil {
		cb.open.Add(1)
		cb.beat.Add(1)
		x.cb = nil
	}
}
