package release

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/lambda/retryable"
	"github.com/redrive/redrive/room"
	"github.com/redrive/redrive/room/pace"
)

// TicksPerInvocation is how many ticks one invocation runs (about ten
// seconds), so the release state machine's loop costs two transitions per
// ten ticks rather than per tick.
const TicksPerInvocation = 10

// MaxTicks is how many ticks one releaser execution runs before it hands
// over to a new one, far below the 25,000-event history limit (each
// invocation is two states, about seven events).
const MaxTicks = 10000

// Input is the release state machine's input and each tick's output.
type Input struct {
	// BreakerKey is the breaker whose room is released.
	BreakerKey string `json:"breakerKey"`
	// Epoch is the releaser's lease epoch on the pace row.
	Epoch int64 `json:"epoch"`
	// Ticks counts this execution's ticks.
	Ticks int `json:"ticks"`
}

// Output is one tick's result: the next tick's input, whether to stop, and
// what the tick did.
type Output struct {
	Input
	// Done ends the releaser execution.
	Done bool `json:"done"`
	// State is the breaker's state at the tick.
	State string `json:"breakerState"`
	// Rate is the release rate after the tick, messages per second.
	Rate float64 `json:"rate"`
	// Released counts the executions the invocation resumed (the tick's,
	// from tick); Dropped the tokens whose executions were gone.
	Released int `json:"released"`
	Dropped  int `json:"dropped"`
}

// Breaker is the part of *breaker.Breaker the releaser calls.
type Breaker interface {
	Status(ctx context.Context, key string) (breaker.Row, error)
	Policy() breaker.Policy
}

var _ Breaker = (*breaker.Breaker)(nil)

// Handler runs one releaser tick. Every field is required.
type Handler struct {
	// Breaker tells whether the room may be released and how fast.
	Breaker Breaker
	// Room holds the waiting messages.
	Room *room.Room
	// Tasks resumes executions.
	Tasks room.TaskAPI
	// Launcher hands over to a new releaser after MaxTicks; its Policy,
	// which must have its defaults applied (pace.Policy.WithDefaults, as
	// the Builder in lambda/wire does), paces the ticks as it is.
	Launcher *Launcher
	// Logger gets one line per tick.
	Logger *slog.Logger
	// Metrics, if set, gets each tick's Released count and the room's
	// gauges (report).
	Metrics Metrics
	// Clock is the clock the ticks read and wait on (in AWS, the wall
	// clock; in the local executor, virtual time).
	Clock clock.Clock
}

// Handle runs up to TicksPerInvocation ticks, until one says the releaser
// is done.
func (h *Handler) Handle(ctx context.Context, in Input) (Output, error) {
	out := Output{Input: in}
	released, dropped := 0, 0
	var err error
	for range TicksPerInvocation {
		out, err = h.tick(ctx, out.Input)
		released, dropped = released+out.Released, dropped+out.Dropped
		if err != nil || out.Done {
			break
		}
	}
	out.Released, out.Dropped = released, dropped
	return out, retryable.Name("release", err, func(error) bool { return false })
}

