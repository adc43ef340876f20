package lambdaapi_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-lambda-go/lambdacontext"
	"github.com/aws/aws-sdk-go-v2/aws"
	awsmiddleware "github.com/aws/aws-sdk-go-v2/aws/middleware"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/lambda"
	lambdatypes "github.com/aws/aws-sdk-go-v2/service/lambda/types"
	"github.com/aws/smithy-go"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/executor/lambdaapi"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type greeting struct {
	Name string `json:"name"`
}

type greetingOut struct {
	Message string `json:"message"`
	ARN     string `json:"arn"`
}

// TargetDown is a task error as the project's handlers return them.
type TargetDown struct{ Status int }

func (e *TargetDown) Error() string { return "target answered 503" }

// newRegistry hosts the handlers the tests invoke.
func newRegistry(t testing.TB) *executor.Registry {
	t.Helper()
	r := executor.NewRegistry()
	require.NoError(t, r.Register("greet", func(ctx context.Context, in greeting) (greetingOut, error) {
		lc, _ := lambdacontext.FromContext(ctx)
		return greetingOut{Message: "hello " + in.Name, ARN: lc.InvokedFunctionArn}, nil
	}))
	require.NoError(t, r.Register("deliver", func(context.Context, greeting) error {
		return &TargetDown{Status: 503}
	}))
	return r
}

// newClient is the real SDK client pointed at h.
func newClient(t testing.TB, h http.Handler) (*lambda.Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return lambda.New(lambda.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
		HTTPClient:   srv.Client(),
		Retryer:      aws.NopRetryer{},
	}), srv
}

func TestServerInvokes(t *testing.T) {
	client, _ := newClient(t, lambdaapi.NewServer(newRegistry(t)))
	const arn = "arn:aws:lambda:us-east-1:123456789012:function:greet"
	tests := []struct {
		name      string
		in        lambda.InvokeInput
		want      string
		version   string
		funcError string
	}{
		{
			name:    "by name",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), Payload: []byte(`{"name":"ops"}`)},
			want:    `{"message":"hello ops","arn":"` + arn + `"}`,
			version: "$LATEST",
		},
		{
			name:    "explicit RequestResponse",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), InvocationType: lambdatypes.InvocationTypeRequestResponse, Payload: []byte(`{"name":"ops"}`)},
			want:    `{"message":"hello ops","arn":"` + arn + `"}`,
			version: "$LATEST",
		},
		{
			name:    "Qualifier parameter",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), Qualifier: aws.String("5"), Payload: []byte(`{"name":"v5"}`)},
			want:    `{"message":"hello v5","arn":"` + arn + `:5"}`,
			version: "5",
		},
		{
			name:    "qualified ARN",
			in:      lambda.InvokeInput{FunctionName: aws.String(arn + ":live"), Payload: []byte(`{"name":"alias"}`)},
			want:    `{"message":"hello alias","arn":"` + arn + `:live"}`,
			version: "$LATEST",
		},
		{
			name:    "no payload",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet")},
			want:    `{"message":"hello ","arn":"` + arn + `"}`,
			version: "$LATEST",
		},
		{
			name:      "function error",
			in:        lambda.InvokeInput{FunctionName: aws.String("deliver"), Payload: []byte(`{"name":"x"}`)},
			want:      `{"errorMessage":"target answered 503","errorType":"TargetDown"}`,
			version:   "$LATEST",
			funcError: "Unhandled",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := client.Invoke(context.Background(), &tt.in)
			require.NoError(t, err)
			assert.Equal(t, int32(http.StatusOK), out.StatusCode)
			assert.JSONEq(t, tt.want, string(out.Payload))
			assert.Equal(t, tt.version, aws.ToString(out.ExecutedVersion))
			assert.Equal(t, tt.funcError, aws.ToString(out.FunctionError))
		})
	}
}

// failingInvoker fails every invocation with err, as a broken backend would.
type failingInvoker struct{ err error }

func (f failingInvoker) Invoke(context.Context, string, []byte) (executor.Invocation, error) {
	return executor.Invocation{}, f.err
}

