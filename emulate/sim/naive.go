package sim

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/aws/aws-lambda-go/events"
	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/quota"
	"github.com/redrive/redrive/emulate/simtarget"
	"github.com/redrive/redrive/lambda/typedhandler"
)

// NaiveBackoff is the per-message exponential-backoff redrive without a breaker:
// one Step Functions execution per dead-lettered message, started as it
// arrives, whose Task invokes the consumer with a Retry of
// Retry.MaxAttempts tries, Retry.BackoffBase doubling up to
// Retry.BackoffMax, with full jitter. Poison is parked at once (the
// comparison is about the breaker, not about classification); a message
// whose tries run out is parked. It runs on the local executor like
// Redrive, so its transitions are counted the same way.
type NaiveBackoff struct{}

// Name implements Strategy.
func (NaiveBackoff) Name() string { return "naive backoff" }

// naiveRetryAfter is when the naive starter tries a refused start again:
// the DLQ's visibility timeout, after which its event source receives the
// message again.
const naiveRetryAfter = 30 * time.Second

// naiveRetention is how long the naive run's executor keeps an execution
// after it stopped: each is filed as it ends (Finished), so keeping the
// million descriptions of a large run would only hold its memory.
const naiveRetention = time.Minute

// naiveConsumer is the consumer's function name in the naive run.
const naiveConsumer = "consumer"

// naiveDefinition is the naive workflow's ASL for s.
func naiveDefinition(s Scenario) (string, error) {
	r := s.Retry
	def := map[string]any{
		"Comment": "Naive DLQ redrive: per-message exponential backoff, no breaker.",
		"StartAt": "Deliver",
		"States": map[string]any{
			"Deliver": map[string]any{
				"Type":       "Task",
				"Resource":   "arn:aws:states:::lambda:invoke",
				"Parameters": map[string]any{"FunctionName": naiveConsumer, "Payload.$": "$"},
				"ResultSelector": map[string]any{
					"delivered": true,
				},
				"ResultPath": "$.outcome",
				"Retry": []any{
					map[string]any{"ErrorEquals": []string{"PoisonMessage"}, "MaxAttempts": 0},
					map[string]any{
						"ErrorEquals":     []string{"States.ALL"},
						"IntervalSeconds": int(r.BackoffBase / time.Second),
						"MaxAttempts":     r.MaxAttempts - 1,
						"BackoffRate":     2,
						"MaxDelaySeconds": int(r.BackoffMax / time.Second),
						"JitterStrategy":  "FULL",
					},
				},
				"Catch": []any{map[string]any{"ErrorEquals": []string{"States.ALL"}, "ResultPath": "$.failure", "Next": "Park"}},
				"End":   true,
			},
			"Park": map[string]any{
				"Type":       "Pass",
				"Result":     map[string]any{"parked": true},
				"ResultPath": "$.outcome",
				"End":        true,
			},
		},
	}
	out, err := json.Marshal(def)
	if err != nil {
		return "", fmt.Errorf("sim: naive definition: %w", err)
	}
	return string(out), nil
}

