// Package tasks holds the Lambda side of Redrive: the handlers the state
// machines call, the delivery targets, and the pieces they share.
//
// The shared pieces, each its own package:
//
//   - message: the SQS message as received, the execution Document the state
//     machine passes from task to task, the lineage that travels with a
//     message across DLQ round trips, execution names and breaker keys.
//   - config: environment parsing that reports every bad variable at once,
//     and the breaker.Policy read from BREAKER_* variables.
//   - telemetry: JSON logs and CloudWatch embedded-metric-format lines,
//     including one log line and one metric per breaker state change.
//   - delivery: the ledger that makes a delivery idempotent per (origin id,
//     attempt, try), in the breaker's DynamoDB table.
//
// The handlers (starter, attempt, park, continuer, admin) and the targets
// (lambda, sqs) are built on these. assemble turns settings and clients into
// the five handlers, one way for the Lambda mains (under tasks/cmd), the
// local emulator and the in-process simulation.
package tasks
