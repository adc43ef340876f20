// Package pace paces the waiting room's release to what the target takes:
// a rate that starts small, doubles per tick while releases are used in
// full (slow start), then grows additively, and shrinks multiplicatively
// when the target throttles (breaker.Throttled outcomes). One releaser per
// breaker key holds a lease on the key's pace row while it runs.
package pace
