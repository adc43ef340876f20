// Package rules is the operators' routing rules: a rule matches messages
// by their breaker key, a message attribute or a field of the body, and
// quarantines them (parked at once), holds them (they wait apart until the
// rule ends or is removed) or delays them (a minimum time between their
// tries). Rules are changed through the admin state machine, stored as one
// item of the breaker table (so every change is one conditional write that
// also appends to the audit trail), and read by the starter and the
// Attempt through a Cache, so a change applies within CacheTTL and with no
// deploy.
package rules
