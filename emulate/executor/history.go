package executor

import (
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/ohler55/ojg/oj"

	"github.com/redrive/redrive/emulate/asl"
)

// maxHistoryEvents is Step Functions' execution history quota: an execution
// that would exceed it fails.
const maxHistoryEvents = 25000

// History event details. Each is the API's <type>EventDetails member; JSON
// documents inside them (inputs, outputs, parameters) are kept as generic
// data and rendered to the API's JSON strings only when marshalled, so
// recording an event costs no serialisation.
type (
	// jsonDoc is a JSON document the API carries as a string.
	jsonDoc struct{ v any }

	// payloadDetails is the API's HistoryEventExecutionDataDetails.
	payloadDetails struct {
		Truncated bool `json:"truncated"`
	}

	executionStartedDetails struct {
		Input        jsonDoc        `json:"input"`
		InputDetails payloadDetails `json:"inputDetails"`
		RoleArn      string         `json:"roleArn"`
	}

	outputDetails struct {
		Output        jsonDoc        `json:"output"`
		OutputDetails payloadDetails `json:"outputDetails"`
	}

	errorDetails struct {
		Error string `json:"error,omitempty"`
		Cause string `json:"cause,omitempty"`
	}

	stateEnteredDetails struct {
		Name         string         `json:"name"`
		Input        jsonDoc        `json:"input"`
		InputDetails payloadDetails `json:"inputDetails"`
	}

	stateExitedDetails struct {
		Name          string         `json:"name"`
		Output        jsonDoc        `json:"output"`
		OutputDetails payloadDetails `json:"outputDetails"`
	}

	taskScheduledDetails struct {
		ResourceType       string  `json:"resourceType"`
		Resource           string  `json:"resource"`
		Region             string  `json:"region"`
		Parameters         jsonDoc `json:"parameters"`
		TimeoutInSeconds   int64   `json:"timeoutInSeconds,omitempty"`
		HeartbeatInSeconds int64   `json:"heartbeatInSeconds,omitempty"`
	}

	taskStartedDetails struct {
		ResourceType string `json:"resourceType"`
		Resource     string `json:"resource"`
	}

	// taskOutputDetails is the details of TaskSubmitted and TaskSucceeded.
	taskOutputDetails struct {
		ResourceType  string         `json:"resourceType"`
		Resource      string         `json:"resource"`
		Output        jsonDoc        `json:"output"`
		OutputDetails payloadDetails `json:"outputDetails"`
	}

	taskErrorDetails struct {
		ResourceType string `json:"resourceType"`
		Resource     string `json:"resource"`
		Error        string `json:"error,omitempty"`
		Cause        string `json:"cause,omitempty"`
	}

	lambdaScheduledDetails struct {
		Resource         string         `json:"resource"`
		Input            jsonDoc        `json:"input"`
		InputDetails     payloadDetails `json:"inputDetails"`
		TimeoutInSeconds int64          `json:"timeoutInSeconds,omitempty"`
	}
)

// MarshalJSON renders the document as a JSON string of its compact JSON
// text (keys sorted, so histories are deterministic).
func (d jsonDoc) MarshalJSON() ([]byte, error) {
	return json.Marshal(oj.JSON(d.v, &oj.Options{Sort: true}))
}

// detailsMember returns the HistoryEvent member that carries the details of
// an event type: "stateEnteredEventDetails" for every *StateEntered type,
// "stateExitedEventDetails" for *StateExited, else the type with a
// lower-case first letter and "EventDetails" appended.
func detailsMember(typ string) string {
	switch {
	case strings.HasSuffix(typ, "StateEntered"):
		return "stateEnteredEventDetails"
	case strings.HasSuffix(typ, "StateExited"):
		return "stateExitedEventDetails"
	}
	return strings.ToLower(typ[:1]) + typ[1:] + "EventDetails"
}

// MarshalJSON renders the event as the Step Functions API's HistoryEvent:
// the timestamp in epoch seconds (AWS JSON 1.0's timestamp format) and the
// details under the member for the event's type.
func (ev Event) MarshalJSON() ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"id":`...)
	b = strconv.AppendInt(b, ev.ID, 10)
	b = append(b, `,"previousEventId":`...)
	b = strconv.AppendInt(b, ev.PreviousEventID, 10)
	b = append(b, `,"timestamp":`...)
	b = appendEpochSeconds(b, ev.Timestamp)
	b = append(b, `,"type":`...)
	typ, err := json.Marshal(ev.Type)
	if err != nil {
		return nil, err
	}
	b = append(b, typ...)
	if ev.Details != nil && ev.Type != "" {
		details, err := json.Marshal(ev.Details)
		if err != nil {
			return nil, err
		}
		b = append(b, `,"`...)
		b = append(b, detailsMember(ev.Type)...)
		b = append(b, `":`...)
		b = append(b, details...)
	}
	return append(b, '}'), nil
}

// appendEpochSeconds appends t as epoch seconds with millisecond precision.
func appendEpochSeconds(b []byte, t time.Time) []byte {
	ms := t.UnixMilli()
	b = strconv.AppendInt(b, ms/1000, 10)
	if frac := ms % 1000; frac != 0 {
		b = append(b, '.')
		b = append(b, byte('0'+frac/100), byte('0'+frac/10%10), byte('0'+frac%10))
	}
	return b
}

// record appends an event to the execution's history. Events after the
// execution closed are dropped; the event that would reach the history
// quota fails the execution instead (its ExecutionFailed is the last
// event). Call with x.mu held.
func (x *execution) record(typ string, details any) {
	if x.status != Running {
		return
	}
	if x.events == maxHistoryEvents-1 {
		x.fail(asl.StatesRuntime, "The execution reached the maximum number of history events ("+strconv.Itoa(maxHistoryEvents)+").")
		return
	}
	x.appendEvent(typ, details)
}

// appendEvent appends an event unconditionally (but counts it only, when
// the execution records no history), with the next id and the
// previous event's id as previousEventId (executions here are sequential,
// so every event follows from the one before it), except that the first
// state's *StateEntered, right after ExecutionStarted, has previousEventId
// 0 as in AWS's histories. Call with x.mu held.
func (x *execution) appendEvent(typ string, details any) {
	x.events++
	if x.unrecorded {
		return
	}
	id := int64(x.events)
	prev := id - 1
	if id == 2 && strings.HasSuffix(typ, "StateEntered") {
		prev = 0
	}
	x.history = append(x.history, Event{
		ID:              id,
		PreviousEventID: prev,
		Timestamp:       x.e.Now(),
		Type:            typ,
		Details:         details,
	})
}
