package local

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// roomMachine is the redrive machine's shape: a task whose payload is its
// input and whose output is the response's Payload, a Choice on it, a
// callback task that discards its result, and a Wait, around again.
const roomMachine = `{"StartAt":"Attempt","States":{
	"Attempt":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"attempt","Payload.$":"$"},"OutputPath":"$.Payload","Next":"Route"},
	"Route":{"Type":"Choice","Choices":[
		{"Variable":"$.next","StringEquals":"ROOM","Next":"Room"},
		{"Variable":"$.next","StringEquals":"WAIT","Next":"Cooldown"}],"Default":"Done"},
	"Room":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke.waitForTaskToken","Parameters":{"FunctionName":"room","Payload":{"document.$":"$","taskToken.$":"$$.Task.Token"}},"ResultPath":null,"Next":"Attempt"},
	"Cooldown":{"Type":"Wait","SecondsPath":"$.wait","Next":"Attempt"},
	"Done":{"Type":"Succeed"}}}`

// roomRun is what one run of roomMachine saw.
type roomRun struct {
	mu       sync.Mutex
	payloads []string // what the attempt function received
	tokens   []string
}

// attemptHandler answers with the bytes it returns, as they are.
type attemptHandler func(ctx context.Context, in []byte) ([]byte, error)

func (h attemptHandler) Invoke(ctx context.Context, in []byte) ([]byte, error) { return h(ctx, in) }

// attempt sends the document to the room, then to a cooldown, then done,
// counting its calls in the document; the response is indented, which
// only a text passed on verbatim keeps.
func (r *roomRun) attempt(_ context.Context, in []byte) ([]byte, error) {
	r.mu.Lock()
	r.payloads = append(r.payloads, string(in))
	r.mu.Unlock()
	var doc map[string]any
	if err := json.Unmarshal(in, &doc); err != nil {
		return nil, err
	}
	n, _ := doc["n"].(float64)
	doc["n"] = n + 1
	doc["next"] = [...]string{"ROOM", "WAIT", "DONE"}[int(n)]
	doc["wait"] = 5
	return json.MarshalIndent(doc, " ", " ")
}

func (r *roomRun) room(_ context.Context, in struct {
	TaskToken string `json:"taskToken"`
}) (struct{}, error) {
	r.mu.Lock()
	r.tokens = append(r.tokens, in.TaskToken)
	r.mu.Unlock()
	return struct{}{}, nil
}

// An execution that records no history passes its documents on as the
// text it received, and keeps only the text while it waits for a task
// token: what its functions receive (as JSON values), its output and its
// transitions are those of the same execution recording its history.
func TestAnUnrecordedExecutionPassesTextsOn(t *testing.T) {
	type result struct {
		payloads []any
		output   string
		counts   Counts
	}
	results := map[int]result{}
	for _, recording := range []int{0, 1} {
		run := &roomRun{}
		reg := NewRegistry()
		require.NoError(t, reg.Register("attempt", attemptHandler(run.attempt)))
		require.NoError(t, reg.Register("room", run.room))
		e := New(Options{Invoker: reg, RunningHistories: recording})
		arn, err := e.CreateStateMachine(t.Context(), "room", roomMachine, "")
		require.NoError(t, err)
		// With one slot, this one records its history while it waits in
		// the room, and the next records none.
		_, err = e.StartExecution(t.Context(), arn, "first", `{"n":0}`)
		require.NoError(t, err)
		require.NoError(t, e.RunUntil(t.Context(), e.Now().Add(time.Second)))
		run.payloads, run.tokens = nil, nil
		x, err := e.StartExecution(t.Context(), arn, "doc", `{"id": "m-1", "n": 0, "s": "é \u2028 \"q\""}`)
		require.NoError(t, err)
		require.NoError(t, e.RunUntil(t.Context(), e.Now().Add(time.Minute)))
		require.Len(t, run.tokens, 1, "in the room")

		f, err := e.lookup(x.ARN)
		require.NoError(t, err)
		f.x.mu.Lock()
		assert.Nil(t, f.x.rawInput, "a waiting execution keeps its input as text alone")
		assert.NotEmpty(t, f.x.rawText)
		assert.Equal(t, recording == 1, f.x.unrecorded)
		f.x.mu.Unlock()

		require.NoError(t, e.SendTaskSuccess(t.Context(), run.tokens[0], `{"discarded":true}`))
		require.NoError(t, e.RunUntil(t.Context(), e.Now().Add(time.Hour)))
		got, err := e.DescribeExecution(t.Context(), x.ARN)
		require.NoError(t, err)
		require.Equal(t, Succeeded, got.Status)
		c, err := e.Counts(t.Context(), arn)
		require.NoError(t, err)
		res := result{output: string(got.Output), counts: c}
		for _, p := range run.payloads {
			// Unrecorded, each payload is the text the execution
			// received: the input, then the responses, around the
			// Choice, the room and the Wait.
			assert.Equal(t, recording == 1, strings.Contains(p, ": "), p)
			var v any
			require.NoError(t, json.Unmarshal([]byte(p), &v), p)
			res.payloads = append(res.payloads, v)
		}
		results[recording] = res
	}
	require.Len(t, results[0].payloads, 3, "three attempts")
	assert.Equal(t, results[0].payloads, results[1].payloads)
	assert.JSONEq(t, `{"id":"m-1","n":3,"next":"DONE","wait":5,"s":"é \u2028 \"q\""}`, results[0].output)
	assert.Equal(t, results[0].output, results[1].output)
	assert.Equal(t, results[0].counts, results[1].counts)
}

