// Package lotindex is the parking lot's index: one item per parked message
// in the breaker table, so that what is in the lot can be counted and
// listed without receiving a message (receiving would hide it for its
// visibility timeout). The park task and the starter write it (through
// park.Lot); `redrive parked` reads it.
//
// An entry holds the message's breaker key, the class of its park reason,
// the last failure's error type, its origin id and attempt, when it was
// parked, its id in the parking lot and its body's size. It expires (the
// table's TTL) when the parking lot's retention drops the message. Entries
// are found through the sparse index dynamo.ParkedIndex, partitioned
// by the UTC day of parking and sorted by parked time: listing the lot is
// one Query per day of its retention.
//
// The index records what was parked. A replay (park/replay) deletes the
// entry of each message it moves back; the index does not see a message
// leave the lot otherwise (moved by hand, deleted) before its retention
// ends. The index is eventually consistent: a message parked a moment ago
// may not be listed yet.
package lotindex
