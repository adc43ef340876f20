// Package room is the waiting room: the task tokens of executions that the
// breaker turned away, stored under their breaker key in the breaker table
// (in line through the sparse index "room": by when each message arrived
// or last failed a try), their release (SendTaskSuccess, then a
// conditional delete on the token, so a releaser that dies between the two
// loses nothing), and the room's watch: one message at a time whose stay
// is short, so a room whose releases stopped is noticed.
package room
