// Package waitroom is the WaitingRoom task's Lambda handler: the redrive
// state machine invokes it with .waitForTaskToken when the breaker turns a
// message away, and it stores the token in the room (package room), where
// the releaser (package release) finds it.
package waitroom
