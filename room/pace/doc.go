// Package pace paces the waiting room's release to what the target takes:
// a rate that starts small, doubles per tick while releases are used in
// full (slow start), then grows additively, and shrinks multiplicatively
// when the target throttles (breaker.Throttled outcomes). One controller
// per breaker key (package release; called "releaser" in the row's fields)
// holds a lease on the key's pace row while it runs; the row also notes
// when a message last entered the room, so that a controller never ends on
// a look at a room that may not show it yet.
package pace
