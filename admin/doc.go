// Package admin is the Lambda handler behind the admin state machine: an
// operator starts an execution from the Step Functions console (or the CLI)
// with
//
//	{"command": "open", "breaker": "orders", "reason": "downstream maintenance",
//	 "until": "2026-01-02T15:04:05Z", "actor": "alice"}
//
// and the handler applies it to the breaker row and returns the row's
// summary before and after.
//
// Commands: status (read only), reset (CLOSED with an empty window), open
// and close (FORCED_OPEN / FORCED_CLOSED, optionally until a time), release
// (end a forced mode; a no-op otherwise, so a retried execution is
// harmless).
//
// Rule commands manage the routing rules (rules): rule-add with a
// "rule" object, rule-list, and rule-remove with the rule's "id"; they
// take no breaker. Removing a hold resumes the messages it held.
//
// Rules, each broken one reported by name in an *InvalidCommand:
//   - command and breaker are required; unknown request fields are refused
//     (a mistyped "until" must not hold a breaker open for good).
//   - reason is required for every command that changes the breaker: it is
//     stored on the row beside the actor, for the audit trail.
//   - until is an RFC 3339 time in the future, or a positive duration
//     from when the command runs ("30m"), only for open, close and
//     rule-add.
//   - actor defaults to "execution:<execution name>".
//
// A command that keeps losing the conditional write returns a
// *retryable.BreakerContention, which the state machine retries.
package admin
