package loopback_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/smithy-go/middleware"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/loopback"
	"github.com/redrive/redrive/emulate/sqslocal"
	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

// TestLateBodyCheckDoesNotLoseTheResponse forces the race behind "use of
// closed network connection" on receives of a few KiB: net/http's last
// read of the request body (the check that nothing is left past
// Content-Length) is held back until the SDK has returned from Do and
// closed the body. The SDK's own client then fails the write with io.EOF
// and net/http closes the connection under the response; through
// DetachRequestBody the write succeeds and the receive returns every
// message.
func TestLateBodyCheckDoesNotLoseTheResponse(t *testing.T) {
	tests := []struct {
		name         string
		detach       bool
		wantWriteErr error
	}{
		{"the SDK's client fails the write (if not, smithy-go fixed it and DetachRequestBody can go)", false, io.EOF},
		{"DetachRequestBody keeps the connection", true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := sqstest.Start(t, sqslocal.Options{})
			q := sqstest.CreateQueue(t, b.Client, nil)
			const n, size = 10, 4 << 10 // a response well over net/http's 4 KiB read buffer
			for i := range n {
				_, err := b.Client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String(strings.Repeat(string(rune('a'+i)), size))})
				require.NoError(t, err)
			}

			late := &lateBodyCheck{next: awshttp.NewBuildableClient(), sdkDone: make(chan struct{})}
			var httpClient sqs.HTTPClient = late
			if tt.detach {
				httpClient = loopback.DetachRequestBody(late)
			}
			client := sqs.New(sqs.Options{
				Region:           sqstest.Region,
				BaseEndpoint:     aws.String(b.Endpoint),
				Credentials:      credentials.NewStaticCredentialsProvider("test", "test", ""),
				HTTPClient:       httpClient,
				RetryMaxAttempts: 1, // a lost response is an error, not a retry that finds the messages in flight
				APIOptions:       []func(*middleware.Stack) error{late.addMiddleware},
			})

			written := make(chan error, 1)
			ctx := httptrace.WithClientTrace(t.Context(), &httptrace.ClientTrace{
				WroteRequest: func(info httptrace.WroteRequestInfo) { written <- info.Err },
			})
			got, err := client.ReceiveMessage(ctx, &sqs.ReceiveMessageInput{QueueUrl: aws.String(q.URL), MaxNumberOfMessages: n})
			var writeErr error
			select {
			case writeErr = <-written:
			case <-time.After(time.Minute):
				t.Fatal("net/http did not finish writing the request") // a safety net, not a timing check
			}
			if tt.wantWriteErr != nil {
				// The read of the response then races net/http closing
				// the connection: it fails most of the time, not always.
				assert.ErrorIs(t, writeErr, tt.wantWriteErr, "net/http's write of the request, after smithy-go closed the body")
				return
			}
			require.NoError(t, writeErr, "net/http's write of the request")
			require.NoError(t, err)
			require.Len(t, got.Messages, n)
			for _, m := range got.Messages {
				assert.Len(t, aws.ToString(m.Body), size)
			}
		})
	}
}

// lateBodyCheck is an HTTP client that holds back every read of a request
// body past its Content-Length until the SDK has returned from Do (and
// closed the body), as a descheduled net/http write loop would.
type lateBodyCheck struct {
	next     sqs.HTTPClient
	sdkDone  chan struct{}
	doneOnce sync.Once
}

// Do sends r with its body held back past Content-Length.
func (c *lateBodyCheck) Do(r *http.Request) (*http.Response, error) {
	if r.Body != nil && r.ContentLength > 0 {
		r = r.WithContext(r.Context())
		r.Body = &heldBody{ReadCloser: r.Body, left: r.ContentLength, release: c.sdkDone}
	}
	return c.next.Do(r)
}

// addMiddleware releases the held reads once the SDK's HTTP handler (Do,
// then closing the request body) has returned, before the response is
// decoded.
func (c *lateBodyCheck) addMiddleware(stack *middleware.Stack) error {
	return stack.Deserialize.Add(middleware.DeserializeMiddlewareFunc("lateBodyCheck",
		func(ctx context.Context, in middleware.DeserializeInput, next middleware.DeserializeHandler) (middleware.DeserializeOutput, middleware.Metadata, error) {
			out, md, err := next.HandleDeserialize(ctx, in)
			c.doneOnce.Do(func() { close(c.sdkDone) })
			return out, md, err
		}), middleware.After)
}

