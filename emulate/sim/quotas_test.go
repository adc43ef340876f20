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
// burst of 800 and than a second of its refill. The naive backoff, one
// Standard execution per message, is throttled, tries again, and loses
// nothing; the redrive starts one Express execution per delivery try, at
// its pace (the starter holds the rest in the room as documents), and one
// Standard execution, the breaker's controller: it meets no quota. Neither
// loses a message or delivers one twice; the figures report the
// throttles and the peaks.
func TestQuotasThrottleAndLoseNothing(t *testing.T) {
	s := sim.Default()
	s.Name, s.Quotas = "burst-under-quotas", "standard"
	s.Horizon = 2 * time.Hour
	s.Messages = sim.Messages{Count: 1000, Start: time.Minute, Rate: 0, Tenants: 1}
	s.Target.Capacity = 100
	s.Target.Health = nil
	res, err := sim.Play(context.Background(), s, []sim.Strategy{sim.Redrive{}, sim.NaiveBackoff{}}, &recorder{})
	require.NoError(t, err)
	figures := sim.SummaryOf(res).Strategies
	require.Len(t, figures, 2)
	for _, f := range figures {
		t.Run(f.Strategy, func(t *testing.T) {
			assert.Equal(t, 1000, f.Delivered, "every message delivered")
			assert.Zero(t, f.Lost)
			assert.Zero(t, f.DeliveredTwice)
			require.NotNil(t, f.PeakOpenStandardExecutions)
			assert.LessOrEqual(t, *f.PeakOpenStandardExecutions, 1001)
		})
	}
	redrive, naive := figures[0], figures[1]
	require.Equal(t, "redrive", redrive.Strategy)
	for name, n := range redrive.QuotaThrottles {
		assert.Zero(t, n, "redrive: %s throttled", name)
	}
	assert.Positive(t, redrive.QuotaPeakUse[string(quota.ExpressStart)], "the tries are Express executions")
	assert.Less(t, redrive.QuotaPeakUse[string(quota.ExpressStart)], 1.0)
	assert.Less(t, redrive.QuotaPeakUse[string(quota.StandardStart)], 1.0, "only the controller is a Standard execution")
	assert.Equal(t, 1, *redrive.PeakOpenStandardExecutions, "one controller for the one breaker")
	require.Equal(t, "naive backoff", naive.Strategy)
	assert.Positive(t, naive.QuotaThrottles[string(quota.StandardStart)], "starts past the burst were throttled")
	assert.Greater(t, naive.QuotaPeakUse[string(quota.StandardStart)], 1.0, "the burst's second")
}

// TestOpenExecutionsLimitDoesNotHoldTheRedrive lowers the open Standard
// executions to 2 while 80 messages of 2 tenants wait out an outage, the
// way a large outage filled the account's million when every waiting
// message held a Standard execution: now the waiting messages are
// documents in the room and the delivery tries Express executions, so
// the only Standard executions are the two breakers' controllers. The
// limit is never passed, nothing is refused, and the redrive drains as
// it does without the limit: every message but the poison delivered,
// none lost or delivered twice.
func TestOpenExecutionsLimitDoesNotHoldTheRedrive(t *testing.T) {
	s := small()
	s.Name, s.Quotas, s.OpenExecutionsLimit = "small-limited", "standard", 2
	res, err := sim.Play(context.Background(), s, []sim.Strategy{sim.Redrive{}}, &recorder{})
	require.NoError(t, err)
	f := sim.SummaryOf(res).Strategies[0]
	assert.Zero(t, f.Lost)
	assert.Zero(t, f.DeliveredTwice)
	assert.Equal(t, s.Messages.Count, f.Delivered+f.Parked+f.Pending)
	require.NotNil(t, f.PeakOpenStandardExecutions)
	assert.LessOrEqual(t, *f.PeakOpenStandardExecutions, 2, "never passed")
	assert.Zero(t, f.QuotaThrottles[string(quota.OpenStandard)], "no start refused")
	assert.True(t, f.Drained)
	assert.Equal(t, 4, f.Parked, "the poison alone")
	assert.Equal(t, s.Messages.Count-4, f.Delivered, "the rest delivered")
}
