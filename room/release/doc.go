// Package release is each breaker's controller: the controller state
// machine's task (Standard, one execution per breaker key while its room
// holds messages), which waits out the breaker's cooldowns, releases the
// probe and the canaries, and then releases the room in line at the pace
// the target takes (package pace), one Express execution of the attempt
// state machine per message; and the Launcher that starts one controller
// per breaker key when none runs.
package release
