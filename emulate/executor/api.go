package executor

import (
	"context"
	"encoding/json"
	"errors"
	"time"
)

// Invoker runs a Lambda function the way the Lambda Invoke API does
// (RequestResponse): a function error is not a Go error but an Invocation
// whose FunctionError is set and whose Payload is the error document
// {"errorMessage": ..., "errorType": ...}. A Go error means the invocation
// itself failed (unknown function, service error); its name becomes the
// task's error (e.g. Lambda.ResourceNotFoundException).
type Invoker interface {
	Invoke(ctx context.Context, function string, payload []byte) (Invocation, error)
}

// Invocation is the result of one Lambda invocation.
type Invocation struct {
	// Payload is the function's response, or its error document.
	Payload json.RawMessage
	// FunctionError is "Unhandled" when the function returned an error.
	FunctionError string
	// ExecutedVersion is the version that ran; "$LATEST" by default.
	ExecutedVersion string
}

// Status is an execution's status, spelled as the Step Functions API does.
type Status string

// Execution statuses.
const (
	Running   Status = "RUNNING"
	Succeeded Status = "SUCCEEDED"
	Failed    Status = "FAILED"
	TimedOut  Status = "TIMED_OUT"
	Aborted   Status = "ABORTED"
)

// Execution describes one execution, as DescribeExecution does.
type Execution struct {
	ARN             string
	StateMachineARN string
	Name            string
	Status          Status
	Input           json.RawMessage
	Output          json.RawMessage // set when Succeeded
	Error           string          // set when Failed, TimedOut or Aborted
	Cause           string
	StartDate       time.Time
	StopDate        time.Time // zero while Running
	// Transitions counts state transitions as AWS bills them.
	Transitions int
}

// Event is one execution history event. It marshals to exactly the JSON
// shape of the Step Functions API's HistoryEvent ("id", "previousEventId",
// "timestamp", "type", and the one "<type>EventDetails" member for its
// type), so the HTTP facade returns it as is.
type Event struct {
	ID              int64
	PreviousEventID int64
	Timestamp       time.Time
	// Type is the API's event type, e.g. "TaskStateEntered".
	Type string
	// Details is the event's details object (marshalled under the API's
	// member name for Type), or nil; in an executor built by Restore, the
	// details of the events recorded before the snapshot are their JSON, a
	// json.RawMessage.
	Details any
}

// Errors the executor returns; the HTTP facade maps each to the Step
// Functions API error of the same name.
var (
	ErrInvalidDefinition        = errors.New("executor: invalid state machine definition")
	ErrInvalidName              = errors.New("executor: invalid name")
	ErrInvalidArn               = errors.New("executor: invalid ARN")
	ErrInvalidExecutionInput    = errors.New("executor: invalid execution input")
	ErrStateMachineDoesNotExist = errors.New("executor: state machine does not exist")
	ErrStateMachineExists       = errors.New("executor: state machine already exists")
	ErrExecutionDoesNotExist    = errors.New("executor: execution does not exist")
	ErrExecutionAlreadyExists   = errors.New("executor: execution already exists")
	// ErrInvalidToken is a task token this executor could not have issued
	// (malformed, or altered).
	ErrInvalidToken = errors.New("executor: invalid task token")
	// ErrTaskDoesNotExist is a well-formed task token for a task this
	// executor does not have (issued by another executor).
	ErrTaskDoesNotExist = errors.New("executor: task does not exist")
	// ErrTaskTimedOut is a task token whose task has closed: it succeeded,
	// failed or timed out, or its execution ended.
	ErrTaskTimedOut = errors.New("executor: task timed out or already closed")
	// ErrInvalidOutput is a task output that is not JSON or is over the
	// 256 KiB payload quota.
	ErrInvalidOutput = errors.New("executor: invalid task output")
	// ErrHistoryEvicted is the history of an execution that finished
	// longer ago than Options.FinishedHistories others.
	ErrHistoryEvicted = errors.New("executor: history evicted (Options.FinishedHistories)")
	// ErrHistoryNotRecorded is the history of an execution that started
	// while Options.RunningHistories others were recording theirs.
	ErrHistoryNotRecorded = errors.New("executor: history not recorded (Options.RunningHistories)")
	// ErrClosed is what StartExecution, Run and RunUntil return once the
	// executor is closed.
	ErrClosed = errors.New("executor: executor closed")

	// ErrThrottled is a call beyond its bucket of Options.Quotas
	// (ThrottlingException).
	ErrThrottled = errors.New("executor: rate exceeded")
	// ErrExecutionLimitExceeded is a StartExecution beyond the open
	// Standard executions of Options.Quotas (ExecutionLimitExceeded).
	ErrExecutionLimitExceeded = errors.New("executor: execution limit exceeded")
)
