package local

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/sfnapi"
)

// A throttled StartExecution fails alike through the API and in process:
// an error the SDK's retryer (and so the starter) takes for a throttle.
func TestThrottledStartIsAThrottleBothWays(t *testing.T) {
	e := executor.New(executor.Options{})
	t.Cleanup(e.Close)
	throttle := &startThrottle{next: sfnapi.NewServer(e), clock: e}
	throttle.throttle(e.Now(), e.Now().Add(time.Minute))
	wire := sfn.New(sfn.Options{Region: region, BaseEndpoint: aws.String("http://states.local"), Credentials: credentialsProvider,
		HTTPClient: &http.Client{Transport: handlerTransport{h: throttle}}, Retryer: aws.NopRetryer{}})
	direct := throttledClient{Client: sfnapi.NewClient(e), throttle: throttle}
	in := &sfn.StartExecutionInput{StateMachineArn: aws.String("arn:aws:states:us-east-1:123456789012:stateMachine:none")}
	for name, api := range map[string]interface {
		StartExecution(context.Context, *sfn.StartExecutionInput, ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error)
	}{"wire": wire, "in process": direct} {
		_, err := api.StartExecution(t.Context(), in)
		require.Error(t, err, name)
		assert.Equal(t, aws.TrueTernary, retry.IsErrorThrottles(retry.DefaultThrottles).IsErrorThrottle(err), "%s: %v", name, err)
	}
	assert.EqualValues(t, 2, throttle.count())
}
