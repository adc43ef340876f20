// Package localrun assembles the whole orchestrator in one process, on the
// local executor's virtual clock, for `redrive run` and the scenario tests:
//
//   - the local Step Functions executor, with the redrive and admin state
//     machines created from the rendered ASL through the Step Functions API
//     facade and the real sfn client;
//   - DynamoDB: minidyn in process, or the endpoint in DDB_ENDPOINT, with
//     the table created from dynamostore's schema;
//   - SQS: the embedded sqslocal server (DLQ, parking lot, source queue) on
//     the executor's clock;
//   - the real Lambda handlers (starter, attempt, park, continuer, admin)
//     and the simulated consumer (simtarget), hosted in a local.Registry
//     under their function names; the attempt's lambda target invokes the
//     consumer with the real lambda client through the Lambda Invoke API
//     server (or, when Options say so, the Registry directly);
//   - an emulation of Lambda's SQS event source mapping on the DLQ.
//
// Every clock (breaker, delivery ledger, handlers, SQS) is the executor's,
// so an hour-long outage runs in a fraction of a second of wall time, and
// with Workers 1 a Seed replays identically.
package localrun
