package simtarget_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/aws/aws-lambda-go/events"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker/breakertest"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/simtarget"
)

// t0 is the clock's start in these tests.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// clock is a settable test clock.

// hosted is a Target registered as "consumer" in a Registry, invoked the
// way Lambda invokes it.
type hosted struct {
	target *simtarget.Target
	reg    *executor.Registry
	clock  *breakertest.Clock
}

func host(t testing.TB, opts simtarget.Options) *hosted {
	t.Helper()
	c := breakertest.NewClock(t0)
	if opts.Clock == nil {
		opts.Clock = c
	}
	target, err := simtarget.New(opts)
	require.NoError(t, err)
	reg := executor.NewRegistry()
	require.NoError(t, reg.Register("consumer", target.Handle))
	return &hosted{target: target, reg: reg, clock: c}
}

// result is what one invocation returned.
type result struct {
	errorType string
	failures  []string // batchItemFailures' ids
}

// invoke sends records and returns the function error's type, or the
// batch item failures.
func (h *hosted) invoke(t testing.TB, records ...events.SQSMessage) result {
	t.Helper()
	payload, err := json.Marshal(events.SQSEvent{Records: records})
	require.NoError(t, err)
	inv, err := h.reg.Invoke(context.Background(), "consumer", payload)
	require.NoError(t, err)
	if inv.FunctionError != "" {
		var doc struct {
			ErrorType string `json:"errorType"`
		}
		require.NoError(t, json.Unmarshal(inv.Payload, &doc))
		return result{errorType: doc.ErrorType}
	}
	var resp events.SQSEventResponse
	require.NoError(t, json.Unmarshal(inv.Payload, &resp))
	var out result
	for _, f := range resp.BatchItemFailures {
		out.failures = append(out.failures, f.ItemIdentifier)
	}
	return out
}

// record is an SQS record with id and body.
func record(id, body string) events.SQSMessage {
	return events.SQSMessage{MessageId: id, Body: body, EventSource: "aws:sqs"}
}

// redriven is a record carrying a redrive lineage with origin.
func redriven(id, body, origin string) events.SQSMessage {
	r := record(id, body)
	lineage := `{"originId":"` + origin + `","attempt":2}`
	r.MessageAttributes = map[string]events.SQSMessageAttribute{
		"redrive": {DataType: "String", StringValue: &lineage},
	}
	return r
}
