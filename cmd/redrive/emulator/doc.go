// Package emulator serves the whole orchestrator on local ports, in real
// time, for `redrive local` and the Step Functions Local suite
// (test/sfnlocal):
//
//   - the Lambda Invoke API for the real handlers (starter, attempt, park,
//     continuer, admin, waitroom, release) and a simulated consumer
//     (internal/simtarget), so
//     Step Functions Local's LAMBDA_ENDPOINT, the AWS CLI and the SDK can
//     invoke them;
//   - Step Functions: the project's executor on the scaled clock behind its
//     Step Functions API, or an external endpoint (Step Functions Local);
//     the redrive, admin and release state machines are created from the
//     rendered ASL;
//   - DynamoDB: minidyn, or an external endpoint, with the table created
//     from dynamostore's schema;
//   - SQS: the embedded sqslocal server with the DLQ, the parking lot and
//     the source queue, and an emulation of the DLQ's event source that
//     long-polls the DLQ and invokes the starter, so a message sent to the
//     DLQ from anywhere starts an execution.
//
// Every call between the parts goes over HTTP with the real SDK clients,
// as in AWS: the executor invokes the handlers through the Lambda server,
// the starter and the continuer call the Step Functions endpoint, the
// attempt's lambda target invokes the consumer through the Lambda server.
//
// # Time
//
// With TimeScale s, one clock.Scaled (Emulator.Clock) runs s times faster
// than the wall clock from the moment Start was called: now = start + s ×
// (wall time since start). It is the handlers' clock (the breaker's, the
// delivery ledger's, the consumer's) and the executor's: Waits, Retry
// intervals and timeouts take 1/s of their time (Step Functions Local:
// WAIT_TIME_SCALE = 1/s multiplies them), and history timestamps read the
// same clock as the handlers. A cooldown of C seconds the breaker computes
// becomes a Wait of C seconds, which takes C/s seconds of wall time, during
// which the breaker's clock advances exactly C: the Attempt after the Wait
// finds the cooldown over, as it does in AWS at s = 1. SQS runs on the
// wall clock: the DLQ's visibility timeout is wall time.
package emulator
