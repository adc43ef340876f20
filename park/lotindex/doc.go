// Package lotindex is the parking lot's index: one item per parked message
// in the breaker table, so that what is in the lot can be counted and
// listed without receiving a message (receiving would hide it for its
// visibility timeout). The park task and the starter write it (through
// park.Lot); `redrive parked` reads it.
//
// An entry holds the message's breaker key, the class of its park reason,
// the last failure's error type, its origin id, attempt and message tag
// (its Key), when it was parked, its id in the parking lot and its body's
// size. It expires (the table's TTL) when the parking lot's retention
// drops the message. Entries are found through the sparse index
// dynamo.ParkedIndex, partitioned by the UTC day of parking and sorted by
// parked time: listing the lot is one Query per day of its retention.
//
// An entry is keyed by the message, not by its copy in the lot: a park
// retried after its SendMessage went through (its invocation failed
// after) puts a second copy in the lot, and the same entry names the copy
// parked last. The entry is also the record a replay (park/replay) keeps
// of the messages it moves: it takes a message (Take, an item of its own
// beside the entry) before sending a copy back, so that every other copy
// is a duplicate it deletes unsent, and deletes the entry (Unlist) once
// the copy has left the lot. The index
// does not see a message leave the lot otherwise (moved by hand, deleted)
// before its retention ends. The index is eventually consistent: a message
// parked a moment ago may not be listed yet.
package lotindex
