package local

import (
	"fmt"

	"github.com/redrive/redrive/emulate/simtarget"
)

// demoCalls is how many calls a demo's consumer keeps in its ledger, so a
// long-running stack's memory stays flat.
const demoCalls = 10000

// UseConsumer makes the simulated consumer behave as b from now, or from
// its next call with fromFirstCall, with an empty ledger of its last
// demoCalls calls: a demo's consumer, failing a message whose body holds
// simtarget.PoisonMarker as poison. It returns the consumer.
func (s *Stack) UseConsumer(b simtarget.Behaviour, fromFirstCall bool) (*simtarget.Target, error) {
	err := s.Target.Reset(simtarget.Options{
		Clock:         s.Executor,
		Schedule:      b.Schedule(s.Executor.Now()),
		FromFirstCall: fromFirstCall,
		Poison:        simtarget.BodyContains(simtarget.PoisonMarker),
		Seed:          uint64(s.opts.Seed),
		KeepCalls:     demoCalls,
	})
	if err != nil {
		return nil, fmt.Errorf("local: consumer %s: %w", b, err)
	}
	return s.Target, nil
}
