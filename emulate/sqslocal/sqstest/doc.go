// Package sqstest gives tests a real SQS-compatible endpoint and an
// aws-sdk-go-v2 client talking to it over HTTP.
//
// By default Start runs an sqslocal server on a loopback httptest server,
// so `go test` needs nothing installed, and hands back the server for
// inspection. When SQS_ENDPOINT is set (scripts/with-fauxqs.sh sets it for
// fauxqs) the client talks to that endpoint instead and the same tests run
// against it; Backend.Server is then nil and tests that need the
// in-process server skip. Serve puts a server made otherwise (a restored
// one, say) behind a loopback endpoint. CreateQueue gives each test its
// own uniquely named queue and deletes it when the test ends. Clock is a
// manual clock whose Now and After drive an sqslocal server's time.
// NewClient's HTTP client goes through DetachRequestBody, which keeps
// smithy-go from closing a request body net/http is still checking: on
// loopback that race loses responses over 4 KiB ("use of closed network
// connection").
package sqstest