func TestServerErrors(t *testing.T) {
	client, _ := newClient(t, lambdaapi.NewServer(newRegistry(t)))
	broken, _ := newClient(t, lambdaapi.NewServer(failingInvoker{errors.New("backend connection reset")}))
	tests := []struct {
		name    string
		client  *lambda.Client
		in      lambda.InvokeInput
		check   func(t *testing.T, err error)
		code    string
		message string
	}{
		{
			name:    "unknown function",
			in:      lambda.InvokeInput{FunctionName: aws.String("nope"), Payload: []byte(`{}`)},
			code:    "ResourceNotFoundException",
			message: "Function not found: arn:aws:lambda:us-east-1:123456789012:function:nope",
			check: func(t *testing.T, err error) {
				var notFound *lambdatypes.ResourceNotFoundException
				require.ErrorAs(t, err, &notFound)
				assert.Equal(t, "User", aws.ToString(notFound.Type))
			},
		},
		{
			name:    "invalid JSON payload",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), Payload: []byte(`{"name":`)},
			code:    "InvalidRequestContentException",
			message: "Could not parse request body into json",
			check: func(t *testing.T, err error) {
				var bad *lambdatypes.InvalidRequestContentException
				require.ErrorAs(t, err, &bad)
			},
		},
		{
			name:    "payload over 6 MB",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), Payload: []byte(`"` + strings.Repeat("x", 6<<20) + `"`)},
			code:    "RequestTooLargeException",
			message: "Request must be smaller than 6291456 bytes",
			check: func(t *testing.T, err error) {
				var tooLarge *lambdatypes.RequestTooLargeException
				require.ErrorAs(t, err, &tooLarge)
			},
		},
		{
			name:    "invalid function name",
			in:      lambda.InvokeInput{FunctionName: aws.String("no spaces allowed"), Payload: []byte(`{}`)},
			code:    "ValidationException",
			message: "at 'functionName' failed to satisfy constraint",
		},
		{
			name:    "asynchronous invocation",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), InvocationType: lambdatypes.InvocationTypeEvent, Payload: []byte(`{}`)},
			code:    "InvalidParameterValueException",
			message: "InvocationType Event is not supported",
		},
		{
			name:    "unknown invocation type",
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), InvocationType: "Sometimes", Payload: []byte(`{}`)},
			code:    "ValidationException",
			message: "Value 'Sometimes' at 'invocationType'",
		},
		{
			name:    "backend failure",
			client:  broken,
			in:      lambda.InvokeInput{FunctionName: aws.String("greet"), Payload: []byte(`{}`)},
			code:    "ServiceException",
			message: "backend connection reset",
			check: func(t *testing.T, err error) {
				var svc *lambdatypes.ServiceException
				require.ErrorAs(t, err, &svc)
				assert.Equal(t, "Service", aws.ToString(svc.Type))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := client
			if tt.client != nil {
				c = tt.client
			}
			_, err := c.Invoke(context.Background(), &tt.in)
			var apiErr smithy.APIError
			require.ErrorAs(t, err, &apiErr)
			assert.Equal(t, tt.code, apiErr.ErrorCode())
			assert.Contains(t, apiErr.ErrorMessage(), tt.message)
			if tt.check != nil {
				tt.check(t, err)
			}
		})
	}
}

func TestServerUnknownOperation(t *testing.T) {
	_, srv := newClient(t, lambdaapi.NewServer(newRegistry(t)))
	for _, req := range []struct{ method, path string }{
		{http.MethodGet, "/2015-03-31/functions/greet/invocations"},
		{http.MethodPost, "/2015-03-31/functions/greet"},
		{http.MethodPost, "/"},
	} {
		t.Run(req.method+" "+req.path, func(t *testing.T) {
			r, err := http.NewRequest(req.method, srv.URL+req.path, strings.NewReader(`{}`))
			require.NoError(t, err)
			resp, err := srv.Client().Do(r)
			require.NoError(t, err)
			defer resp.Body.Close()
			assert.Equal(t, http.StatusNotFound, resp.StatusCode)
			assert.Equal(t, "UnknownOperationException", resp.Header.Get("X-Amzn-ErrorType"))
			var body struct{ Message string }
			require.NoError(t, json.NewDecoder(resp.Body).Decode(&body))
			assert.Contains(t, body.Message, req.path)
		})
	}
}

