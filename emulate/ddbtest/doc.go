// Package ddbtest gives tests a real DynamoDB-compatible endpoint and an
// aws-sdk-go-v2 client talking to it over HTTP.
//
// By default every Client call starts minidyn (github.com/truora/minidyn) on a
// loopback httptest server, so `go test` needs nothing installed. When
// DDB_ENDPOINT is set (scripts/with-dynalite.sh sets it for dynalite; it may
// also point at DynamoDB Local) the client talks to that endpoint instead and
// the same tests run against it. CreateTable gives each test its own uniquely
// named table and deletes it when the test ends.
package ddbtest
