package release

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
)

// TicksPerInvocation is how many ticks one invocation runs (about a
// minute), so the controller's loop costs two transitions a minute rather
// than two per tick; the release function's timeout is derived from it.
const TicksPerInvocation = 60

// MaxLoops is how many invocations one controller execution runs before
// it hands over to a new one, far below the 25,000-event history limit:
// each loop is at most three states (Release, More, Wait), about ten
// events.
const MaxLoops = 2000

// maxWait is the longest wait for the room: a controller waiting for its
// next message's time looks at the room at least this often, so that a
// message entering meanwhile (whose Ensure finds the controller alive)
// waits at most this; an open-ended FORCED_OPEN is looked at as often.
// A cooldown is waited out whole: it is at most the policy's CooldownMax,
// and nothing leaves the room before it ends.
const maxWait = time.Minute

// indexLag is how far behind the room's index a controller assumes it may
// be: a message that entered less than this before the controller last
// looked at the room keeps it running (pace.Store.Quit).
const indexLag = 5 * time.Second

// Input is the controller state machine's input and each tick's output.
type Input struct {
	// BreakerKey is the breaker whose room is released.
	BreakerKey string `json:"breakerKey"`
	// Epoch is the controller's lease epoch on the pace row.
	Epoch int64 `json:"epoch"`
	// Ticks counts this execution's ticks, Loops its invocations.
	Ticks int `json:"ticks"`
	Loops int `json:"loops"`
	// Sweep, instead of a controller's ticks, asks for a sweep of the
	// stalled rooms (Launcher.Sweep): the schedule's event,
	// {"sweep": true}, with no key.
	Sweep bool `json:"sweep,omitempty"`
}

// Output is one invocation's result: the next invocation's input, whether
// to stop or wait first, and what the ticks did.
type Output struct {
	Input
	// Done ends the controller execution.
	Done bool `json:"done"`
	// WaitSeconds, when above zero, is how long the state machine waits
	// (its Wait state, costing nothing) before the next invocation: a
	// cooldown, a forced mode's end, or the next backoff in the room.
	WaitSeconds int `json:"waitSeconds"`
	// State is the breaker's state at the last tick.
	State string `json:"breakerState"`
	// Rate is the release rate after the last tick, messages per second.
	Rate float64 `json:"rate"`
	// Released counts the executions the invocation started; Skipped the
	// entries another release had; Failed the releases that failed.
	Released int `json:"released"`
	Skipped  int `json:"skipped"`
	Failed   int `json:"failed"`
	// Swept is what a sweep did (Input.Sweep).
	Swept *Swept `json:"swept,omitempty"`
}

// Breaker is the part of *breaker.Breaker the controller calls.
type Breaker interface {
	Status(ctx context.Context, key string) (breaker.Row, error)
	Policy() breaker.Policy
}

var _ Breaker = (*breaker.Breaker)(nil)

// Handler runs the controller's ticks. Every field but Metrics is
// required.
type Handler struct {
	// Breaker tells what the room may release and how fast.
	Breaker Breaker
	// Room holds the waiting messages.
	Room *room.Room
	// Releaser starts the released messages' executions.
	Releaser room.Releaser
	// Launcher hands over to a new controller after MaxLoops; its Policy,
	// which must have its defaults applied (pace.Policy.WithDefaults, as
	// the Builder in lambda/wire does), paces the ticks as it is.
	Launcher *Launcher
	// Logger gets one line per tick that releases or waits.
	Logger *slog.Logger
	// Metrics, if set, gets each tick's Released count and the room's
	// gauges (report).
	Metrics Metrics
	// Clock is the clock the ticks read and wait on (in AWS, the wall
	// clock; in the local executor, virtual time).
	Clock clock.Clock
}

// Handle runs up to TicksPerInvocation ticks, until one says the
// controller is done or is to wait; for the schedule's sweep event, a
// sweep.
func (h *Handler) Handle(ctx context.Context, in Input) (Output, error) {
	if in.Sweep {
		return h.sweep(ctx, in)
	}
	in.Loops++
	if in.Loops > MaxLoops {
		out, err := h.handOver(ctx, Output{Input: in})
		return out, retryable.Name("release", err, func(error) bool { return false })
	}
	out := Output{Input: in}
	var sum Output
	var err error
	for range TicksPerInvocation {
		out, err = h.tick(ctx, out.Input)
		sum.Released, sum.Skipped, sum.Failed = sum.Released+out.Released, sum.Skipped+out.Skipped, sum.Failed+out.Failed
		if err != nil || out.Done || out.WaitSeconds > 0 {
			break
		}
	}
	out.Released, out.Skipped, out.Failed = sum.Released, sum.Skipped, sum.Failed
	return out, retryable.Name("release", err, func(error) bool { return false })
}

