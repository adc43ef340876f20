// Package target delivers a redriven message to where it should have gone:
// the consumer Lambda function (invoked synchronously with a one-record SQS
// event, as its event source mapping would) or the source SQS queue.
//
// Every delivery ends in a Result: Success, Transient (the target is
// unhealthy; counts toward the breaker; retried later) or Poison (the
// message itself can never be delivered; parked for a person). The
// Classifier holds the rules; New picks the target from TARGET_KIND.
package target
