package sim_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/quota"
	"github.com/redrive/redrive/emulate/sim"
)

// TestQuotasThrottleAndLoseNothing lands 1,000 messages in the DLQ at once
// under the standard account quotas, more than Standard StartExecution's
// burst of 800 and than a second of its refill: both strategies with
// executions are throttled, try again, and lose nothing and deliver
// nothing twice; the figures report the throttles and the peaks.
func TestQuotasThrottleAndLoseNothing(t *testing.T) {
	s := sim.Default()
	s.Name, s.Quotas = "burst-under-quotas", "standard"
	s.Horizon = 2 * time.Hour
	s.Messages = sim.Messages{Count: 1000, Start: time.Minute, Rate: 0, Tenants: 1}
	s.Target.Capacity = 100
	s.Target.Health = nil
	res, err := sim.Play(context.Background(), s, []sim.Strategy{sim.Redrive{}, sim.NaiveBackoff{}}, &recorder{})
	require.NoError(t, err)
	for _, f := range sim.SummaryOf(res).Strategies {
		t.Run(f.Strategy, func(t *testing.T) {
			assert.Equal(t, 1000, f.Delivered, "every message delivered")
			assert.Zero(t, f.Lost)
			assert.Zero(t, f.DeliveredTwice)
			assert.Positive(t, f.QuotaThrottles[string(quota.StandardStart)], "starts past the burst were throttled")
			assert.Greater(t, f.QuotaPeakUse[string(quota.StandardStart)], 1.0, "the burst's second")
			require.NotNil(t, f.PeakOpenStandardExecutions)
			assert.LessOrEqual(t, *f.PeakOpenStandardExecutions, 1001)
		})
	}
}

// TestOpenExecutionsLimitRefusesStartsAndLosesNothing lowers the open
// Standard executions to 50 while 80 messages wait out an outage, the way
// a large outage fills the account's million: executions past the limit
// are refused (ExecutionLimitExceeded), their messages go round the DLQ
// until its redrive policy moves them to the parking lot, and the
// releaser, a Standard execution too, cannot start while the room holds
// the limit's worth. Nothing is lost or delivered twice, and the limit is
// never passed; what this design cannot do is drain, which is why every
// message holding a Standard execution has to go (the waiting messages
// become documents, the delivery tries Express executions).
func TestOpenExecutionsLimitRefusesStartsAndLosesNothing(t *testing.T) {
	s := small()
	s.Name, s.Quotas, s.OpenExecutionsLimit = "small-limited", "standard", 50
	res, err := sim.Play(context.Background(), s, []sim.Strategy{sim.Redrive{}}, &recorder{})
	require.NoError(t, err)
	f := sim.SummaryOf(res).Strategies[0]
	assert.Zero(t, f.Lost)
	assert.Zero(t, f.DeliveredTwice)
	assert.Equal(t, s.Messages.Count, f.Delivered+f.Parked+f.Pending)
	require.NotNil(t, f.PeakOpenStandardExecutions)
	assert.Equal(t, 50, *f.PeakOpenStandardExecutions, "filled, never passed")
	assert.Positive(t, f.QuotaThrottles[string(quota.OpenStandard)], "starts were refused")
	assert.Greater(t, f.Parked, 4, "more than the poison: messages the limit kept out, moved by the DLQ's redrive policy")
	assert.Less(t, f.Delivered, s.Messages.Count-4, "this design does not drain under the limit")
}