// Run implements Strategy.
func (n NaiveBackoff) Run(ctx context.Context, s Scenario, msgs []Message, obs Observer) (Outcome, error) {
	wall := time.Now()
	reg := executor.NewRegistry()
	profile, err := s.QuotaProfile()
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: %w", err)
	}
	account := quota.NewAccount(profile)
	out := Outcome{
		Strategy:  n.Name(),
		Delivered: map[string]time.Time{},
		Parked:    map[string]time.Time{},
		Pending:   map[string]bool{},
	}
	// Each execution is filed as it ends; the executor keeps a summary.
	// Executions are named after their message: the first message's is
	// the first's journey.
	var accountErr error
	journeys := newJourneyPicker(keptHistories, naiveRetention)
	if len(msgs) > 0 {
		first := msgs[0].ID
		journeys.setFirst(func(name string) bool { return name == first })
	}
	var functions executor.Invoker = reg
	if account.Has(quota.LambdaConcurrency) {
		functions = executor.LimitConcurrency(reg, account)
	}
	exec := executor.New(executor.Options{Invoker: functions, Quotas: account, Start: Epoch, Seed: s.Seed, FinishedHistories: keptHistories, RunningHistories: keptHistories, Retention: naiveRetention, Compact: true,
		Finished: func(x executor.Execution) {
			outcome, err := n.account(&out, x)
			if err != nil && accountErr == nil {
				accountErr = err
			}
			journeys.finished(x, outcome)
		}})
	journeys.attach(exec)
	calls := NewCallTally(s)
	target, err := simtarget.New(s.TargetOptions(exec, tallyCalls(calls, n.Name(), obs)))
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: consumer: %w", err)
	}
	if err := reg.Register(naiveConsumer, typedhandler.New(target.Handle)); err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: register consumer: %w", err)
	}
	def, err := naiveDefinition(s)
	if err != nil {
		return Outcome{}, err
	}
	sm, err := exec.CreateStateMachine(ctx, "naive-redrive", def, "arn:aws:iam::123456789012:role/naive")
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: create state machine: %w", err)
	}

	var mu sync.Mutex
	var started int
	var startErr error
	for _, m := range msgs {
		// The input is made as the message arrives, not all up front. A
		// start the account's quotas refuse is tried again once the
		// message is visible again, as with an SQS event source.
		var start func(ctx context.Context)
		start = func(ctx context.Context) {
			err := naiveStart(ctx, exec, sm, m)
			if quotaRefused(err) {
				exec.At(exec.Now().Add(naiveRetryAfter), start)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			started++
			if errors.Is(err, executor.ErrInvalidExecutionInput) {
				// Too large for an execution input: a naive redrive can
				// only park it (as oversize).
				out.Parked[m.ID], err = exec.Now(), nil
			}
			if err != nil && startErr == nil {
				startErr = fmt.Errorf("sim: naive: start execution for %s: %w", m.ID, err)
			}
		}
		exec.At(Epoch.Add(m.Arrival), start)
	}
	p := newSampler(exec, n.Name(), s, obs, func() (Usage, int, bool) {
		c, err := exec.Counts(ctx, sm)
		if err != nil {
			return Usage{}, 0, false
		}
		settled := int(c.Started - c.Running)
		mu.Lock()
		done := started == len(msgs) && c.Running == 0
		mu.Unlock()
		return Usage{Transitions: c.Transitions}, settled, done
	})
	p.start()
	if err := exec.RunUntil(ctx, Epoch.Add(s.Horizon)); err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: run: %w", err)
	}
	if startErr != nil {
		return Outcome{}, startErr
	}
	if accountErr != nil {
		return Outcome{}, accountErr
	}
	out.Calls = *calls
	out.Samples, out.End = p.finish()
	c, err := exec.Counts(ctx, sm)
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: count executions: %w", err)
	}
	out.Usage.Transitions = c.Transitions
	running, err := exec.ListExecutions(ctx, sm, executor.Running)
	if err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: list executions: %w", err)
	}
	for _, x := range running {
		if _, err := n.account(&out, x); err != nil {
			return Outcome{}, err
		}
	}
	if out.Journeys, err = journeys.journeys(ctx, func(name string) string { return name }); err != nil {
		return Outcome{}, fmt.Errorf("sim: naive: sample journeys: %w", err)
	}
	out.Quotas = ptr(account.Report())
	out.Wall = time.Since(wall)
	return out, nil
}

// naiveStart starts m's execution of the naive state machine sm.
func naiveStart(ctx context.Context, exec *executor.Executor, sm string, m Message) error {
	input, err := json.Marshal(events.SQSEvent{Records: []events.SQSMessage{m.Event()}})
	if err != nil {
		return err
	}
	_, err = exec.StartExecution(ctx, sm, m.ID, string(input))
	return err
}

// account files an execution's message under delivered, parked or pending
// by the execution's status and output; a failed execution files it
// nowhere, so it counts as lost. It is called for each execution as it
// ends (on the executor's goroutine), and for those running at the end.
// It returns the execution's outcome for the journeys: "delivered",
// "parked", or its status when it did not succeed ("" while it runs).
func (NaiveBackoff) account(out *Outcome, x executor.Execution) (string, error) {
	switch x.Status {
	case executor.Running:
		out.Pending[x.Name] = true
		return "", nil
	case executor.Succeeded:
	default:
		return journeyStatus(x.Status), nil
	}
	var doc struct {
		Outcome struct {
			Delivered bool `json:"delivered"`
			Parked    bool `json:"parked"`
		} `json:"outcome"`
	}
	if err := jsonv1.Unmarshal(x.Output, &doc); err != nil {
		return "", fmt.Errorf("sim: naive: output of %s: %w", x.Name, err)
	}
	switch {
	case doc.Outcome.Delivered:
		out.Delivered[x.Name] = x.StopDate
		return journeyDelivered, nil
	case doc.Outcome.Parked:
		out.Parked[x.Name] = x.StopDate
		return journeyParked, nil
	default:
		return "", errors.New("sim: naive: execution " + x.Name + " succeeded without an outcome")
	}
}