// States whose output is not their input, around texts passed on: an
// unrecorded execution outputs what a recorded one does.
func TestAnUnrecordedExecutionPassesOnlyItsInputsText(t *testing.T) {
	const call = `"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload.$":"$"},"OutputPath":"$.Payload"`
	for name, states := range map[string]string{
		"a Choice's OutputPath":          `"C":{` + call + `,"Next":"P"},"P":{"Type":"Choice","OutputPath":"$.inner","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"D"}],"Default":"D"},"D":{"Type":"Succeed"}`,
		"a Choice's InputPath":           `"C":{` + call + `,"Next":"P"},"P":{"Type":"Choice","InputPath":"$.inner","Choices":[{"Variable":"$.x","IsPresent":true,"Next":"D"}],"Default":"D"},"D":{"Type":"Succeed"}`,
		"a Wait's InputPath":             `"C":{` + call + `,"Next":"W"},"W":{"Type":"Wait","Seconds":1,"InputPath":"$.inner","Next":"D"},"D":{"Type":"Succeed"}`,
		"a discarded result, OutputPath": `"C":{` + call + `,"Next":"T"},"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload.$":"$"},"ResultPath":null,"OutputPath":"$.inner","End":true}`,
		"a result under the input":       `"C":{` + call + `,"Next":"T"},"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload.$":"$"},"ResultPath":"$.again","End":true}`,
		"a Pass between":                 `"C":{` + call + `,"Next":"P"},"P":{"Type":"Pass","Parameters":{"inner.$":"$.inner"},"Next":"T"},"T":{` + call + `,"End":true}`,
		"a field as payload":             `"C":{` + call + `,"Next":"T"},"T":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload.$":"$.inner"},"OutputPath":"$.Payload","End":true}`,
		"a Succeed's OutputPath":         `"C":{` + call + `,"Next":"D"},"D":{"Type":"Succeed","OutputPath":"$.inner"}`,
	} {
		t.Run(name, func(t *testing.T) {
			outputs := map[int]string{}
			for _, recording := range []int{0, 1} {
				reg := NewRegistry()
				echo := attemptHandler(func(_ context.Context, in []byte) ([]byte, error) {
					var v map[string]any
					if err := json.Unmarshal(in, &v); err != nil {
						return nil, err
					}
					v["calls"] = len(v) // changes with what it got
					return json.MarshalIndent(v, "", " ")
				})
				require.NoError(t, reg.Register("echo", echo))
				e := New(Options{Invoker: reg, RunningHistories: recording})
				arn, err := e.CreateStateMachine(t.Context(), "m", `{"StartAt":"C","States":{`+states+`}}`, "")
				require.NoError(t, err)
				_, err = e.StartExecution(t.Context(), arn, "first", `{"inner":{"a":1}}`)
				require.NoError(t, err)
				x, err := e.StartExecution(t.Context(), arn, "second", `{"inner": {"a": 1, "b": [1, 2.5, "é"]}}`)
				require.NoError(t, err)
				require.NoError(t, e.Run(t.Context()))
				got, err := e.DescribeExecution(t.Context(), x.ARN)
				require.NoError(t, err)
				require.Equal(t, Succeeded, got.Status, got.Cause)
				outputs[recording] = string(got.Output)
			}
			assert.Equal(t, outputs[0], outputs[1])
		})
	}
}
