// Package simtarget is a simulated consumer Lambda for local runs and
// scenario tests: a handler of SQS events, hosted in an executor.Registry, whose
// behaviour follows the executor's virtual clock.
//
// It has a capacity (invocations per virtual second; the ones beyond it
// fail with *Throttled, so overload is visible), a health schedule
// (healthy, down, or degraded with a seeded error rate), a latency spent
// through executor.Delay, and predicates that make some messages poison
// (*PoisonMessage) or always fail (*Rejected). Every invocation is written
// to a ledger: when it came, the target's health then, and per record the
// message's origin id (from its redrive lineage) and what happened, so
// tests can count deliveries per message, calls that reached a down
// target (amplification) and the peak call rate. A long simulation hands
// every call to a tally of its own instead (Options.Tally), so that its
// memory does not grow with the calls.
//
// A failure of a one-record event is a function error whose errorType is
// the error's type name, as Lambda reports it; in a larger batch failed
// records are listed in batchItemFailures, as a consumer with
// ReportBatchItemFailures does.
package simtarget
