package sqstest

import (
	"net/http/httptest"
	"os"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"

	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/emulate/sqslocal"
)

// EndpointEnv names the environment variable that points the tests at an
// external SQS-compatible endpoint (e.g. http://127.0.0.1:4566).
const EndpointEnv = "SQS_ENDPOINT"

// BackendSQSLocal is the backend name for the embedded server.
const BackendSQSLocal = "sqslocal"

// Region is the region the test clients sign for; emulators accept any.
const Region = "us-east-1"

// Backend is an SQS endpoint for one test.
type Backend struct {
	// Client is an SQS client for the endpoint.
	Client *sqs.Client
	// Name is "sqslocal" or "SQS_ENDPOINT=<url>", for logs.
	Name string
	// Endpoint is the endpoint's base URL.
	Endpoint string
	// Server is the embedded server, or nil on an external endpoint.
	Server *sqslocal.Server
}

// Start returns the backend for tb: an external endpoint when SQS_ENDPOINT
// is set (opts are then unused), else a fresh sqslocal server with opts on
// a loopback httptest server, stopped when tb ends. Invalid opts stop the
// test.
func Start(tb testing.TB, opts sqslocal.Options) *Backend {
	tb.Helper()
	if endpoint := os.Getenv(EndpointEnv); endpoint != "" {
		return &Backend{Client: NewClient(endpoint), Name: EndpointEnv + "=" + endpoint, Endpoint: endpoint}
	}
	srv, err := sqslocal.NewServer(opts)
	if err != nil {
		tb.Fatalf("sqstest: %v", err)
	}
	return Serve(tb, srv)
}

// Serve returns the backend of srv, an sqslocal server (a restored one,
// say), on a loopback httptest server; both stop when tb ends.
func Serve(tb testing.TB, srv *sqslocal.Server) *Backend {
	hs := httptest.NewServer(srv)
	// Cleanups run last-in first-out: end long polls first, so closing the
	// httptest server does not wait for them.
	tb.Cleanup(hs.Close)
	tb.Cleanup(srv.Close)
	return &Backend{Client: NewClient(hs.URL), Name: BackendSQSLocal, Endpoint: hs.URL, Server: srv}
}

// Client returns an SQS client for the test endpoint and the backend's
// name, like ddbtest.Client: SQS_ENDPOINT when set, else a fresh sqslocal
// server with default options.
func Client(tb testing.TB) (*sqs.Client, string) {
	tb.Helper()
	b := Start(tb, sqslocal.Options{})
	return b.Client, b.Name
}

// NewClient returns an SQS client for endpoint with static test
// credentials (emulators need a signature but check no secret) whose
// HTTP client is loopback.NewHTTPClient, so a fast loopback server cannot
// make it lose a response.
func NewClient(endpoint string) *sqs.Client {
	return sqs.New(sqs.Options{
		Region:       Region,
		BaseEndpoint: aws.String(endpoint),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		HTTPClient:   loopback.NewHTTPClient(),
	})
}
