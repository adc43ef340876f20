// Package room is the waiting room: the task tokens of executions that the
// breaker turned away, stored under their breaker key in the breaker table
// (in line through the sparse index "room": by when each message arrived
// or last failed a try), and their release: a
// token leaves the room by a conditional delete before SendTaskSuccess, so
// two releasers never release one message twice.
package room
