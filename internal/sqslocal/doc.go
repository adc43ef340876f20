// Package sqslocal is an in-process Amazon SQS server for local runs and
// tests: an http.Handler that speaks the SQS AWS JSON 1.0 protocol, so the
// real aws-sdk-go-v2 sqs client talks to it unchanged.
//
// It implements standard queues with SQS's documented semantics: queue and
// message attribute validation, visibility timeouts, delays, retention,
// long polling, receipt handles, redrive to a dead-letter queue after
// maxReceiveCount receives, the body and message-attribute MD5 digests the
// SDKs verify, batch calls with per-entry failures, and errors in the JSON
// protocol's shape (the __type body plus the x-amzn-query-error header the
// SDK maps to typed errors such as *types.QueueDoesNotExist).
//
// Time comes from an injected clock (Options.Now and Options.After), so a
// virtual-time simulation drives visibility timeouts, delays and long polls
// without waiting. Messages and Depth let tests and the simulation inspect
// a queue without receiving from it.
//
// Where the behaviour is not obvious, it follows the AWS documentation:
// the maximum message size is 1 MiB (raised from 256 KiB in 2025; see
// Options.MaxMessageSize), a message moves to the dead-letter queue when a
// receive finds it already received maxReceiveCount times, a stale receipt
// handle makes DeleteMessage succeed without deleting, PurgeQueue may run
// once a minute per queue, and a deleted queue's name is reusable after 60
// seconds. FIFO queues and the permission, tag and message-move actions are
// not implemented; they fail with UnsupportedOperation.
//
// The package's tests run against fauxqs too (make test-fauxqs); FAUXQS.md
// lists where fauxqs departs from the AWS documentation.
package sqslocal
