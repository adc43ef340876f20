package executor

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ohler55/ojg/oj"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl"
)

// payloadMachine waits $.s seconds, has a function echo its input and
// keeps the Payload of the invoke result, then draws a UUID.
const payloadMachine = `{"StartAt":"Wait","States":{
	"Wait":{"Type":"Wait","SecondsPath":"$.s","Next":"Call"},
	"Call":{"Type":"Task","Resource":"arn:aws:states:::lambda:invoke","Parameters":{"FunctionName":"echo","Payload.$":"$"},"OutputPath":"$.Payload","Next":"Id"},
	"Id":{"Type":"Pass","Parameters":{"echo.$":"$","id.$":"States.UUID()"},"End":true}}}`

// An execution that records no history builds no invoke result when its
// output is the Payload alone; its output, and the UUID it draws after,
// are those of the same execution recording its history.
func TestAnUnrecordedExecutionOutputsWhatARecordedOneDoes(t *testing.T) {
	outputs := map[int]string{}
	for _, recording := range []int{0, 1} {
		reg := NewRegistry()
		require.NoError(t, reg.Register("echo", func(_ context.Context, in map[string]any) (map[string]any, error) { return in, nil }))
		e := New(Options{Invoker: reg, RunningHistories: recording})
		arn, err := e.CreateStateMachine(t.Context(), "payload", payloadMachine, "")
		require.NoError(t, err)
		_, err = e.StartExecution(t.Context(), arn, "long", `{"s":3600}`)
		require.NoError(t, err)
		short, err := e.StartExecution(t.Context(), arn, "short", `{"s":1}`)
		require.NoError(t, err)
		require.NoError(t, e.Run(t.Context()))
		if _, err := e.History(t.Context(), short.ARN); recording == 1 {
			require.ErrorIs(t, err, ErrHistoryNotRecorded, "the short one started while the long one recorded")
		} else {
			require.NoError(t, err)
		}
		x, err := e.DescribeExecution(t.Context(), short.ARN)
		require.NoError(t, err)
		require.Equal(t, Succeeded, x.Status)
		outputs[recording] = string(x.Output)
	}
	assert.Contains(t, outputs[0], `"echo":{"s":1}`)
	assert.Equal(t, outputs[0], outputs[1])
}

func TestSkipInvokeResultDrawsWhatInvokeResultDraws(t *testing.T) {
	e := New(Options{})
	built, skipped := &execution{e: e, rng: *rand.NewPCG(1, 2)}, &execution{e: e, rng: *rand.NewPCG(1, 2)}
	built.invokeResult(&call{}, nil)
	skipped.skipInvokeResult()
	assert.Equal(t, built.rng.Uint64(), skipped.rng.Uint64())
}

func TestInvokeResultMetadataIsWithinItsBound(t *testing.T) {
	x := &execution{e: New(Options{})}
	c := &call{inv: Invocation{ExecutedVersion: strings.Repeat("v", 128), Payload: make([]byte, asl.MaxPayloadBytes)}}
	metadata := len(oj.JSON(x.invokeResult(c, nil))) - len(`null`)
	assert.Less(t, metadata, maxInvokeMetadata, "the longest version and Content-Length")
}
