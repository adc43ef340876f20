package executor

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
	"github.com/redrive/redrive/emulate/quota"
)

// newQuotaExecutor is an executor with invoker under the quotas that
// rates and limits make: small enough to meet in a test.
func newQuotaExecutor(invoker Invoker, rates map[quota.Name]quota.Rate, limits map[quota.Name]int) *Executor {
	return New(Options{Invoker: invoker, Quotas: quota.NewAccount(quota.Profile{Name: "test", Rates: rates, Limits: limits})})
}

const passChain = `{"StartAt":"A","States":{"A":{"Type":"Pass","Next":"B"},"B":{"Type":"Pass","Next":"C"},` +
	`"C":{"Type":"Pass","Next":"D"},"D":{"Type":"Pass","End":true}}}`

// TestStartExecutionIsThrottledPastItsBucket starts executions past a
// bucket of two: the third is ErrThrottled (ThrottlingException), and a
// second later one more starts.
func TestStartExecutionIsThrottledPastItsBucket(t *testing.T) {
	e := newQuotaExecutor(nil, map[quota.Name]quota.Rate{quota.StandardStart: {Burst: 2, PerSecond: 1}}, nil)
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "m", passChain, "")
	require.NoError(t, err)
	for range 2 {
		_, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err)
	}
	_, err = e.StartExecution(ctx, arn, "", `{}`)
	require.ErrorIs(t, err, ErrThrottled)
	require.NoError(t, e.RunUntil(ctx, e.Now().Add(time.Second)))
	_, err = e.StartExecution(ctx, arn, "", `{}`)
	require.NoError(t, err, "refilled")
	assert.Equal(t, int64(1), e.opts.Quotas.Report().Throttles[quota.StandardStart])
}

// TestOpenStandardExecutionsAreBounded keeps two executions waiting on a
// callback under a limit of two: a third start is
// ErrExecutionLimitExceeded until one of them ends.
func TestOpenStandardExecutionsAreBounded(t *testing.T) {
	tk := &tokens{}
	e := newQuotaExecutor(funcInvoker{"cb": tk.invoke}, nil, map[quota.Name]int{quota.OpenStandard: 2})
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "cb", asltest.Wrap(callbackTask("cb", `,"End":true`)), "")
	require.NoError(t, err)
	for range 2 {
		_, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err)
	}
	require.NoError(t, e.Run(ctx))
	_, err = e.StartExecution(ctx, arn, "", `{}`)
	require.ErrorIs(t, err, ErrExecutionLimitExceeded)

	require.NoError(t, e.SendTaskSuccess(ctx, tk.last(t), `{}`))
	require.NoError(t, e.Run(ctx))
	_, err = e.StartExecution(ctx, arn, "", `{}`)
	require.NoError(t, err, "one ended: its place is free")
	r := e.opts.Quotas.Report()
	assert.Equal(t, 2, r.PeakOpenStandard)
	assert.Equal(t, int64(1), r.Throttles[quota.OpenStandard])
}

// TestTransitionsWaitForTheAccountsBucket runs a chain of four Pass
// states with a bucket of two transitions, refilled at one a second: the
// third and fourth states are entered a second apart, and the execution
// succeeds.
func TestTransitionsWaitForTheAccountsBucket(t *testing.T) {
	e := newQuotaExecutor(nil, map[quota.Name]quota.Rate{quota.Transitions: {Burst: 2, PerSecond: 1}}, nil)
	x, h := runMachine(t, e, passChain, `{}`)
	assert.Equal(t, Succeeded, x.Status)
	entered := eventsOf(h, "PassStateEntered")
	require.Len(t, entered, 4)
	start := x.StartDate
	var at []time.Duration
	for _, ev := range entered {
		at = append(at, ev.Timestamp.Sub(start))
	}
	assert.Equal(t, []time.Duration{0, 0, time.Second, 2 * time.Second}, at)
	assert.Equal(t, 4, x.Transitions, "a wait for quota is not a transition")
	assert.Equal(t, int64(2), e.opts.Quotas.Report().Throttles[quota.Transitions])
}

// TestSendTaskSuccessIsThrottledPastItsBucket answers two callbacks with a
// SendTaskSuccess bucket of one: the second answer is ErrThrottled, and
// its task still waits for it.
func TestSendTaskSuccessIsThrottledPastItsBucket(t *testing.T) {
	tk := &tokens{}
	e := newQuotaExecutor(funcInvoker{"cb": tk.invoke}, map[quota.Name]quota.Rate{quota.SendTaskSuccess: {Burst: 1, PerSecond: 1}}, nil)
	ctx := context.Background()
	arn, err := e.CreateStateMachine(ctx, "cb", asltest.Wrap(callbackTask("cb", `,"End":true`)), "")
	require.NoError(t, err)
	var arns []string
	for range 2 {
		x, err := e.StartExecution(ctx, arn, "", `{}`)
		require.NoError(t, err)
		arns = append(arns, x.ARN)
	}
	require.NoError(t, e.Run(ctx))
	require.NoError(t, e.SendTaskSuccess(ctx, tk.seen[0], `{}`))
	require.ErrorIs(t, e.SendTaskSuccess(ctx, tk.seen[1], `{}`), ErrThrottled)
	require.NoError(t, e.Run(ctx))
	second, _ := describe(t, e, arns[1])
	assert.Equal(t, Running, second.Status, "a throttled answer settles nothing")
}

// TestLambdaConcurrencyRefusesInvocationsPastTheLimit runs two executions
// whose function takes a minute, under a concurrency of one
// (LimitConcurrency): the second invocation fails as
// Lambda.TooManyRequestsException, and the account counts it.
func TestLambdaConcurrencyRefusesInvocationsPastTheLimit(t *testing.T) {
	slow := funcInvoker{"slow": func(ctx context.Context, _ []byte) (Invocation, error) {
		Delay(ctx, time.Minute)
		return Invocation{Payload: []byte(`{}`)}, nil
	}}
	account := quota.NewAccount(quota.Profile{Name: "test", Limits: map[quota.Name]int{quota.LambdaConcurrency: 1}})
	e := New(Options{Invoker: LimitConcurrency(slow, account)})
	arns := startN(t, e, "slow", 2)
	require.NoError(t, e.Run(t.Context()))
	first, _ := describe(t, e, arns[0])
	second, _ := describe(t, e, arns[1])
	assert.Equal(t, Succeeded, first.Status)
	assert.Equal(t, Failed, second.Status)
	assert.Equal(t, "Lambda.TooManyRequestsException", second.Error)
	assert.Contains(t, second.Cause, "Status Code: 429")
	assert.Equal(t, int64(1), account.Report().Throttles[quota.LambdaConcurrency])
}

// TestSnapshotRefusesQuotas: an executor under quotas cannot be
// snapshotted, since its waits for quota are not recorded.
func TestSnapshotRefusesQuotas(t *testing.T) {
	e := newQuotaExecutor(nil, nil, nil)
	assert.ErrorContains(t, e.Snapshot(&discard{}), "Options.Quotas")
}

// discard is an io.Writer that keeps nothing.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
