// Package local is the one local stack: the whole orchestrator
// assembled in one process, for `redrive run`, `redrive local`, the
// scenario tests and the Step Functions Local suite.
//
//   - the local Step Functions executor, with the redrive, admin and
//     release state machines created from the rendered ASL through the
//     Step Functions API facade and the real sfn client (or on Step
//     Functions Local, Options.StepFunctionsEndpoint);
//   - DynamoDB: minidyn behind emulate/ddbserver, or an external endpoint
//     (Options.DynamoDBEndpoint), with the table created from
//     dynamo's schema;
//   - SQS: the embedded sqslocal server (DLQ, parking lot, source queue);
//   - the real Lambda handlers and the simulated consumer (simtarget),
//     hosted in an executor.Registry under their function names, built from
//     their settings as the Lambda mains build them; the attempt's lambda
//     target invokes the consumer with the real lambda client through the
//     Lambda Invoke API server (or, when Options say so, the Registry);
//   - an emulation of Lambda's SQS event source mapping on the DLQ.
//
// Options choose how it runs. The clock: virtual by default (an
// hour-long outage runs in a fraction of a second, and with Workers 1 a
// Seed replays identically), or a scaled wall clock (Options.Scaled) for a
// long-running service. The transport: in process by default, or sockets
// (Options.Serve) that the AWS CLI and the SDKs reach. The event source
// follows the clock: woken on the executor's timeline, or long-polling.
// Every clock (breaker, delivery ledger, handlers, SQS, histories) is the
// executor's, whichever it is.
package local
