package target

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestBatchItemFailure(t *testing.T) {
	const id = "059f36b4-87a3-44ab-83d2-661975830a7d"
	tests := []struct {
		name     string
		response string
		want     string // "" is success
	}{
		{name: "void handler", response: `null`},
		{name: "no payload", response: ``},
		{name: "empty object", response: `{}`},
		{name: "empty list", response: `{"batchItemFailures":[]}`},
		{name: "null list", response: `{"batchItemFailures":null}`},
		{name: "other output", response: `{"status":"ok"}`},
		{name: "not an object", response: `"done"`},
		{name: "record reported", response: `{"batchItemFailures":[{"itemIdentifier":"` + id + `"}]}`, want: `the consumer reported message "` + id + `" in batchItemFailures`},
		{name: "record reported after another", response: `{"batchItemFailures":[{"itemIdentifier":"x"},{"itemIdentifier":"` + id + `"}]}`, want: `the consumer reported message "` + id + `" in batchItemFailures`},
		{name: "unknown identifier", response: `{"batchItemFailures":[{"itemIdentifier":"other"}]}`, want: `the consumer's batchItemFailures names "other", not the record "` + id + `"; Lambda fails the whole batch`},
		{name: "empty identifier", response: `{"batchItemFailures":[{"itemIdentifier":""}]}`, want: "the consumer's batchItemFailures has an entry without an itemIdentifier; Lambda fails the whole batch"},
		{name: "null identifier", response: `{"batchItemFailures":[{"itemIdentifier":null}]}`, want: "the consumer's batchItemFailures has an entry without an itemIdentifier; Lambda fails the whole batch"},
		{name: "misspelt key", response: `{"batchItemFailures":[{"itemId":"` + id + `"}]}`, want: "the consumer's batchItemFailures has an entry without an itemIdentifier; Lambda fails the whole batch"},
		{name: "list of strings", response: `{"batchItemFailures":["` + id + `"]}`, want: `the consumer's batchItemFailures is not a list of {"itemIdentifier": string}`},
		{name: "not JSON", response: `OK`, want: "the consumer's response is not JSON (2 bytes); Lambda fails the whole batch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := batchItemFailure([]byte(tt.response), id)
			if tt.want == "" {
				assert.Empty(t, got)
				return
			}
			assert.Contains(t, got, tt.want)
		})
	}
}

func TestFunctionError(t *testing.T) {
	tests := []struct {
		name     string
		payload  string
		wantType string
		wantMsg  string
	}{
		{name: "Go error", payload: `{"errorMessage":"amount is negative","errorType":"ValidationError"}`, wantType: "ValidationError", wantMsg: "amount is negative"},
		{name: "timeout in a current runtime", payload: `{"errorType":"Sandbox.Timedout","errorMessage":"RequestId: 1 Error: Task timed out after 3.00 seconds"}`, wantType: "Sandbox.Timedout", wantMsg: "RequestId: 1 Error: Task timed out after 3.00 seconds"},
		{name: "timeout without a type", payload: `{"errorMessage":"2024-01-01T00:00:00.000Z 1 Task timed out after 3.00 seconds"}`, wantType: "Unhandled", wantMsg: "2024-01-01T00:00:00.000Z 1 Task timed out after 3.00 seconds"},
		{name: "type without a message", payload: `{"errorType":"Runtime.ExitError"}`, wantType: "Runtime.ExitError", wantMsg: `{"errorType":"Runtime.ExitError"}`},
		{name: "not an error document", payload: `process exited`, wantType: "Unhandled", wantMsg: "process exited"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gotType, gotMsg := functionError("Unhandled", []byte(tt.payload))
			assert.Equal(t, tt.wantType, gotType)
			assert.Equal(t, tt.wantMsg, gotMsg)
		})
	}
}
