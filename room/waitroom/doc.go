// Package waitroom is the Queue task's Lambda handler: the attempt state
// machine invokes it when a message is to wait (its breaker turned it
// away, it is paced out, or its backoff or a rule's delay is longer than a
// delivery try may last), and it stores the message's document in its
// breaker's room (package room), then makes sure the breaker's controller
// (package release) runs to release it. The execution then ends: no
// execution waits.
package waitroom