// sweep runs Launcher.Sweep and logs what it did: a stalled room is a
// warning (its messages waited for a controller), a key it could not
// start one for an error.
func (h *Handler) sweep(ctx context.Context, in Input) (Output, error) {
	swept, err := h.Launcher.Sweep(ctx)
	for _, key := range swept.Started {
		h.Logger.WarnContext(ctx, "started the controller of a stalled room", "breaker", key)
	}
	if err != nil {
		h.Logger.ErrorContext(ctx, "could not start the controllers of stalled rooms", "breakers", swept.Failed, "error", err.Error())
	}
	return Output{Input: in, Done: true, Swept: &swept}, err
}

// tick runs one tick. By the breaker's state:
//
//   - CLOSED, FORCED_CLOSED: the tick's quota of the room's due messages,
//     at the key's pace and within what the target's budget (shared with
//     the other keys' controllers: pace.Store.Take) gives it, spread over
//     the tick;
//   - HALF_OPEN: one message per free canary permit;
//   - OPEN: until the cooldown ends, a wait (the state machine's); then
//     one message, the probe, once no probe is out;
//   - FORCED_OPEN: a wait until the forced mode ends (without an end, a
//     minute at a time: the operator's release or close takes over).
//
// While the target's throttle pause lasts (this key's, or another's
// noted on the target's pace row) it releases nothing. When the
// room has nothing due, it waits for the next message's time; when the
// room is empty, the controller stops, unless a message entered just
// before (see indexLag).
func (h *Handler) tick(ctx context.Context, in Input) (Output, error) {
	key, pol := in.BreakerKey, h.Launcher.Policy
	out := Output{Input: in}
	out.Ticks++
	now := h.Clock.Now()
	row, err := h.Breaker.Status(ctx, key)
	if err != nil {
		// The row cannot be read (the table fails, or the row does not
		// decode): release one due message a tick all the same. Its
		// Attempt asks the breaker itself and waits the table out in the
		// room, up to TABLE_RETRY_BUDGET, then parks it: a room is never
		// held by a row nobody can read.
		h.Logger.WarnContext(ctx, "could not read the breaker; releasing one message a tick", "breaker", key, "error", err.Error())
		if mine, err := h.renew(ctx, in, now.Add(pol.Lease)); err != nil || !mine {
			out.Done = true
			return out, err
		}
		return h.release(ctx, out, breaker.Row{}, 1, false, now)
	}
	row = row.At(now)
	out.State = row.State.String()

	quota := 0
	var throttles int64 // the target's throttles of this key since the last tick
	switch row.State {
	case breaker.Closed, breaker.ForcedClosed:
		st, mine, err := h.Launcher.Pace.Update(ctx, key, in.Epoch, func(s pace.State) pace.State {
			throttles = 0
			if s.Rate > 0 {
				throttles = max(row.Totals.Throttles-s.SeenThrottles, 0)
			}
			s, quota = pol.Step(s, row.Totals.Throttles)
			s.ReleaserUntil = now.Add(pol.Lease)
			return s
		})
		if err != nil || !mine {
			out.Done = true
			return out, err
		}
		out.Rate = st.Rate
	case breaker.HalfOpen:
		quota = h.Breaker.Policy().HalfOpenPermits - liveLeases(row, now)
	case breaker.Open:
		if row.OpenUntil.After(now) {
			return h.waitUntil(ctx, out, row.OpenUntil)
		}
		if liveLeases(row, now) == 0 {
			quota = 1 // the probe
		}
	case breaker.ForcedOpen:
		// Until its end, or (without one) until an operator's release or
		// close, which takes over from this controller at once.
		end := row.ForcedUntil
		if end.IsZero() {
			end = now.Add(maxWait)
		}
		return h.waitUntil(ctx, out, end)
	default:
		return h.stop(ctx, out, now)
	}
	if row.State != breaker.Closed && row.State != breaker.ForcedClosed {
		if mine, err := h.renew(ctx, in, now.Add(pol.Lease)); err != nil || !mine {
			out.Done = true
			return out, err
		}
	}
	if pause := row.ThrottledUntil.Sub(now); pause > 0 {
		// The target throttled: a message released now would only be
		// turned back to the room. Wait the pause out, a tick at most.
		h.Clock.Sleep(ctx, min(pause, pol.Tick))
		return out, nil
	}
	shared := false
	if row.State == breaker.Closed || row.State == breaker.ForcedClosed {
		g, err := h.Launcher.Pace.Take(ctx, pol, now, quota, throttles)
		switch {
		case err != nil:
			// The key's own pace still bounds the tick.
			h.Logger.WarnContext(ctx, "could not take from the target's budget; releasing at the key's own pace",
				"breaker", key, "error", err.Error())
		case g.PausedUntil.After(now):
			// Another key's messages were throttled: wait its pause out.
			h.Clock.Sleep(ctx, min(g.PausedUntil.Sub(now), pol.Tick))
			return out, nil
		default:
			quota, shared = g.N, g.Shared
		}
	}
	return h.release(ctx, out, row, quota, shared, now)
}

