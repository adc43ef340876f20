package local

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/redrive/redrive/statemachine/asl"
)

// StateMachine describes a state machine, as DescribeStateMachine does.
type StateMachine struct {
	ARN          string
	Name         string
	Definition   string
	RoleARN      string
	CreationDate time.Time
}

// stateMachine is a created state machine and its executions.
type stateMachine struct {
	StateMachine
	def    *asl.Definition
	ctxObj map[string]any // the context object's "StateMachine" member
	// readsInput says the definition may read $$.Execution.Input.
	readsInput bool
	// executions are the executions not evicted, oldest first, and nil
	// where evicted ones were (gone of them) until the list is compacted
	// (see execution.slot). Guarded by Executor.mu.
	executions []*execution
	gone       int
	// counts are the running totals Counts reads.
	counts counters
}

// CreateStateMachine validates and stores a definition and returns its ARN.
// Creating the same name again with the same definition and role returns
// the existing ARN, as AWS does; anything else is ErrStateMachineExists.
// An invalid definition is ErrInvalidDefinition, wrapping the
// *asl.DefinitionError that locates it.
func (e *Executor) CreateStateMachine(ctx context.Context, name, definition, roleARN string) (string, error) {
	sm, err := e.newStateMachine(name, definition, roleARN, e.Now())
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.machines[sm.ARN]; old != nil {
		if old.Definition == definition && old.RoleARN == roleARN {
			return sm.ARN, nil
		}
		return "", fmt.Errorf("%w: %s", ErrStateMachineExists, sm.ARN)
	}
	e.machines[sm.ARN] = sm
	e.created = append(e.created, sm)
	return sm.ARN, nil
}

// newStateMachine validates and compiles a state machine created at
// created.
func (e *Executor) newStateMachine(name, definition, roleARN string, created time.Time) (*stateMachine, error) {
	if err := validateName("state machine", name); err != nil {
		return nil, err
	}
	def, err := asl.Parse(definition)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidDefinition, err)
	}
	arn := e.stateMachineARN(name)
	return &stateMachine{
		StateMachine: StateMachine{ARN: arn, Name: name, Definition: definition, RoleARN: roleARN, CreationDate: created},
		def:          def,
		ctxObj:       map[string]any{"Id": arn, "Name": name},
		readsInput:   readsExecutionInput(definition),
	}, nil
}

// DescribeStateMachine returns a state machine by ARN.
func (e *Executor) DescribeStateMachine(ctx context.Context, arn string) (StateMachine, error) {
	sm, err := e.machine(arn)
	if err != nil {
		return StateMachine{}, err
	}
	return sm.StateMachine, nil
}

// StateMachines returns every state machine created, oldest first.
func (e *Executor) StateMachines() []StateMachine {
	e.mu.Lock()
	defer e.mu.Unlock()
	out := make([]StateMachine, len(e.created))
	for i, sm := range e.created {
		out[i] = sm.StateMachine
	}
	return out
}

// machine looks a state machine up by ARN.
func (e *Executor) machine(arn string) (*stateMachine, error) {
	if _, err := parseARN(arn, "stateMachine"); err != nil {
		return nil, err
	}
	e.mu.Lock()
	sm := e.machines[arn]
	e.mu.Unlock()
	if sm == nil {
		return nil, fmt.Errorf("%w: %s", ErrStateMachineDoesNotExist, arn)
	}
	return sm, nil
}

// add appends x to the state machine's executions. Call with e.mu held.
func (sm *stateMachine) add(x *execution) {
	sm.counts.add(x)
	x.slot = len(sm.executions)
	sm.executions = append(sm.executions, x)
}

// remove takes evicted x out of the state machine's executions, leaving
// its slot nil; once most slots are, the list is compacted. Call with e.mu
// held.
func (sm *stateMachine) remove(x *execution) {
	sm.executions[x.slot] = nil
	sm.gone++
	if sm.gone <= len(sm.executions)/2 {
		return
	}
	sm.executions = slices.DeleteFunc(sm.executions, func(y *execution) bool { return y == nil })
	for i, y := range sm.executions {
		y.slot = i
	}
	sm.gone = 0
}

// listed returns the executions not evicted, oldest first. Call with e.mu
// held.
func (sm *stateMachine) listed() []*execution {
	xs := make([]*execution, 0, len(sm.executions)-sm.gone)
	for _, x := range sm.executions {
		if x != nil {
			xs = append(xs, x)
		}
	}
	return xs
}
