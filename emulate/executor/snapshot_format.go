package executor

import (
	"encoding/json"
	"time"

	"github.com/redrive/redrive/emulate/asl"
)

// snapshotFormat names the snapshot format and its version; Restore reads
// this version only.
const snapshotFormat = "statemachine/local.snapshot/v1"

// snapshot is the document Snapshot writes and Restore reads (doc.go says
// what it keeps and how an execution resumes). Times are absolute
// instants, with nanoseconds.
type snapshot struct {
	Format string `json:"format"`
	// TakenAt is the executor's clock: a virtual clock continues from it.
	TakenAt time.Time `json:"takenAt"`
	Region  string    `json:"region"`
	Account string    `json:"account"`
	// Seed keys the task tokens; RNG is the state of the executor's
	// random source, Started the number of executions started and
	// Sequence the number of events scheduled.
	Seed          int64                  `json:"seed"`
	RNG           []byte                 `json:"rng"`
	Started       uint64                 `json:"started"`
	Sequence      uint64                 `json:"sequence"`
	StateMachines []snapshotStateMachine `json:"stateMachines"`
	Executions    []snapshotExecution    `json:"executions"`
}

// snapshotStateMachine is one state machine, oldest first.
type snapshotStateMachine struct {
	Name         string    `json:"name"`
	Type         Type      `json:"type,omitempty"` // "" is STANDARD
	Definition   string    `json:"definition"`
	RoleARN      string    `json:"roleArn"`
	CreationDate time.Time `json:"creationDate"`
}

// snapshotExecution is one execution, by index (the order they started).
// Input and Output are the JSON texts DescribeExecution returns. History
// is absent once evicted (Options.FinishedHistories); Run is a running
// execution's place.
type snapshotExecution struct {
	Index          uint64          `json:"index"`
	StateMachine   string          `json:"stateMachine"`
	Name           string          `json:"name"`
	Status         Status          `json:"status"`
	Input          string          `json:"input"`
	Output         string          `json:"output,omitempty"`
	Error          string          `json:"error,omitempty"`
	Cause          string          `json:"cause,omitempty"`
	StartDate      time.Time       `json:"startDate"`
	StopDate       time.Time       `json:"stopDate,omitzero"`
	Transitions    int             `json:"transitions"`
	TokensIssued   uint32          `json:"tokensIssued,omitempty"`
	History        []snapshotEvent `json:"history,omitempty"`
	HistoryEvicted bool            `json:"historyEvicted,omitempty"`
	Run            *snapshotRun    `json:"run,omitempty"`
}

// snapshotEvent is one history event; Details is the API's
// <type>EventDetails member.
type snapshotEvent struct {
	ID              int64           `json:"id"`
	PreviousEventID int64           `json:"previousEventId"`
	Timestamp       time.Time       `json:"timestamp"`
	Type            string          `json:"type"`
	Details         json.RawMessage `json:"details,omitempty"`
}

// snapshotRun is where a running execution is: its random source, its
// TimeoutSeconds event, the state it is in (none before its start state)
// with the state's input and the context object's data, and what it waits
// for: Resume, a continuation on the timeline or a call in flight, and
// Callback, a callback task's attempt.
type snapshotRun struct {
	RNG            []byte            `json:"rng"`
	Timeout        *snapshotTimer    `json:"timeout,omitempty"`
	State          string            `json:"state,omitempty"`
	Input          jsonValue         `json:"input"`
	EnteredAt      time.Time         `json:"enteredAt,omitzero"`
	EnteredEventID int64             `json:"enteredEventId,omitempty"`
	RetryCount     int               `json:"retryCount,omitempty"`
	Retries        []int             `json:"retries,omitempty"`
	Resume         *snapshotResume   `json:"resume,omitempty"`
	Callback       *snapshotCallback `json:"callback,omitempty"`
}

// snapshotTimer is an event's place on the timeline.
type snapshotTimer struct {
	At  time.Time `json:"at"`
	Seq uint64    `json:"seq"`
}

// snapshotResume is a continuation: Kind is one of resumeKinds; all but a
// call have their place on the timeline, an outcome its outcome, and a
// call (a Lambda invocation in flight, invoked again) what it calls.
type snapshotResume struct {
	Kind    string           `json:"kind"`
	Timer   *snapshotTimer   `json:"timer,omitempty"`
	Outcome *snapshotOutcome `json:"outcome,omitempty"`
	Call    *snapshotCall    `json:"call,omitempty"`
}

// resumeKinds names the resumeKinds in a snapshot.
var resumeKinds = [...]string{resumeStart: "start", resumeWait: "wait", resumeRetry: "retry", resumeOutcome: "outcome", resumeCall: "call"}

// snapshotCall is a Lambda invocation: its function, its payload (JSON
// text) and its Task state's deadline.
type snapshotCall struct {
	Function string    `json:"function"`
	Payload  string    `json:"payload"`
	Deadline time.Time `json:"deadline"`
}

// snapshotOutcome is what SendTaskSuccess or SendTaskFailure sent.
type snapshotOutcome struct {
	Output jsonValue `json:"output"`
	Failed bool      `json:"failed,omitempty"`
	Error  string    `json:"error,omitempty"`
	Cause  string    `json:"cause,omitempty"`
}

// snapshotCallback is a callback task's attempt: its token, its timeouts,
// whether its function has returned, the outcome sent before it did, and
// once it has, the events of its timeouts.
type snapshotCallback struct {
	Token            string           `json:"token"`
	HeartbeatSeconds int64            `json:"heartbeatSeconds,omitempty"`
	Deadline         time.Time        `json:"deadline"`
	Submitted        bool             `json:"submitted,omitempty"`
	Outcome          *snapshotOutcome `json:"outcome,omitempty"`
	Timeout          *snapshotTimer   `json:"timeout,omitempty"`
	Heartbeat        *snapshotTimer   `json:"heartbeat,omitempty"`
}

// jsonValue is a JSON document of an execution's data, as JSON:
// encoding/json renders its numbers exactly, and asl.DecodeJSON reads it
// back as the executor's data.
type jsonValue struct{ v any }

// MarshalJSON renders the document.
func (j jsonValue) MarshalJSON() ([]byte, error) { return json.Marshal(j.v) }

// UnmarshalJSON reads the document.
func (j *jsonValue) UnmarshalJSON(b []byte) (err error) {
	j.v, err = asl.DecodeJSON(b)
	return err
}
