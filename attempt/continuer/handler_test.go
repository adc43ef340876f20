package continuer_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt/continuer"
	"github.com/redrive/redrive/lambda/telemetry"
	"github.com/redrive/redrive/message"
	"github.com/redrive/redrive/test/sfntest"
)

// golden reads a file under testdata.
func golden(t *testing.T, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	return data
}

// input is the golden Continue payload.
func input(t *testing.T) continuer.Input {
	t.Helper()
	var in continuer.Input
	require.NoError(t, json.Unmarshal(golden(t, "input.json"), &in))
	return in
}

func newHandler(t *testing.T, env *sfntest.Env) *continuer.Handler {
	return &continuer.Handler{SFN: env.Client, Logger: telemetry.JSONLogger(t.Output())}
}

func TestContinueStartsTheNextExecution(t *testing.T) {
	env := sfntest.Start(t, nil)
	out, err := newHandler(t, env).Handle(context.Background(), input(t))
	require.NoError(t, err)

	got, err := json.Marshal(out)
	require.NoError(t, err)
	assert.JSONEq(t, string(golden(t, "output.json")), string(got))

	const name = "059f36b4-87a3-44ab-83d2-661975830a7d-a2-m054ae0e5-c1"
	x, ok := env.Describe(t, name)
	require.True(t, ok, "execution %s", name)
	assert.Equal(t, env.StateMachineARN, aws.ToString(x.StateMachineArn))
	assert.Equal(t, sfntypes.ExecutionStatusRunning, x.Status)
	assert.JSONEq(t, string(golden(t, "next-input.json")), aws.ToString(x.Input))
	_, err = message.ParseDocument([]byte(aws.ToString(x.Input)))
	assert.NoError(t, err, "the new input is a valid document")
}

func TestContinueAgainIsIdempotent(t *testing.T) {
	const name = "059f36b4-87a3-44ab-83d2-661975830a7d-a2-m054ae0e5-c1"
	tests := []struct {
		name string
		// stop ends the first continuation before the retry, so Step
		// Functions answers ExecutionAlreadyExists instead of returning
		// the running execution.
		stop bool
	}{
		{"while the new execution runs", false},
		{"after it ended (ExecutionAlreadyExists)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := sfntest.Start(t, nil)
			h := newHandler(t, env)
			first, err := h.Handle(context.Background(), input(t))
			require.NoError(t, err)
			if tt.stop {
				_, err := env.Client.StopExecution(context.Background(), &sfn.StopExecutionInput{ExecutionArn: aws.String(first.ExecutionARN)})
				require.NoError(t, err)
				_, err = env.Client.StartExecution(context.Background(), &sfn.StartExecutionInput{
					StateMachineArn: aws.String(env.StateMachineARN), Name: aws.String(name), Input: aws.String("{}"),
				})
				var exists *sfntypes.ExecutionAlreadyExists
				require.ErrorAs(t, err, &exists, "precondition: the name is taken")
			}

			again, err := h.Handle(context.Background(), input(t))
			require.NoError(t, err)
			assert.Equal(t, first, again)
			assert.Equal(t, []string{name}, env.Executions(t), "one execution")
		})
	}
}

func TestContinueCountsContinuations(t *testing.T) {
	env := sfntest.Start(t, nil)
	in := input(t)
	in.Document.Continuation = 6
	in.ExecutionARN = env.ExecutionARN("059f36b4-87a3-44ab-83d2-661975830a7d-a2-m054ae0e5-c6")
	out, err := newHandler(t, env).Handle(context.Background(), in)
	require.NoError(t, err)
	assert.Equal(t, env.ExecutionARN("059f36b4-87a3-44ab-83d2-661975830a7d-a2-m054ae0e5-c7"), out.ExecutionARN)
	x, ok := env.Describe(t, "059f36b4-87a3-44ab-83d2-661975830a7d-a2-m054ae0e5-c7")
	require.True(t, ok)
	doc, err := message.ParseDocument([]byte(aws.ToString(x.Input)))
	require.NoError(t, err)
	assert.Equal(t, 7, doc.Continuation)
	assert.Zero(t, doc.Cycles)
}

func TestContinueRefusesBadInput(t *testing.T) {
	tests := []struct {
		name   string
		change func(in *continuer.Input)
		want   string
	}{
		{"no execution ARN", func(in *continuer.Input) { in.ExecutionARN = "" }, `execution ARN ""`},
		{"a state machine ARN", func(in *continuer.Input) {
			in.ExecutionARN = "arn:aws:states:us-east-1:123456789012:stateMachine:redrive"
		}, "want arn:<partition>:states:<region>:<account>:execution:<state machine>:<name>"},
		{"an express execution", func(in *continuer.Input) {
			in.ExecutionARN = "arn:aws:states:us-east-1:123456789012:express:redrive:x:y"
		}, "want arn:<partition>:states"},
		{"an invalid document", func(in *continuer.Input) { in.Document.OriginID = "" }, `document field "originId": missing`},
		{"an unknown state machine", func(in *continuer.Input) {
			in.ExecutionARN = "arn:aws:states:us-east-1:123456789012:execution:other:x-a1"
		}, "StateMachineDoesNotExist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := sfntest.Start(t, nil)
			in := input(t)
			tt.change(&in)
			_, err := newHandler(t, env).Handle(context.Background(), in)
			require.Error(t, err)
			_, named := err.(*continuer.ContinueFailed) // unwrapped: Step Functions sees "ContinueFailed", not "wrapError"
			assert.True(t, named, "error %T", err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Empty(t, env.Executions(t), "nothing started")
		})
	}
}
