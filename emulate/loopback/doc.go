// Package loopback makes the HTTP client for aws-sdk-go-v2 service clients
// that talk to a server on this machine: the project's embedded servers
// (minidyn, sqslocal, the executor's Step Functions and Lambda APIs) and the
// npm emulators, where a server can answer before net/http has finished
// writing the request (see DetachRequestBody).
package loopback
