package local

import (
	"net/http"
	"net/http/httptest"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/redrive/redrive/emulate/loopback"
)

// endpoint makes h reachable by the stack's clients: in process by
// default, or, with Options.Serve, on a socket at addr (what names the API
// in errors). It returns the URL the clients use and their HTTP client;
// Close stops a server it started.
func (s *Stack) endpoint(what, host, addr string, h http.Handler) (string, aws.HTTPClient, error) {
	if s.opts.Serve == nil {
		return "http://" + host + ".local", inProcess(h), nil
	}
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	srv, err := listen(what, addr, h)
	if err != nil {
		return "", nil, err
	}
	s.servers = append(s.servers, srv)
	return srv.URL, loopback.NewHTTPClient(), nil
}

// inProcess is an HTTP client whose requests h serves in process (see
// handlerTransport): the SDK clients' requests and the servers' responses
// are the real wire format, without sockets.
func inProcess(h http.Handler) *http.Client {
	return &http.Client{Transport: handlerTransport{h: h}}
}

// handlerTransport is an http.RoundTripper that serves each request with
// an http.Handler on the caller's goroutine, in the caller's context. For
// the Lambda Invoke API this is what keeps the consumer inside the attempt
// handler's invocation, so its executor.Delay is executor time, not wall
// time, which a socket would lose; for the other servers it saves the
// loopback round trips.
type handlerTransport struct {
	h http.Handler
}

// RoundTrip serves req and returns the recorded response.
func (t handlerTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	in := req.Clone(req.Context()) // a mux sets path values on the request it serves
	in.RequestURI = req.URL.RequestURI()
	if in.Host == "" {
		in.Host = req.URL.Host
	}
	if in.Body == nil {
		in.Body = http.NoBody
	}
	if in.ContentLength > 0 && in.Header.Get("Content-Length") == "" {
		// On the wire the client writes the length as a header, which a
		// server may read (S3's PutObject does).
		in.Header.Set("Content-Length", strconv.FormatInt(in.ContentLength, 10))
	}
	rec := httptest.NewRecorder()
	t.h.ServeHTTP(rec, in)
	if err := req.Context().Err(); err != nil {
		return nil, err // the caller stopped waiting, as a client past its deadline does
	}
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}
