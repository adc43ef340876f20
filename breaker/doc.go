// Package breaker is a distributed circuit breaker whose state lives in one
// row per breaker key, changed only by conditional writes on a version.
//
// The core is pure: decisions (Decide) and transitions (Observe,
// ApplyCommand) take the current Row, the Policy, the time and randomness,
// and return the next Row and whether it changed. Breaker combines them with
// a Store into load, decide, conditional write and retry on conflict; each
// call reads the row once and writes it only when it changed. The DynamoDB
// Store lives in the dynamo subpackage, an in-memory one is MemStore,
// and breakertest holds the concurrency checks every Store must pass.
//
// States: CLOSED admits every call (but queues callers for ThrottlePause
// after the target throttled one); OPEN queues every caller in the waiting
// room until its cooldown ends, then admits one probe (the breaker's
// controller waits the cooldown out and releases it); HALF_OPEN admits up to
// Policy.HalfOpenPermits canaries, each holding a lease that expires;
// FORCED_OPEN and FORCED_CLOSED are set by an operator, optionally until a
// time.
package breaker
