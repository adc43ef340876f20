// Package park is the parking lot: where a message goes when it will not be
// redriven (poison, attempts exhausted, a task that failed for good, or a
// message the starter cannot run), for a person to look at and move back
// later with SQS's own redrive.
//
// The parked message is the original: body unchanged and the sender's
// message attributes, plus a Record in the "redrive" attribute with the
// lineage, the failure history and why it was parked. A Record is a
// superset of message.Lineage, so a parked message moved back to its source
// queue keeps its origin id and attempt count if it fails again. A message
// that already uses all 10 attributes SQS allows is wrapped in the message
// package's envelope instead.
//
// Lot sends to the parking-lot queue and is shared by the Park task
// (Handler) and the starter, which parks what it cannot start. With an
// Index (TABLE_NAME set), it also records each parked message in the
// parking lot's index (package lotindex), which `redrive parked` reads; a
// failure to do so never fails the park. The index keys a message by its
// origin id, attempt and message tag (Record.Key): the second copy a
// retried park sends is the same message there, and a replay sends one
// copy back.
package park
