package emulator

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"

	"github.com/redrive/redrive/internal/simtarget"
)

// switchTarget is the consumer function: it hands each invocation to the
// current simulated target, which a test may replace to change the
// consumer's behaviour between scenarios.
type switchTarget struct {
	now func() time.Time

	mu      sync.Mutex
	current *simtarget.Target
}

// use makes a new simulated target behaving as b from now and returns it.
func (s *switchTarget) use(b Behaviour) (*simtarget.Target, error) {
	t, err := simtarget.New(simtarget.Options{
		Now:      s.now,
		Schedule: b.Schedule(s.now()),
		Poison:   simtarget.BodyContains(PoisonMarker),
	})
	if err != nil {
		return nil, fmt.Errorf("emulator: consumer %s: %w", b, err)
	}
	s.mu.Lock()
	s.current = t
	s.mu.Unlock()
	return t, nil
}

// target returns the current simulated target.
func (s *switchTarget) target() *simtarget.Target {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.current
}

// Handle is the consumer's Lambda handler.
func (s *switchTarget) Handle(ctx context.Context, ev events.SQSEvent) (events.SQSEventResponse, error) {
	return s.target().Handle(ctx, ev)
}
