// Package attempt is the Lambda handler behind the attempt state machine's
// Attempt state (an Express execution per delivery try): one invocation
// admits a message by its breaker, delivers it to the target under the
// delivery ledger, records the outcome, and tells the state machine where
// to go next (Document.Next).
//
// Per invocation, with the execution Document as input:
//
//  1. A document that does not parse or validate fails with
//     *InvalidDocument naming the field (not retried; parked).
//  2. The routing rules apply first: a quarantine parks; a hold sends the
//     document to the room, looked at again every minute; a delay waits.
//  3. A delivery record for this try that is COMPLETED means an earlier
//     invocation delivered and then failed (say, recording the outcome
//     lost every conditional write): its outcome is recorded under its
//     ticket, and the target is not called again. One that is IN_PROGRESS
//     under a live lease (a duplicate Express execution) sends the
//     document to the room until the lease ends.
//  4. Otherwise the breaker decides: QUEUE (not CLOSED, no permit, paced
//     or throttled) sends the document to the room; PROCEED and CANARY
//     take the delivery record, deliver, and store the outcome on the
//     record.
//  5. The outcome is recorded under the admission ticket; a breaker row
//     that keeps losing the conditional write is
//     *retryable.BreakerContention (retried: step 3 skips re-delivery).
//  6. SUCCESS is DONE. POISON is PARK at once ("poison: ..."). TRANSIENT is
//     PARK once MaxAttempts tries failed ("exhausted: ..."), else a wait
//     with the per-message backoff (see Config). Every failure is appended
//     to the document's capped history.
//
// A wait is the execution's own (WAIT, the Backoff state) only when it is
// short and the execution young (MaxInlineWait, InlineCycles); any other
// is the document's, in the room (ROOM with NotBefore), so no execution
// waits out an outage or a long backoff and every Express execution ends
// far within its five minutes.
//
// The document's decision, outcome and breakerState fields show each
// cycle in the logs. Errors meant for the state machine's Retry and Catch
// are returned unwrapped (Errors lists them); any other error is wrapped
// with what was being done.
package attempt
