// Package breakertest holds reusable checks of a breaker.Breaker under
// concurrency, so every Store (the in-memory one, DynamoDB through minidyn
// or dynalite) is held to the same invariants: no lost update, versions
// that increase by one per write, no write while an OPEN breaker's callers
// queue and one probe per cooldown, never more canaries than permits.
package breakertest
