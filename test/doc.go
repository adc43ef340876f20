// Package test holds the end-to-end scenarios: the real state machines on
// the local executor (the attempt machine Express, as deployed, or
// Standard where a scenario reads its histories), the real Lambda
// handlers in process, DynamoDB (minidyn, or DDB_ENDPOINT), the embedded
// SQS server and the simulated consumer, all on virtual time (see
// emulate/local). Each scenario checks that no message is lost and none
// is delivered twice. The waiting room and its controller are checked
// under faults: racing controllers on one room, a controller that dies
// mid-release (its claims expire), starts that fail, a re-trip during a
// release, a forced-open hold, a reset, a failing release function, a
// stopped controller restarted by the next entry (release_test.go); a
// long outage in which no execution waits (longoutage_test.go).
package test
