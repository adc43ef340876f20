// Package quota models the AWS account quotas a Redrive deployment meets,
// so that a local run meets them too: token buckets for the API calls
// that are rate-limited (Step Functions StartExecution, Standard and
// Express apart, state transitions, SendTask*), limits on what is open at
// once (Standard executions, Lambda concurrency) and DynamoDB's
// throughput per partition. An Account holds one account's buckets on a
// clock, says whether a call is within them, and counts the peak use of
// each quota and the calls it throttled, for `redrive run` to report.
//
// The figures are the documented defaults (Profiles): Standard for most
// Regions, Large for the largest (us-east-1, us-west-2, eu-west-1).
package quota