// tick runs one tick: while the target's throttle pause lasts it releases
// nothing and waits; while the breaker is CLOSED (or forced closed) it
// releases the tick's quota of the oldest messages spread over the tick;
// while HALF_OPEN, one message per free canary permit; while OPEN or
// forced open, nothing, and the releaser stops (the scout's probe, or an
// operator's command, starts the next). It stops too when the room is
// empty.
func (h *Handler) tick(ctx context.Context, in Input) (Output, error) {
	key, pol := in.BreakerKey, h.Launcher.Policy
	out := Output{Input: in}
	out.Ticks++
	row, err := h.Breaker.Status(ctx, key)
	if err != nil {
		return out, fmt.Errorf("release: %w", err)
	}
	out.State = row.State.String()

	var quota int
	switch row.State {
	case breaker.Closed, breaker.ForcedClosed:
		var st pace.State
		var mine bool
		st, mine, err = h.Launcher.Pace.Update(ctx, key, in.Epoch, func(s pace.State) pace.State {
			s, quota = pol.Step(s, row.Totals.Throttles)
			s.ReleaserUntil = h.Clock.Now().Add(pol.Lease)
			return s
		})
		if err != nil || !mine {
			out.Done = true
			return out, err
		}
		out.Rate = st.Rate
	case breaker.HalfOpen:
		quota = h.Breaker.Policy().HalfOpenPermits - liveLeases(row, h.Clock.Now())
		if _, mine, err := h.Launcher.Pace.Update(ctx, key, in.Epoch, func(s pace.State) pace.State {
			s.ReleaserUntil = h.Clock.Now().Add(pol.Lease)
			return s
		}); err != nil || !mine {
			out.Done = true
			return out, err
		}
	default:
		return h.stop(ctx, out)
	}
	if pause := row.ThrottledUntil.Sub(h.Clock.Now()); pause > 0 {
		// The target throttled: a message released now would only be
		// turned back to the room, and would start a releaser again at
		// once. Wait the pause out, a tick at most, keeping the lease.
		h.Clock.Sleep(ctx, min(pause, pol.Tick))
		return out, nil
	}

	start := h.Clock.Now()
	c, err := h.Room.ReleaseOldest(ctx, h.Tasks, key, quota, room.Spread(pol.Tick, quota, h.Clock.Sleep, h.unthrottled(key)))
	out.Released, out.Dropped = c.Resumed, c.Gone
	if c.Undeleted > 0 {
		h.Logger.WarnContext(ctx, "released messages left in the room: their entries could not be deleted; the next release drops them",
			"breaker", key, "undeleted", c.Undeleted)
	}
	if err != nil {
		return out, fmt.Errorf("release: %w", err)
	}
	full := c.Resumed+c.Gone >= quota
	drained := c.Listed < quota
	if _, _, err := h.Launcher.Pace.Update(ctx, key, in.Epoch, func(s pace.State) pace.State {
		s.Full = full && row.State != breaker.HalfOpen
		return s
	}); err != nil {
		return out, fmt.Errorf("release: %w", err)
	}
	h.Logger.InfoContext(ctx, "release tick", "breaker", key, "epoch", in.Epoch, "tick", out.Ticks,
		"breakerState", out.State, "rate", out.Rate, "quota", quota, "released", c.Resumed, "dropped", c.Gone)
	h.report(ctx, out, pol.Tick)
	if drained && row.State != breaker.HalfOpen {
		return h.stop(ctx, out)
	}
	if rest := pol.Tick - h.Clock.Now().Sub(start); rest > 0 {
		h.Clock.Sleep(ctx, rest)
	}
	if out.Ticks >= MaxTicks {
		return h.handOver(ctx, out)
	}
	return out, nil
}

// throttleCheck is how often, at most, a tick looks at the breaker row for a
// throttle while it releases: messages released after a throttle would
// only be turned back to the room, so the tick stops early. Ten reads a
// second per releaser, whatever the rate.
const throttleCheck = 100 * time.Millisecond

// unthrottled returns a check that reports false once the target throttled
// (the breaker row's ThrottledUntil is ahead) or the breaker stopped
// letting messages through (CLOSED, FORCED_CLOSED, HALF_OPEN: a HALF_OPEN
// tick releases one message per free permit), reading the row at most
// every throttleCheck.
func (h *Handler) unthrottled(key string) func(context.Context) bool {
	last := h.Clock.Now()
	return func(ctx context.Context) bool {
		now := h.Clock.Now()
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

// stop ends this releaser. When the breaker is closed it looks at the
// room once more after giving up the lease, so a message that entered
// while it was stopping still gets a releaser.
func (h *Handler) stop(ctx context.Context, out Output) (Output, error) {
	out.Done = true
	if err := h.quit(ctx, out); err != nil {
		return out, err
	}
	if out.State != breaker.Closed.String() && out.State != breaker.ForcedClosed.String() {
		return out, nil
	}
	left, err := h.Room.Oldest(ctx, out.BreakerKey, 1)
	if err != nil || len(left) == 0 {
		return out, err
	}
	return out, h.relaunch(ctx, out)
}

// handOver ends this execution and starts the next releaser of the key.
func (h *Handler) handOver(ctx context.Context, out Output) (Output, error) {
	out.Done = true
	if err := h.quit(ctx, out); err != nil {
		return out, err
	}
	return out, h.relaunch(ctx, out)
}

// quit gives up this releaser's lease.
func (h *Handler) quit(ctx context.Context, out Output) error {
	_, _, err := h.Launcher.Pace.Update(ctx, out.BreakerKey, out.Epoch, func(s pace.State) pace.State {
		s.ReleaserUntil = time.Time{}
		return s
	})
	if err != nil {
		return fmt.Errorf("release: give up the lease: %w", err)
	}
	return nil
}

// relaunch starts the key's next releaser.
func (h *Handler) relaunch(ctx context.Context, out Output) error {
	if _, err := h.Launcher.Ensure(ctx, out.BreakerKey); err != nil {
		return fmt.Errorf("release: start the next releaser: %w", err)
	}
	return nil
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