// heldBody is a request body whose reads past the first left bytes wait
// for release. It forwards WriteTo, which net/http's last read uses when
// the body has it.
type heldBody struct {
	io.ReadCloser
	left    int64
	release <-chan struct{}
}

// Read reads from the body, waiting for release once left bytes are read.
func (b *heldBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		<-b.release
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// WriteTo writes the rest of the body to w, waiting for release if all of
// Content-Length was read already.
func (b *heldBody) WriteTo(w io.Writer) (int64, error) {
	if b.left <= 0 {
		<-b.release
	}
	if wt, ok := b.ReadCloser.(io.WriterTo); ok {
		return wt.WriteTo(w)
	}
	return io.Copy(w, struct{ io.Reader }{b.ReadCloser})
}

func TestDetachRequestBody(t *testing.T) {
	const body = `{"QueueUrl":"q"}`
	tests := []struct {
		name       string
		body       io.ReadCloser
		length     int64
		wantSame   bool   // the request reaches the next client unchanged
		wantErr    string // the request does not reach it
		wantClosed bool   // the original body was closed
	}{
		{name: "no body passes through", body: nil, wantSame: true},
		{name: "a stream of unknown length passes through", body: &closeRecorder{Reader: strings.NewReader("stream")}, length: -1, wantSame: true},
		{name: "a body is copied and the original closed", body: &closeRecorder{Reader: strings.NewReader(body)}, length: int64(len(body)), wantClosed: true},
		{name: "a body that fails to read is an error naming the request", body: &closeRecorder{Reader: io.MultiReader(strings.NewReader("x"), errReader{})}, length: int64(len(body)),
			wantErr: "loopback: read the body of POST http://sqs.test/: read failed", wantClosed: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := http.NewRequestWithContext(t.Context(), http.MethodPost, "http://sqs.test/", nil)
			require.NoError(t, err)
			r.Body, r.ContentLength = tt.body, tt.length
			next := &recordingClient{}

			resp, err := loopback.DetachRequestBody(next).Do(r)

			if rec, ok := tt.body.(*closeRecorder); ok {
				assert.Equal(t, tt.wantClosed, rec.closed, "the original body is closed")
			}
			if tt.wantErr != "" {
				assert.EqualError(t, err, tt.wantErr)
				assert.Nil(t, resp)
				assert.Nil(t, next.got, "the request is not sent")
				return
			}
			require.NoError(t, err)
			assert.Same(t, next.resp, resp)
			require.NotNil(t, next.got)
			if tt.wantSame {
				assert.Same(t, r, next.got)
				return
			}
			assert.NotSame(t, r, next.got)
			assert.Equal(t, r.Method+" "+r.URL.String(), next.got.Method+" "+next.got.URL.String())
			assert.Equal(t, tt.length, next.got.ContentLength)
			assert.Equal(t, body, readAll(t, next.got.Body), "the copy reads in full with the original closed")
			extra, err := io.Copy(io.Discard, next.got.Body)
			assert.NoError(t, err, "net/http's read past Content-Length finds the end, not an error")
			assert.Zero(t, extra)
			require.NotNil(t, next.got.GetBody)
			again, err := next.got.GetBody()
			require.NoError(t, err)
			assert.Equal(t, body, readAll(t, again), "GetBody rewinds")
		})
	}
}

// recordingClient is a hand-written HTTP client that remembers the
// request it was sent and answers 200.
type recordingClient struct {
	got  *http.Request
	resp *http.Response
}

// Do records r and answers with an empty 200.
func (c *recordingClient) Do(r *http.Request) (*http.Response, error) {
	c.got = r
	c.resp = &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}
	return c.resp, nil
}

// closeRecorder is a request body that remembers being closed.
type closeRecorder struct {
	io.Reader
	closed bool
}

// Close marks the body closed.
func (c *closeRecorder) Close() error {
	c.closed = true
	return nil
}

// errReader fails every read.
type errReader struct{}

// Read fails.
func (errReader) Read([]byte) (int, error) { return 0, errors.New("read failed") }

// readAll reads r to the end.
func readAll(t *testing.T, r io.Reader) string {
	t.Helper()
	b, err := io.ReadAll(r)
	require.NoError(t, err)
	return string(b)
}
