package ddbtest

import (
	"net/http/httptest"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/truora/minidyn/server"

	"github.com/redrive/redrive/emulate/loopback"
)

// EndpointEnv names the environment variable that points the tests at an
// external DynamoDB-compatible endpoint (e.g. http://127.0.0.1:8000).
const EndpointEnv = "DDB_ENDPOINT"

// BackendMinidyn is the backend name Client reports for the embedded server.
const BackendMinidyn = "minidyn"

// Region is the region the test clients sign for; emulators accept any.
const Region = "us-east-1"

// Endpoint is the external endpoint the tests run against (EndpointEnv),
// or "" for the embedded minidyn.
func Endpoint() string { return os.Getenv(EndpointEnv) }

// Client returns a DynamoDB client for the test endpoint and the backend's
// name ("minidyn", or "DDB_ENDPOINT=<url>"). Without DDB_ENDPOINT it starts a
// fresh minidyn server that is closed when tb ends.
func Client(tb testing.TB) (*dynamodb.Client, string) {
	tb.Helper()
	if endpoint := Endpoint(); endpoint != "" {
		return newClient(endpoint), EndpointEnv + "=" + endpoint
	}
	srv := httptest.NewServer(server.NewServer())
	tb.Cleanup(srv.Close)
	return newClient(srv.URL), BackendMinidyn
}

// newClient returns a DynamoDB client for endpoint with static test
// credentials: emulators need a signature but check no secret.
func newClient(endpoint string) *dynamodb.Client {
	return dynamodb.New(dynamodb.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   loopback.NewHTTPClient(),
	})
}
