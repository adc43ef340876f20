package sim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redrive/redrive/emulate/local"
)

// Result is one scenario played by several strategies.
type Result struct {
	// Scenario is what was played.
	Scenario Scenario
	// Messages are the scenario's messages.
	Messages []Message
	// Outcomes and Metrics are per strategy, in the order given to Play.
	Outcomes []Outcome
	Metrics  []Metrics
	// Wall is the wall-clock time of the whole play.
	Wall time.Duration
}

// Strategies are the three strategies `redrive run` compares: Redrive
// (with the consumer invoked through the Registry unless invokeAPI, its
// table on the DynamoDB endpoint dynamoDB, minidyn when empty, and its
// waiting room read from the stack), the naive backoff and the bulk move.
func Strategies(invokeAPI bool, dynamoDB string) []Strategy {
	return []Strategy{Redrive{DirectInvoke: !invokeAPI, DynamoDBEndpoint: dynamoDB, WaitingRoom: stackRoom}, NaiveBackoff{}, BulkMove{}}
}

// Play validates s and runs every strategy on it, one after another (each
// on its own virtual clock, so the order changes no figure), measuring
// each as it ends: a run holds one strategy's messages, executions and
// tables at a time, not all of them at once.
func Play(ctx context.Context, s Scenario, strategies []Strategy, obs Observer) (Result, error) {
	if err := s.Validate(); err != nil {
		return Result{}, err
	}
	if len(strategies) == 0 {
		return Result{}, errors.New("sim: play: no strategies")
	}
	wall := time.Now()
	msgs := s.Plan()
	res := Result{Scenario: s, Messages: msgs}
	for _, st := range strategies {
		out, err := st.Run(ctx, s, msgs, obs)
		if err != nil {
			return Result{}, fmt.Errorf("sim: play %s with %s: %w", s.Name, st.Name(), err)
		}
		res.Outcomes = append(res.Outcomes, out)
		res.Metrics = append(res.Metrics, Measure(s, msgs, out, ListPrices))
	}
	res.Wall = time.Since(wall)
	return res, nil
}

// stackRoom reads a stack's own waiting room.
func stackRoom(st *local.Stack) RoomSource { return st.Room }
