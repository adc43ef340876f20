// Package claimcheck keeps the bodies too large for a document in S3: a
// document whose body would not fit an execution input or a room item
// carries a reference to the body (message.BodyRef) instead, and the body
// is fetched back, byte for byte and checked against its SHA-256, where it
// is needed: before the consumer is called, and before the message is
// parked. So every message SQS can hold (1 MiB) is redriven.
package claimcheck
