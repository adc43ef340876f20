// Package roomtest has the hand-written fakes and the table the tests of
// the waiting room and its users share: a Step Functions client that
// records the task tokens it resumes and the executions it starts, a
// releaser Launcher that records the keys it was asked for, and a fresh
// breaker table on the test backend (emulate/ddbtest: minidyn, or
// DDB_ENDPOINT).
package roomtest

import (
	"context"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
)

// Table creates a fresh table with the breaker table's schema (the room's
// sparse index included) on the test backend, deleted when tb ends, and
// returns the client and the table's name.
func Table(tb testing.TB) (*dynamodb.Client, string) {
	tb.Helper()
	client, backend := ddbtest.Client(tb)
	table := ddbtest.CreateTable(tb, client, func(ctx context.Context, name string) error {
		return dynamo.CreateTable(ctx, client, name)
	})
	tb.Logf("backend %s, table %s", backend, table)
	return client, table
}

// SFN is a hand-written Step Functions client. SendTaskSuccess records
// the tokens it resumes, answering with Fail(token) when Fail is set and
// returns an error (the token then counts as not resumed), and with
// TaskTimedOut for a token resumed before, as Step Functions answers for a
// closed task.
// StartExecution records the names it starts; a name started before is
// ExecutionAlreadyExists, as Step Functions answers. Set Fail before use.
type SFN struct {
	Fail func(token string) error

	mu      sync.Mutex
	resumed []string
	outputs []string
	started []string
	inputs  []string
}

// SendTaskSuccess implements room.TaskAPI.
func (s *SFN) SendTaskSuccess(_ context.Context, in *sfn.SendTaskSuccessInput, _ ...func(*sfn.Options)) (*sfn.SendTaskSuccessOutput, error) {
	token := aws.ToString(in.TaskToken)
	if s.Fail != nil {
		if err := s.Fail(token); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if slices.Contains(s.resumed, token) {
		return nil, &sfntypes.TaskTimedOut{Message: aws.String("Provided task does not exist anymore")}
	}
	s.resumed = append(s.resumed, token)
	s.outputs = append(s.outputs, aws.ToString(in.Output))
	return &sfn.SendTaskSuccessOutput{}, nil
}

// StartExecution implements release.StartAPI.
func (s *SFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	name := aws.ToString(in.Name)
	if slices.Contains(s.started, name) {
		return nil, &sfntypes.ExecutionAlreadyExists{Message: aws.String("execution " + name + " already exists")}
	}
	s.started = append(s.started, name)
	s.inputs = append(s.inputs, aws.ToString(in.Input))
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(aws.ToString(in.StateMachineArn) + ":" + name)}, nil
}

// Resumed is the tokens resumed so far, in order.
func (s *SFN) Resumed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.resumed)
}

// Outputs is the outputs the resumed tokens were sent, in order.
func (s *SFN) Outputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.outputs)
}

// Started is the names of the executions started so far, in order.
func (s *SFN) Started() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.started)
}

// Inputs is the inputs of the executions started so far, in order.
func (s *SFN) Inputs() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.inputs)
}

// Launcher is a hand-written releaser launcher: it records the breaker
// keys it is asked to ensure a releaser for and answers Err. Set Err
// before use.
type Launcher struct {
	Err error

	mu   sync.Mutex
	keys []string
}

// Ensure implements the handlers' Launcher interfaces; it reports a start
// unless Err is set.
func (l *Launcher) Ensure(_ context.Context, key string) (bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, key)
	return l.Err == nil, l.Err
}

// Keys is the keys Ensure was called with, in order.
func (l *Launcher) Keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.keys)
}
