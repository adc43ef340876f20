package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/sim"
	"github.com/redrive/redrive/emulate/simtarget"
)

// smallFIFO is small with its messages in 8 FIFO groups.
func smallFIFO() sim.Scenario {
	s := small()
	s.Name, s.Messages.Groups = "small-fifo", 8
	return s
}

// The consumer counts a delivery that comes after a later message of its
// group as out of order; a delivery again of the latest is not.
func TestTheConsumerCountsDeliveriesOutOfOrder(t *testing.T) {
	s := smallFIFO()
	s.Target.Health, s.Messages.Poison = nil, 0
	plan := s.Plan()
	require.Equal(t, plan[0].Group, plan[8].Group, "round-robin over 8 groups")
	clock := breakertest.NewClock(sim.Epoch)
	calls := sim.NewCallTally(s)
	opts := s.TargetOptions(clock, calls.Add)
	opts.Latency = 0
	target, err := simtarget.New(opts)
	require.NoError(t, err)
	for n, i := range []int{0, 8, 8, 1, 16, 0} { // group 1: 0, 8, 8 again, 16, then 0 late
		clock.Set(sim.Epoch.Add(time.Duration(n) * time.Second)) // within capacity
		_, err := target.Handle(context.Background(), events.SQSEvent{Records: []events.SQSMessage{plan[i].Event()}})
		require.NoError(t, err)
	}
	m := sim.Measure(s, plan, sim.Outcome{Calls: *calls}, sim.ListPrices)
	assert.True(t, m.FIFO)
	assert.Equal(t, 1, m.OutOfOrder, "m-000001 after m-000017")
	assert.Equal(t, 2, m.Twice, "m-000009 and m-000001 twice")
}

// Redrive on a FIFO DLQ through an outage: each group in its order.
func TestRedriveKeepsEachFIFOGroupsOrder(t *testing.T) {
	s := smallFIFO()
	res, err := sim.Play(context.Background(), s, []sim.Strategy{sim.Redrive{}}, &recorder{})
	require.NoError(t, err)
	f := res.Metrics[0].Figures()
	require.NotNil(t, f.DeliveredOutOfOrder)
	assert.Zero(t, *f.DeliveredOutOfOrder)
	assert.Zero(t, f.Lost)
	assert.Zero(t, f.DeliveredTwice)
	assert.Equal(t, s.Messages.Count, f.Delivered+f.Parked)
	assert.Positive(t, f.OutageCalls, "the outage was met")
}

// With FIFO_ON_PARK=hold, a poison message holds its group until the
// operator lifts the holds: the group's later messages are delivered only
// after, each group still in its order, nothing lost.
func TestRedriveHoldsAFIFOGroupUntilLifted(t *testing.T) {
	s := smallFIFO()
	s.FIFOOnPark, s.LiftHoldsAt = "hold", 40*time.Minute
	res, err := sim.Play(context.Background(), s, []sim.Strategy{sim.Redrive{}}, &recorder{})
	require.NoError(t, err)
	f := res.Metrics[0].Figures()
	require.NotNil(t, f.DeliveredOutOfOrder)
	assert.Zero(t, *f.DeliveredOutOfOrder)
	assert.Zero(t, f.Lost)
	assert.Zero(t, f.Pending, "lifted: every held group went on")
	assert.Equal(t, s.Messages.Count, f.Delivered+f.Parked)
	require.NotNil(t, f.DrainSeconds)
	assert.Greater(t, *f.DrainSeconds, (40*time.Minute - 11*time.Minute).Seconds(), "the held groups' last delivery came after the lift")
}
