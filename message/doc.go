// Package message is the data Redrive passes around: the SQS message as
// received (Message), the execution Document the state machine hands from
// task to task, the Lineage that travels with a message across DLQ round
// trips, execution names, and the breaker key a message belongs to.
//
// It is pure: no I/O, no clock. Conversions to and from aws-lambda-go's
// events.SQSMessage and the SQS SDK's types are here so that every task
// speaks the same shape.
//
// Lineage travels in the message attribute "redrive". SQS allows 10 message
// attributes; a message that already uses 10 is wrapped in an envelope body
// instead (WithLineage), which Unwrap reverses, so nothing is ever dropped.
package message