// release releases up to quota of the room's due messages in the tick
// that started at now, row being the breaker as the tick read it; shared
// says other keys' controllers release to the target too.
func (h *Handler) release(ctx context.Context, out Output, row breaker.Row, quota int, shared bool, now time.Time) (Output, error) {
	key, pol, in := out.BreakerKey, h.Launcher.Policy, out.Input
	c := h.Room.ReleaseDue(ctx, h.Releaser, key, quota, now, pol.Tick/time.Duration(max(quota, 1)), h.Clock, h.unthrottled(key, shared))
	out.Released, out.Skipped, out.Failed = c.Released, c.Skipped, c.Failed
	if c.Err != nil {
		h.Logger.WarnContext(ctx, "releases failed; the messages stay in line", "breaker", key,
			"failed", c.Failed, "released", c.Released, "error", c.Err.Error())
	}
	if c.Undeleted > 0 {
		h.Logger.WarnContext(ctx, "released messages left in the room: their entries could not be deleted; they go again when their claims expire (the delivery ledger makes that harmless)",
			"breaker", key, "undeleted", c.Undeleted)
	}
	if _, _, err := h.Launcher.Pace.Update(ctx, key, in.Epoch, func(s pace.State) pace.State {
		s.Full = c.Released+c.Skipped >= quota && quota > 0 && row.State != breaker.HalfOpen
		return s
	}); err != nil {
		return out, fmt.Errorf("release: %w", err)
	}
	if quota > 0 || c.Listed > 0 {
		h.Logger.InfoContext(ctx, "release tick", "breaker", key, "epoch", in.Epoch, "tick", out.Ticks,
			"breakerState", out.State, "rate", out.Rate, "quota", quota, "released", c.Released, "skipped", c.Skipped, "failed", c.Failed,
			"behindInGroup", c.Behind)
	}
	h.report(ctx, out, pol.Tick)
	if c.Err == nil && c.Listed < quota {
		// The room ran short: wait for its next message, or stop.
		return h.next(ctx, out, now)
	}
	return h.pauseRest(ctx, out, now)
}

// next handles a room that had fewer due messages than the tick's quota,
// as listed at listed: it waits for the next message's time when one
// waits, and stops when none does.
func (h *Handler) next(ctx context.Context, out Output, listed time.Time) (Output, error) {
	first, err := h.Room.Oldest(ctx, out.BreakerKey, 1)
	if err != nil {
		return out, fmt.Errorf("release: %w", err)
	}
	if len(first) == 0 {
		return h.stop(ctx, out, listed)
	}
	if first[0].Place != nil {
		// FIFO: the first in line is the oldest group's message, not the
		// next to go; other groups' heads may go sooner. Tick on.
		return h.pauseRest(ctx, out, listed)
	}
	now := h.Clock.Now()
	if due := first[0].Due(); due.Sub(now) > h.Launcher.Policy.Tick {
		if limit := now.Add(maxWait); due.After(limit) {
			due = limit
		}
		return h.waitUntil(ctx, out, due)
	}
	return h.pauseRest(ctx, out, listed)
}

// pauseRest sleeps what is left of the tick that started at start.
func (h *Handler) pauseRest(ctx context.Context, out Output, start time.Time) (Output, error) {
	if rest := h.Launcher.Policy.Tick - h.Clock.Now().Sub(start); rest > 0 {
		h.Clock.Sleep(ctx, rest)
	}
	return out, nil
}

