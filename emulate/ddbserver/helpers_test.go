package ddbserver_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/clock"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/emulate/ddbserver"
)

// table is the table the tests create with dynamo's schema.
const table = "redrive"

// env is one test's handler behind an HTTP server, and an SDK client for it.
type env struct {
	t       *testing.T
	url     string
	client  *dynamodb.Client
	handler *ddbserver.Handler
}

// newEnv serves a new handler for t, without TTL expiry.
func newEnv(t *testing.T) *env { return newEnvAt(t, nil) }

// newEnvAt serves a new handler for t on clk.
func newEnvAt(t *testing.T, clk clock.Clock) *env {
	t.Helper()
	h := ddbserver.New(clk)
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return &env{t: t, url: srv.URL, handler: h, client: dynamodb.New(dynamodb.Options{
		Region:       "us-east-1",
		BaseEndpoint: aws.String(srv.URL),
		Credentials:  credentials.NewStaticCredentialsProvider("test", "test", ""),
		Retryer:      aws.NopRetryer{},
	})}
}

// createTable creates name with dynamo.CreateTable, as the stacks do.
func (e *env) createTable(name string) {
	e.t.Helper()
	require.NoError(e.t, dynamo.CreateTable(e.t.Context(), e.client, name))
}

// put writes an item with partition key pk and the string attributes
// attrs (name, value, name, value...).
func (e *env) put(pk string, attrs ...string) {
	e.t.Helper()
	item := map[string]types.AttributeValue{"pk": &types.AttributeValueMemberS{Value: pk}}
	for i := 0; i < len(attrs); i += 2 {
		item[attrs[i]] = &types.AttributeValueMemberS{Value: attrs[i+1]}
	}
	_, err := e.client.PutItem(e.t.Context(), &dynamodb.PutItemInput{TableName: aws.String(table), Item: item})
	require.NoError(e.t, err)
}

// reply is a raw answer of the handler.
type reply struct {
	status int
	header http.Header
	body   map[string]any
}

// post sends body to the handler as method, with X-Amz-Target target, and
// decodes the JSON answer.
func (e *env) post(method, target, body string) reply {
	e.t.Helper()
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.url, strings.NewReader(body))
	require.NoError(e.t, err)
	if target != "" {
		req.Header.Set("X-Amz-Target", target)
	}
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	r := reply{status: resp.StatusCode, header: resp.Header}
	require.NoError(e.t, json.Unmarshal(raw, &r.body), "body %s", raw)
	return r
}

// call posts body to the operation op with POST.
func (e *env) call(op, body string) reply {
	e.t.Helper()
	return e.post(http.MethodPost, "DynamoDB_20120810."+op, body)
}
