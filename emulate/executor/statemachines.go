package executor

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/redrive/redrive/emulate/asl"
)

// StateMachine describes a state machine, as DescribeStateMachine does.
type StateMachine struct {
	ARN          string
	Name         string
	Type         Type
	Definition   string
	RoleARN      string
	CreationDate time.Time
}

// Type is a state machine's workflow type.
type Type string

// The workflow types. An Express execution lasts at most ExpressMaxDuration
// (then it times out), records no history, is not deduplicated by name
// (each start is a new execution, which may run a second time as AWS's
// asynchronous Express executions may), takes its starts from the
// account's Express bucket and counts neither among the open Standard
// executions nor against the state transition bucket; its state machine
// may not wait for a task token.
const (
	Standard Type = "STANDARD"
	Express  Type = "EXPRESS"
)

// ExpressMaxDuration is how long an Express execution may run.
const ExpressMaxDuration = 5 * time.Minute

// stateMachine is a created state machine and its executions.
type stateMachine struct {
	StateMachine
	def    *asl.Definition
	ctxObj map[string]any // the context object's "StateMachine" member
	// readsInput says the definition may read $$.Execution.Input.
	readsInput bool
	// executionPrefix is the ARN of its executions but their names.
	executionPrefix string
	// executions are the records of its executions, by index (the order
	// they started), those Options.Retention evicted (gone of them)
	// included until the list is compacted; names holds the others by
	// name. Guarded by Executor.mu.
	executions []*record
	names      map[string]*record
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
	return e.CreateStateMachineOfType(ctx, name, Standard, definition, roleARN)
}

// CreateStateMachineOfType is CreateStateMachine of a Standard or an
// Express state machine. An Express definition with a task that waits for
// a task token is ErrInvalidDefinition, as AWS refuses it.
func (e *Executor) CreateStateMachineOfType(ctx context.Context, name string, typ Type, definition, roleARN string) (string, error) {
	sm, err := e.newStateMachine(name, typ, definition, roleARN, e.Now())
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if old := e.machines[sm.ARN]; old != nil {
		if old.Definition == definition && old.RoleARN == roleARN && old.Type == typ {
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
func (e *Executor) newStateMachine(name string, typ Type, definition, roleARN string, created time.Time) (*stateMachine, error) {
	if err := validateName("state machine", name); err != nil {
		return nil, err
	}
	if typ != Standard && typ != Express {
		return nil, fmt.Errorf("%w: type %q is not %s or %s", ErrInvalidDefinition, typ, Standard, Express)
	}
	def, err := asl.Parse(definition)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidDefinition, err)
	}
	if callbacks := def.CallbackStates(); typ == Express && len(callbacks) > 0 {
		return nil, fmt.Errorf("%w: SCHEMA_VALIDATION_FAILED: Express state machines do not support the '.waitForTaskToken' service integration pattern (state %q)",
			ErrInvalidDefinition, callbacks[0])
	}
	arn := e.stateMachineARN(name)
	return &stateMachine{
		StateMachine:    StateMachine{ARN: arn, Name: name, Type: typ, Definition: definition, RoleARN: roleARN, CreationDate: created},
		def:             def,
		ctxObj:          map[string]any{"Id": arn, "Name": name},
		readsInput:      readsExecutionInput(definition),
		executionPrefix: e.arnPrefix() + executionKind(typ) + ":" + name + ":",
		names:           map[string]*record{},
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

// executionKind is the resource type of the ARNs of a type's executions.
func executionKind(typ Type) string {
	if typ == Express {
		return "express"
	}
	return "execution"
}

// timeout is how long its executions may run: its TimeoutSeconds, within
// ExpressMaxDuration for an Express machine; 0 for no limit.
func (sm *stateMachine) timeout() time.Duration {
	t := sm.def.Timeout()
	if sm.Type == Express && (t == 0 || t > ExpressMaxDuration) {
		t = ExpressMaxDuration
	}
	return t
}

// executionARN returns the ARN of its execution called name.
func (sm *stateMachine) executionARN(name string) string {
	return sm.executionPrefix + name
}

// add appends r, a new execution's record, to the state machine's
// executions: its index is above theirs. Call with e.mu held.
func (sm *stateMachine) add(r *record) {
	sm.counts.add(r.x)
	sm.executions = append(sm.executions, r)
	sm.names[r.name] = r
}

// remove evicts r: the state machine holds it no more, nor its
// execution, and once most of its list is gone it compacts the list.
// Call with e.mu held.
func (sm *stateMachine) remove(r *record) {
	delete(sm.names, r.name)
	r.x, r.gone = nil, true
	sm.gone++
	if sm.gone <= len(sm.executions)/2 {
		return
	}
	sm.executions = slices.DeleteFunc(sm.executions, func(r *record) bool { return r.gone })
	sm.gone = 0
}

// byIndex returns the record of the execution with index, if the state
// machine holds it. Call with e.mu held.
func (sm *stateMachine) byIndex(index uint64) *record {
	i, ok := slices.BinarySearchFunc(sm.executions, index, func(r *record, index uint64) int { return cmp.Compare(r.index, index) })
	if !ok || sm.executions[i].gone {
		return nil
	}
	return sm.executions[i]
}

// listed returns the executions the state machine holds, oldest first,
// but the compacted ones whose status is not status when status is not ""
// (a whole execution's status may change until it is described). Call
// with e.mu held.
func (sm *stateMachine) listed(status Status) []found {
	var fs []found
	if status == "" {
		fs = make([]found, 0, len(sm.executions)-sm.gone)
	}
	for _, r := range sm.executions {
		if r.gone || r.x == nil && status != "" && statuses[r.status] != status {
			continue
		}
		fs = append(fs, found{sm: sm, r: r, x: r.x})
	}
	return fs
}
