// Package replay sends parked messages back into redrive after a fix: only
// the ones a Filter selects (breaker key, reason class, error type of the
// last failure, parked time, a field of the body), at a bounded rate, with
// their lineage marked as replayed, and every replay recorded.
//
// A replay scans the parking-lot queue with ReceiveMessage. Each message
// it sees stays hidden (its visibility timeout is extended while the scan
// runs) until the scan ends, so the scan sees every message once and ends
// when a receive comes back empty; then the messages it did not move are
// made visible again at once. If the replay dies instead, they reappear
// when their visibility timeout runs out: nothing is lost. A scan can hide
// at most SQS's quota of messages in flight, about 120,000: over a larger
// lot it stops there (ErrInFlightQuota), having moved the matches it
// reached, and each run again with the same id scans again and moves the
// matches it reaches.
//
// A message matches on the park Record in its "redrive" attribute (see
// park.Record); a message without one that decodes never matches and is
// left. Moving a match takes its message in the lot's index (see
// lotindex.Index.Take), sends its body and attributes unchanged to the
// DLQ, with the "redrive" attribute set to its lineage marked with the
// replay's id, the attempt it was parked on and its id in the lot
// (message.Lineage's Replay, ReplayAttempt and ReplayOf), then deletes it
// from the lot and its message's entry from the lot's index. The starter reads
// the lineage as any message back in the DLQ: the attempt advances, the
// failure history is kept; it does not count the arrival as a consumer
// failure. What reaches the target is paced by the starter's pacing gate
// and the breaker's waiting room, as any redrive is; the replay's own rate
// bounds how fast it fills the DLQ.
//
// From a FIFO parking lot to a FIFO DLQ, a message goes back in its group
// (the Record's MessageGroupID, else its breaker key) with a
// deduplication id of the replay and the message's Key, so a send the
// run retries is one message. The scan reads the lot as SQS gives it, each
// group in its order, and sends in that order: a group goes back in its
// order. The messages of a group behind one the scan leaves (the filter
// does not select it, or it cannot be read) are left too, counted in
// Left: a group never goes back out of its order.
//
// One parked message, one copy sent back: a park retried after its
// SendMessage went through (its invocation failed after it, before or
// after it indexed the message) leaves two copies of the message in the
// lot, with one origin id, attempt and message tag (park.Record.Key). The
// take is conditional: it holds for the first copy a replay reaches and
// for that copy only, so every other copy, in this scan or in any replay
// after, is a duplicate, deleted from the lot unsent (counted in
// Duplicates). The take comes before the send, and the copy taken leaves
// the lot only once sent: a replay that stops anywhere between leaves that
// copy in the lot, and the next replay takes it again and sends it.
//
// Moved twice, never delivered twice: a replay that stops between sending
// a copy and deleting the parked message leaves the parked message in the
// lot, and running the replay again sends a second copy. Both copies carry
// the same lot id (ReplayOf), so they get the same execution name and the
// second is a duplicate the starter drops. A replay run again with the
// same id (resumed) skips the messages its first run moved that have been
// parked again since (their lineage carries its id).
//
// A scan does not scan what it moved itself: a message it sent back that
// comes back into the lot while the scan goes on (a quarantine rule, or
// the consumer failing it again, parked it again) carries the replay's id
// and, as ReplayOf, the lot id of a message the run sent. The run neither
// sends it again nor counts it among what it scanned (Counts.Scanned); it
// counts it apart, as Reparked.
//
// Every replay is recorded in the breaker table as one item
// "replay#<id>" (Journal): who, when, what filter, dry run or not, the
// rate, and the counts, updated as it goes.
package replay
