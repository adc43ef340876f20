package loopback

import (
	"bytes"
	"fmt"
	"io"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
)

// HTTPClient is the HTTP client every aws-sdk-go-v2 service client takes.
type HTTPClient interface {
	Do(*http.Request) (*http.Response, error)
}

// maxConns keeps connections reusable when many tests call at once.
const maxConns = 128

// NewHTTPClient returns the HTTP client for SDK clients of a server on
// loopback (the project's embedded servers, dynalite, fauxqs, Step
// Functions Local): the SDK's own client with room for many idle
// connections, its request bodies detached (DetachRequestBody).
func NewHTTPClient() HTTPClient {
	return DetachRequestBody(awshttp.NewBuildableClient().WithTransportOptions(func(t *http.Transport) {
		t.MaxIdleConns = maxConns
		t.MaxIdleConnsPerHost = maxConns
	}))
}

// DetachRequestBody wraps next so that net/http writes its own in-memory
// copy of each request body, one the SDK cannot close under it.
//
// smithy-go closes the request body as soon as Do returns, that is once
// the response headers are in. net/http may not have finished with the
// body by then: after writing Content-Length bytes straight to the socket
// it reads the body once more to check nothing is left, and smithy-go's
// closed body answers that read with io.EOF. net/http takes that as a
// failed write and closes the connection, under the response body the SDK
// is still reading ("use of closed network connection"). On loopback a
// server answers fast enough for this to happen now and then, most under
// -race; a response over net/http's 4 KiB read buffer then fails, the SDK
// retries, and a retried ReceiveMessage finds its messages in flight.
// (aws/aws-sdk-go-v2#1825 and #2737; the SDK only made the error
// retryable.)
//
// Requests without a body, or with a body of unknown length (a stream),
// pass through unchanged.
func DetachRequestBody(next HTTPClient) HTTPClient {
	return detachedBody{next: next}
}

// detachedBody is the client DetachRequestBody returns.
type detachedBody struct {
	next HTTPClient
}

// Do sends a shallow copy of r whose body is a copy of r's, read in full
// first; r's own body is closed, as Do must.
func (c detachedBody) Do(r *http.Request) (*http.Response, error) {
	if r.Body == nil || r.ContentLength <= 0 {
		return c.next.Do(r)
	}
	body, err := io.ReadAll(r.Body)
	_ = r.Body.Close()
	if err != nil {
		return nil, fmt.Errorf("loopback: read the body of %s %s: %w", r.Method, r.URL, err)
	}
	own := r.WithContext(r.Context())
	own.Body = io.NopCloser(bytes.NewReader(body))
	// net/http rewinds with GetBody to resend on a kept-alive connection
	// the server had closed.
	own.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
	return c.next.Do(own)
}