// waitUntil has the state machine wait until t (or the invocation sleep,
// when t is within a tick), holding the lease through the wait.
func (h *Handler) waitUntil(ctx context.Context, out Output, t time.Time) (Output, error) {
	now, pol := h.Clock.Now(), h.Launcher.Policy
	d := t.Sub(now)
	if d <= pol.Tick {
		// Within the tick: sleep it, a whole tick when t has passed, so
		// that a state the row no longer shows never spins the loop.
		if d <= 0 {
			d = pol.Tick
		}
		h.Clock.Sleep(ctx, d)
		return out, nil
	}
	mine, err := h.renew(ctx, out.Input, t.Add(pol.Lease))
	if err != nil || !mine {
		out.Done = true
		return out, err
	}
	out.WaitSeconds = int(math.Ceil(d.Seconds()))
	h.Logger.InfoContext(ctx, "controller waits", "breaker", out.BreakerKey, "epoch", out.Epoch,
		"breakerState", out.State, "until", t, "waitSeconds", out.WaitSeconds)
	return out, nil
}

// renew extends the controller's lease until until; false means a newer
// controller took over.
func (h *Handler) renew(ctx context.Context, in Input, until time.Time) (bool, error) {
	mine, err := h.Launcher.Pace.Hold(ctx, in.BreakerKey, in.Epoch, until)
	if err != nil {
		return false, fmt.Errorf("release: renew the lease: %w", err)
	}
	return mine, nil
}

// throttleCheck is how often, at most, a tick looks at the breaker row for a
// throttle while it releases: messages released after a throttle would
// only be turned back to the room, so the tick stops early. Ten reads a
// second per controller, whatever the rate.
const throttleCheck = 100 * time.Millisecond

// unthrottled returns a check that reports false once the target throttled
// (the breaker row's ThrottledUntil is ahead) or the breaker stopped
// letting messages through, reading the row at most every throttleCheck;
// when shared, also once another key's message was throttled (the
// target's pace row notes a pause), reading that row before every
// release: a few releases at the pace of many controllers would be a
// burst past the target's capacity.
func (h *Handler) unthrottled(key string, shared bool) func(context.Context) bool {
	last := h.Clock.Now()
	return func(ctx context.Context) bool {
		now := h.Clock.Now()
		if shared {
			if paused, err := h.Launcher.Pace.PausedUntil(ctx); err == nil && now.Before(paused) {
				return false
			}
		}
		if now.Sub(last) < throttleCheck {
			return true
		}
		last = now
		row, err := h.Breaker.Status(ctx, key)
		if err != nil {
			return true // the tick goes on; its next Status reports the error
		}
		return !now.Before(row.ThrottledUntil) &&
			(row.State == breaker.Closed || row.State == breaker.ForcedClosed || row.State == breaker.HalfOpen)
	}
}

// stop ends this controller, unless a message entered the room at or
// after what the index may lag behind checked (when the room was last
// looked at): then the controller goes on. A controller whose epoch is
// over (a newer one took over) ends.
func (h *Handler) stop(ctx context.Context, out Output, checked time.Time) (Output, error) {
	quit, mine, err := h.Launcher.Pace.Quit(ctx, out.BreakerKey, out.Epoch, checked.Add(-indexLag))
	if err != nil {
		return out, fmt.Errorf("release: %w", err)
	}
	if quit || !mine {
		out.Done = true
		return out, nil
	}
	// A message just entered: look again at the next tick.
	return h.pauseRest(ctx, out, checked)
}

// handOver ends this execution and starts the next controller of the key,
// unless a newer controller holds the key already.
func (h *Handler) handOver(ctx context.Context, out Output) (Output, error) {
	out.Done = true
	mine, err := h.Launcher.Pace.Hold(ctx, out.BreakerKey, out.Epoch, time.Time{})
	if err != nil {
		return out, fmt.Errorf("release: give up the lease: %w", err)
	}
	if !mine {
		return out, nil
	}
	if _, err := h.Launcher.Ensure(ctx, out.BreakerKey); err != nil {
		return out, fmt.Errorf("release: start the next controller: %w", err)
	}
	return out, nil
}

// liveLeases counts the row's unexpired canary leases.
func liveLeases(r breaker.Row, now time.Time) int {
	n := 0
	for _, l := range r.Leases {
		if l.Expires.After(now) {
			n++
		}
	}
	return n
}
