// Package dynamo is the one DynamoDB table Redrive keeps, and the breaker
// rows in it.
//
// The table (table.go): its schema, with the partition key pk, the key
// prefix of every kind of item (breaker rows, delivery records, the
// waiting room, the pace rows, the parking lot's index, replay journals,
// the routing rules) and the sparse indexes; CreateTable. The codec
// (codec.go): how every item kind writes and reads strings, numbers and
// times (S, N, Time, Reader), so no package has its own.
//
// The breaker.Store (store.go, item.go): one item per breaker key,
// changed only by one conditional UpdateItem on its version. Its partition
// key is pk = "breaker#<key>"; every other attribute mirrors a breaker.Row
// field:
//
//	state                 S  state name, e.g. "HALF_OPEN"
//	version, generation   N
//	window_failures       S  the window bitset as 16 hex digits (see below)
//	window_count          N
//	consecutive_failures  N
//	trips                 N
//	last_trip_at          S  RFC 3339 UTC, nanoseconds; NULL when zero
//	last_trip_cause       S  why it last tripped; NULL when empty
//	canary_successes      N
//	open_until            S  RFC 3339 UTC, nanoseconds; NULL when zero
//	closed_at             S  as open_until
//	throttled_until       S  as open_until
//	changed_at            S  as open_until
//	cause                 S  why the state last changed; NULL when empty
//	forced_until          S  as open_until
//	actor, reason         S  NULL when empty
//	leases                L  of M {id S, expires S}; NULL when none
//	totals                M  {successes, failures, poison, stale, trips, closes, throttles N};
//	                         trips counts every trip since the row was made
//
// The window bitset is a string, not a number, because minidyn (the local
// backend) evaluates update expressions in float64 and would round a window
// whose oldest bits are set; DynamoDB itself keeps 38 digits.
//
// Load reads with ConsistentRead; a missing item is a new CLOSED breaker.
// Attributes other than state and version may be absent or NULL and read as
// zero, so items written before an attribute existed still load; an
// attribute this version no longer reads (scout_until, the lease of the
// OPEN breaker's scout that earlier versions wrote) is ignored, and a Save
// leaves it as it was. An item that does not decode (wrong type, unknown
// state, bad number) is an error matching ErrMalformed that names the
// attribute and the key. Save
// sets every attribute in one UpdateItem conditioned on the stored version
// (attribute_not_exists(pk) for a new row); a failed condition is
// breaker.ErrConflict.
package dynamo
