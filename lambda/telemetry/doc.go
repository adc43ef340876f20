// Package telemetry is how the tasks report: JSON logs through log/slog, and
// CloudWatch embedded-metric-format (EMF) lines, one JSON object per line on
// stdout, which CloudWatch Logs turns into metrics without an API call.
//
// Every metric is in the namespace "Redrive" with the one dimension
// "Breaker" (the breaker key), so a dashboard shows each breaker's counts
// and state. Metrics.OnTransition is the breaker's observer
// (breaker.Options.Observer): one log line and one metric line per state change.
//
// A log line has one time, "timestamp", on the stack's clock: the wall
// clock in AWS, the local stack's own clock there (JSONLoggerOn).
package telemetry
