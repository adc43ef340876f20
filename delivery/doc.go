// Package delivery is the delivery ledger: it makes one delivery try of a
// message happen once even when the Attempt task that makes it is retried.
//
// The Attempt task admits by the breaker, delivers and records the outcome
// in one invocation, so a retried invocation (a Lambda timeout, a lost
// breaker write) must not deliver again what was delivered. Before
// delivering, it calls Begin for the try's ID: the first caller takes the
// record (IN_PROGRESS, with a lease); a later caller gets the record back
// instead: COMPLETED with the outcome and the ticket it was admitted
// under, so the outcome is recorded under the original admission; or
// IN_PROGRESS and unexpired, so it retries later. A lease that expired
// (its holder died) is taken over by the next Begin, atomically: of many
// concurrent callers exactly one wins. Complete stores the outcome, on the
// condition that the caller still holds the record. (That the outcome is
// counted once by the breaker is the breaker row's business: it lists the
// deliveries it recorded.)
//
// Records live in the breaker's table (dynamo.TableInput) as items
// with partition key pk = "delivery#<originId>#<attempt>#<try>":
//
//	status        S  IN_PROGRESS or COMPLETED
//	holder        S  random token of the invocation that took the record
//	generation    N  the admission ticket's breaker generation
//	lease_id      S  the admission ticket's canary lease; absent if none
//	began_at      S  when the record was taken, RFC 3339 UTC
//	expires_at    N  lease end, Unix milliseconds (compared in conditions)
//	ttl           N  Unix seconds, RecordTTL after the last write, for
//	                 DynamoDB TTL (enable it on "ttl")
//	outcome       S  SUCCESS, TRANSIENT or POISON; once COMPLETED
//	error_type    S  absent if empty
//	message       S  absent if empty; at most message.MaxFailureMessage bytes
//	completed_at  S  once COMPLETED, RFC 3339 UTC
//
// A stored item that does not decode is an error matching ErrMalformed that
// names the attribute.
package delivery
