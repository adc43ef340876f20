// Package stack is the Redrive CDK stack: the table (breaker rows, delivery
// records, the waiting room and its index, pace rows), the parking lot, the
// six Go Lambda functions from `make build`, the starter's event source
// on the dead-letter queue, the redrive (attempt: one execution per
// delivery try, Express by default), release (the breakers' controllers)
// and admin state machines from the embedded ASL, least-privilege IAM,
// alarms and a dashboard.
//
// NewRedriveStack validates its Props first and returns every problem,
// each naming the field, before it creates anything; the breaker policy is
// checked by the same parser the Lambda functions use at cold start
// (lambda/config), so a policy that synthesizes is one the tasks accept.
package stack
