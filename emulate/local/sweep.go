package local

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/room/pace"
)

// sweepEvery is the stack's sweep schedule (infra's SweepSchedule).
const sweepEvery = time.Minute

// sweepEvent is what the schedule sends the release function.
const sweepEvent = `{"sweep":true}`

// sweepSchedule emulates the stack's EventBridge schedule, which invokes
// the release function's sweep of the stalled rooms every minute
// (release.Launcher.Sweep). A service's runs every minute (run). On the
// virtual clock it runs only while the stalled-rooms list holds keys, so
// that the executor's Run still ends: a key put on the list arms it (arm,
// which the table's client calls), and a sweep that leaves the list empty
// disarms it.
type sweepSchedule struct {
	exec    *executor.Executor
	invoker executor.Invoker
	pace    *pace.Store // uncounted: the schedule's own look at the list
	logger  *slog.Logger

	mu    sync.Mutex
	armed bool
}

// arm schedules a sweep a minute from now unless one is scheduled.
func (s *sweepSchedule) arm() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.armed {
		return
	}
	s.armed = true
	s.exec.At(s.exec.Now().Add(sweepEvery), s.fire)
}

// fire sweeps, then arms again while keys are left on the list.
func (s *sweepSchedule) fire(ctx context.Context) {
	s.mu.Lock()
	s.armed = false
	s.mu.Unlock()
	s.sweep(ctx)
	if keys, err := s.pace.Stalled(ctx); err != nil || len(keys) > 0 {
		s.arm()
	}
}

// run sweeps every minute until ctx ends, as a service's schedule.
func (s *sweepSchedule) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-s.exec.After(sweepEvery):
			s.sweep(ctx)
		}
	}
}

// sweep invokes the release function with the schedule's event; a sweep
// that fails is logged, as EventBridge would leave it to the function's
// errors metric, and the next one tries again.
func (s *sweepSchedule) sweep(ctx context.Context) {
	if _, err := s.invoker.Invoke(ctx, functionARN(FunctionRelease), []byte(sweepEvent)); err != nil && ctx.Err() == nil {
		s.logger.ErrorContext(ctx, "sweep schedule: the release function failed", "error", err.Error())
	}
}
