// Package test holds the end-to-end scenarios: the real state machines on
// the local executor, the real Lambda handlers in process, DynamoDB
// (minidyn, or DDB_ENDPOINT), the embedded SQS server and the simulated
// consumer, all on virtual time (see emulate/local). Each scenario
// checks that no message is lost and none is delivered twice. The waiting
// room's release is checked under faults: racing releasers, a releaser
// that dies mid-release, tokens of timed-out executions, a re-trip during
// a release, a forced-open hold, a reset (release_test.go).
package test
