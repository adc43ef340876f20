// Package roomtest has the hand-written fakes and the table the tests of
// the waiting room and its users share: a Step Functions client that
// records the executions it starts (the controllers, and the attempt
// executions a release starts), a controller Launcher that records the
// keys it was asked for, and a fresh
// breaker table on the test backend (emulate/ddbtest: minidyn, or
// DDB_ENDPOINT).
package roomtest

import (
	"context"
	"encoding/json"
	"slices"
	"sync"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"

	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/room"
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

// SFN is a hand-written Step Functions client: StartExecution records the
// executions it starts. Fail, when set, is asked first with the
// execution's name: an error it returns is StartExecution's, and nothing
// starts. A name started before on the same state machine is
// ExecutionAlreadyExists, as a Standard state machine answers, unless the
// state machine is Express (its ARN in Express), which does not
// deduplicate names. Set Fail and Express before use, or under no
// concurrent call.
type SFN struct {
	Fail    func(name string) error
	Express []string

	mu     sync.Mutex
	starts []Start
}

// Start is one execution StartExecution started.
type Start struct {
	StateMachineARN, Name, Input string
}

// StartExecution implements room.StartAPI.
func (s *SFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	arn, name := aws.ToString(in.StateMachineArn), aws.ToString(in.Name)
	if s.Fail != nil {
		if err := s.Fail(name); err != nil {
			return nil, err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !slices.Contains(s.Express, arn) && slices.ContainsFunc(s.starts, func(st Start) bool { return st.StateMachineARN == arn && st.Name == name }) {
		return nil, &sfntypes.ExecutionAlreadyExists{Message: aws.String("execution " + name + " already exists")}
	}
	s.starts = append(s.starts, Start{StateMachineARN: arn, Name: name, Input: aws.ToString(in.Input)})
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(arn + ":" + name)}, nil
}

// Starts is the executions started so far, in order.
func (s *SFN) Starts() []Start {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.starts)
}

// Started is the names of the executions started so far, in order.
func (s *SFN) Started() []string {
	return s.field(func(st Start) string { return st.Name }, "")
}

// Inputs is the inputs of the executions started so far, in order.
func (s *SFN) Inputs() []string {
	return s.field(func(st Start) string { return st.Input }, "")
}

// StartedOn is the names of the executions of state machine arn started
// so far, in order.
func (s *SFN) StartedOn(arn string) []string {
	return s.field(func(st Start) string { return st.Name }, arn)
}

// InputsOn is the inputs of the executions of state machine arn started
// so far, in order.
func (s *SFN) InputsOn(arn string) []string {
	return s.field(func(st Start) string { return st.Input }, arn)
}

// field is f of every start (of state machine arn, unless "").
func (s *SFN) field(f func(Start) string, arn string) []string {
	var out []string
	for _, st := range s.Starts() {
		if arn == "" || st.StateMachineARN == arn {
			out = append(out, f(st))
		}
	}
	return out
}

// Launcher is a hand-written controller launcher: it records the breaker
// keys it is asked to ensure (or restart) a controller for and answers
// Err. Set Err before use.
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

// Restart implements the admin's Launcher interface, as Ensure.
func (l *Launcher) Restart(ctx context.Context, key string) error {
	_, err := l.Ensure(ctx, key)
	return err
}

// Keys is the keys Ensure and Restart were called with, in order.
func (l *Launcher) Keys() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.keys)
}

// Waiting is up to n of key's entries in line, each with its document read
// from its item: the room's index lists entries without their documents.
func Waiting(tb testing.TB, api *dynamodb.Client, table string, r *room.Room, key string, n int) []room.Entry {
	tb.Helper()
	ctx := context.Background()
	entries, err := r.Oldest(ctx, key, n)
	if err != nil {
		tb.Fatalf("roomtest: list %q: %v", key, err)
	}
	for i, e := range entries {
		out, err := api.GetItem(ctx, &dynamodb.GetItemInput{TableName: aws.String(table), ConsistentRead: aws.Bool(true),
			Key: map[string]types.AttributeValue{dynamo.PKAttr: dynamo.S(dynamo.RoomPrefix + key + "#" + e.MessageID)}})
		if err != nil {
			tb.Fatalf("roomtest: read %s of %q: %v", e.MessageID, key, err)
		}
		doc, ok := out.Item["doc"].(*types.AttributeValueMemberS)
		if !ok {
			tb.Fatalf("roomtest: %s of %q: listed, but its item has no document (%d attributes)", e.MessageID, key, len(out.Item))
		}
		entries[i].Document = json.RawMessage(doc.Value)
	}
	return entries
}
