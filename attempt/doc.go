// Package attempt is the Lambda handler behind the redrive state machine's
// Attempt state: one invocation admits a message by its breaker, delivers
// it to the target under the delivery ledger, records the outcome, and
// tells the state machine where to go next (Document.Next).
//
// Per invocation, with the execution Document as input:
//
//  1. A document that does not parse or validate fails with
//     *InvalidDocument naming the field (not retried; parked).
//  2. Cycles counts Attempt invocations in this execution; past
//     Config.MaxCycles the answer is CONTINUE, before anything else, so the
//     execution's history stays far below its limit.
//  3. A delivery record for this try that is COMPLETED means an earlier
//     invocation delivered and then failed (say, recording the outcome
//     lost every conditional write): its outcome is recorded under its
//     ticket, and the target is not called again. One that is IN_PROGRESS
//     under a live lease is *DeliveryInProgress (retried).
//  4. Otherwise the breaker decides: WAIT returns WAIT for the breaker's
//     wait; PROCEED and CANARY take the delivery record, deliver, and store
//     the outcome on the record.
//  5. The outcome is recorded under the admission ticket; a breaker row
//     that keeps losing the conditional write is
//     *retryable.BreakerContention (retried: step 3 skips re-delivery).
//  6. SUCCESS is DONE. POISON is PARK at once ("poison: ..."). TRANSIENT is
//     PARK once MaxAttempts tries failed ("exhausted: ..."), else WAIT with
//     the per-message backoff (see Config). Every failure is appended to
//     the document's capped history.
//
// The document's decision, outcome and breakerState fields show each
// cycle in the console. Errors meant for the state machine's Retry and
// Catch are returned unwrapped (Errors lists them); any other error is
// wrapped with what was being done.
package attempt