// The HTTP Invoker through the server must give the executor exactly what
// the Registry gives it in process.
func TestInvokerMatchesRegistry(t *testing.T) {
	reg := newRegistry(t)
	client, _ := newClient(t, lambdaapi.NewServer(reg))
	inv := lambdaapi.NewInvoker(client)
	tests := []struct{ function, payload string }{
		{"greet", `{"name":"ops"}`},
		{"greet:7", `{"name":"seven"}`},
		{"arn:aws:lambda:us-east-1:123456789012:function:greet", `{"name":"arn"}`},
		{"deliver", `{"name":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.function, func(t *testing.T) {
			want, err := reg.Invoke(context.Background(), tt.function, []byte(tt.payload))
			require.NoError(t, err)
			got, err := inv.Invoke(context.Background(), tt.function, []byte(tt.payload))
			require.NoError(t, err)
			assert.JSONEq(t, string(want.Payload), string(got.Payload))
			assert.Equal(t, want.FunctionError, got.FunctionError)
			assert.Equal(t, want.ExecutedVersion, got.ExecutedVersion)
		})
	}
}

func TestInvokerErrors(t *testing.T) {
	client, _ := newClient(t, lambdaapi.NewServer(newRegistry(t)))
	inv := lambdaapi.NewInvoker(client)

	_, err := inv.Invoke(context.Background(), "nope", []byte(`{}`))
	var notFound *lambdatypes.ResourceNotFoundException
	require.ErrorAs(t, err, &notFound)
	// It reads as the cause Step Functions records for it.
	assert.Regexp(t, `^Function not found: arn:aws:lambda:us-east-1:123456789012:function:nope `+
		`\(Service: AWSLambda; Status Code: 404; Error Code: ResourceNotFoundException; Request ID: `+uuidPattern+`; Proxy: null\)$`, err.Error())
	// The executor names the task error after ErrorCode (Lambda.<code>).
	var coded interface{ ErrorCode() string }
	require.ErrorAs(t, err, &coded)
	assert.Equal(t, "ResourceNotFoundException", coded.ErrorCode())

	_, err = inv.Invoke(context.Background(), "greet", []byte(`not json`))
	var bad *lambdatypes.InvalidRequestContentException
	assert.ErrorAs(t, err, &bad)

	// Not a service error: no HTTP response to summarise.
	unreachable := lambda.New(lambda.Options{
		Region: "us-east-1", BaseEndpoint: aws.String("http://127.0.0.1:1"), Retryer: aws.NopRetryer{},
		Credentials: credentials.NewStaticCredentialsProvider("AKIDLOCAL", "local-secret", ""),
	})
	_, err = lambdaapi.NewInvoker(unreachable).Invoke(context.Background(), "greet", []byte(`{}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `invoke lambda "greet"`)
	assert.NotContains(t, err.Error(), "Service: AWSLambda")
}

// uuidPattern matches a request id.
const uuidPattern = `[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`

// Every response, whatever its outcome, has its own x-amzn-RequestId,
// which the SDK reads as the request id.
func TestServerRequestIDs(t *testing.T) {
	client, srv := newClient(t, lambdaapi.NewServer(newRegistry(t)))
	ctx := context.Background()
	seen := map[string]string{}
	record := func(t *testing.T, what, id string) {
		t.Helper()
		assert.Regexp(t, "^"+uuidPattern+"$", id, what)
		_, dup := seen[id]
		assert.False(t, dup, "%s reuses the id of %s", what, seen[id])
		seen[id] = what
	}

	for _, fn := range []string{"greet", "deliver"} {
		out, err := client.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(fn), Payload: []byte(`{}`)})
		require.NoError(t, err)
		id, ok := awsmiddleware.GetRequestIDMetadata(out.ResultMetadata)
		require.True(t, ok, fn)
		record(t, fn, id)
	}
	for _, fn := range []string{"nope", "no spaces allowed"} {
		_, err := client.Invoke(ctx, &lambda.InvokeInput{FunctionName: aws.String(fn), Payload: []byte(`{}`)})
		var respErr *awshttp.ResponseError
		require.ErrorAs(t, err, &respErr)
		record(t, fn, respErr.ServiceRequestID())
	}
	resp, err := srv.Client().Get(srv.URL + "/2015-03-31/functions/greet/invocations")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
	record(t, "unknown operation", resp.Header.Get("x-amzn-RequestId"))
	assert.Len(t, seen, 5)
}
