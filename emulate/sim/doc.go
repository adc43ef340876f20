// Package sim is the local simulation behind `redrive run`: one scenario
// (messages dead-lettered over time, a consumer with a capacity and a
// health timeline, poison, tenants, the breaker policy) played by three
// strategies on the same virtual timeline and the same simulated consumer
// (emulate/simtarget):
//
//   - Redrive: the real orchestrator assembled in process by
//     emulate/local (real ASL on the local executor, real handlers,
//     embedded DynamoDB and SQS);
//   - naive: a per-message exponential-backoff redrive with no breaker, a
//     Step Functions workflow whose Task invokes the consumer with a Retry
//     (the usual first attempt at automating a DLQ);
//   - bulk: SQS's own redrive, a fixed-rate move of the DLQ back to the
//     source queue on a schedule, with the consumer's maxReceiveCount
//     sending failures back to the DLQ.
//
// Each run is measured the same way (Metrics: amplification, recovery
// latency, drain time against the physical limit, peak call rate, cost per
// million messages, and where every message ended up), summed up as
// Summary, which is printed as a table (WriteTable), written as JSON
// (WriteJSON), and drawn with charts over time in a self-contained HTML
// report (WriteHTML).
package sim
