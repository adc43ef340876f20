// Package starter is the DLQ's event source function: for each message
// that lands in the dead-letter queue it starts one execution of the
// redrive state machine, named after the message's origin id and attempt
// (message.ExecutionName), with the execution Document as input.
//
// A message that comes back to the DLQ with its lineage starts the next
// attempt, with its history; with the sqs target that return is its
// consumer's failure, recorded on its breaker. What cannot be started is
// parked rather than dropped: a malformed lineage (poison) and a document
// too large for a Step Functions input (oversize). A duplicate delivery of
// the DLQ message finds its execution already there and is counted, not
// failed. A record whose start is throttled or fails is reported as a
// batch item failure and stays in the DLQ for the next batch, so the event
// source mapping must enable ReportBatchItemFailures.
package starter
