package dynamo

import (
	"errors"
	"fmt"
	"strconv"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
)

// ErrMalformed reports a stored breaker item that does not decode into a
// Row: a missing or mistyped attribute, an unknown state or a bad number.
var ErrMalformed = errors.New("dynamo: malformed breaker item")

// Attribute names of a breaker item (see the package doc for their types).
const (
	attrState               = "state"
	attrVersion             = "version"
	attrGeneration          = "generation"
	attrWindowFailures      = "window_failures"
	attrWindowCount         = "window_count"
	attrConsecutiveFailures = "consecutive_failures"
	attrTrips               = "trips"
	attrLastTripAt          = "last_trip_at"
	attrLastTripCause       = "last_trip_cause"
	attrCanarySuccesses     = "canary_successes"
	attrOpenUntil           = "open_until"
	attrClosedAt            = "closed_at"
	attrThrottledUntil      = "throttled_until"
	attrChangedAt           = "changed_at"
	attrCause               = "cause"
	attrForcedUntil         = "forced_until"
	attrActor               = "actor"
	attrReason              = "reason"
	attrLeases              = "leases"
	attrRecorded            = "recorded"
	attrTotals              = "totals"

	leaseID      = "id"
	leaseExpires = "expires"

	totalSuccesses = "successes"
	totalFailures  = "failures"
	totalPoison    = "poison"
	totalStale     = "stale"
	totalTrips     = "trips"
	totalCloses    = "closes"
	totalThrottles = "throttles"
)

// saveUpdate is the update expression of a Save: it sets every attribute
// encode writes, each named by its saveNames placeholder, to the value
// keyed by the same placeholder with a colon (encode(row, asValue)).
const saveUpdate = "SET #state = :state, #version = :version, #generation = :generation, " +
	"#windowFailures = :windowFailures, #windowCount = :windowCount, " +
	"#consecutiveFailures = :consecutiveFailures, #trips = :trips, #canarySuccesses = :canarySuccesses, " +
	"#lastTripAt = :lastTripAt, #lastTripCause = :lastTripCause, " +
	"#openUntil = :openUntil, #closedAt = :closedAt, #throttledUntil = :throttledUntil, " +
	"#changedAt = :changedAt, #forcedUntil = :forcedUntil, " +
	"#cause = :cause, #actor = :actor, #reason = :reason, " +
	"#leases = :leases, #recorded = :recorded, #totals = :totals"

// saveNames are the attribute names saveUpdate sets, by placeholder. Every
// Save shares the map; it is never changed.
var saveNames = map[string]string{
	"#state":               attrState,
	"#version":             attrVersion,
	"#generation":          attrGeneration,
	"#windowFailures":      attrWindowFailures,
	"#windowCount":         attrWindowCount,
	"#consecutiveFailures": attrConsecutiveFailures,
	"#trips":               attrTrips,
	"#lastTripAt":          attrLastTripAt,
	"#lastTripCause":       attrLastTripCause,
	"#canarySuccesses":     attrCanarySuccesses,
	"#openUntil":           attrOpenUntil,
	"#closedAt":            attrClosedAt,
	"#throttledUntil":      attrThrottledUntil,
	"#changedAt":           attrChangedAt,
	"#forcedUntil":         attrForcedUntil,
	"#cause":               attrCause,
	"#actor":               attrActor,
	"#reason":              attrReason,
	"#leases":              attrLeases,
	"#recorded":            attrRecorded,
	"#totals":              attrTotals,
}

// valuePlaceholders maps each attribute saveUpdate sets to its value's
// placeholder: "#windowCount" names window_count, so ":windowCount".
var valuePlaceholders = func() map[string]string {
	m := make(map[string]string, len(saveNames))
	for placeholder, name := range saveNames {
		m[name] = ":" + placeholder[1:]
	}
	return m
}()

// asItem keys an attribute encode writes by its name, as in an item.
func asItem(name string) string { return name }

// asValue keys an attribute encode writes by its value's placeholder in
// saveUpdate.
func asValue(name string) string { return valuePlaceholders[name] }

// encode returns row's attributes, without the key, each keyed by
// key(its name): asItem or asValue. Every attribute is always written, so
// a Save replaces the whole row; zero times, empty strings and no leases
// are NULL. (SET of NULL rather than REMOVE: minidyn ignores REMOVE of a
// top-level attribute and drops empty lists.)
func encode(row breaker.Row, key func(name string) string) map[string]types.AttributeValue {
	var leases types.AttributeValue = Null
	if len(row.Leases) > 0 {
		list := make([]types.AttributeValue, len(row.Leases))
		for i, l := range row.Leases {
			list[i] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				leaseID:      S(l.ID),
				leaseExpires: OptionalTime(l.Expires),
			}}
		}
		leases = &types.AttributeValueMemberL{Value: list}
	}
	var recorded types.AttributeValue = Null
	if len(row.Recorded) > 0 {
		list := make([]types.AttributeValue, len(row.Recorded))
		for i, id := range row.Recorded {
			list[i] = S(id)
		}
		recorded = &types.AttributeValueMemberL{Value: list}
	}
	return map[string]types.AttributeValue{
		key(attrState):               S(row.State.String()),
		key(attrVersion):             N(row.Version),
		key(attrGeneration):          N(row.Generation),
		key(attrWindowFailures):      S(formatBits(row.Window.Failures)),
		key(attrWindowCount):         N(int64(row.Window.Count)),
		key(attrConsecutiveFailures): N(int64(row.ConsecutiveFailures)),
		key(attrTrips):               N(int64(row.Trips)),
		key(attrLastTripAt):          OptionalTime(row.LastTripAt),
		key(attrLastTripCause):       Optional(row.LastTripCause),
		key(attrCanarySuccesses):     N(int64(row.CanarySuccesses)),
		key(attrOpenUntil):           OptionalTime(row.OpenUntil),
		key(attrClosedAt):            OptionalTime(row.ClosedAt),
		key(attrThrottledUntil):      OptionalTime(row.ThrottledUntil),
		key(attrChangedAt):           OptionalTime(row.ChangedAt),
		key(attrForcedUntil):         OptionalTime(row.ForcedUntil),
		key(attrCause):               Optional(row.Cause),
		key(attrActor):               Optional(row.Actor),
		key(attrReason):              Optional(row.Reason),
		key(attrLeases):              leases,
		key(attrRecorded):            recorded,
		key(attrTotals): &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			totalSuccesses: N(row.Totals.Successes),
			totalFailures:  N(row.Totals.Failures),
			totalPoison:    N(row.Totals.Poison),
			totalStale:     N(row.Totals.Stale),
			totalTrips:     N(row.Totals.Trips),
			totalCloses:    N(row.Totals.Closes),
			totalThrottles: N(row.Totals.Throttles),
		}},
	}
}

// decode turns a stored item back into the row for key.
func decode(key string, item map[string]types.AttributeValue) (breaker.Row, error) {
	f := Read(item)
	row := breaker.Row{
		Key:                 key,
		Version:             f.Int64(attrVersion, true),
		Generation:          f.Int64(attrGeneration, false),
		Window:              breaker.Window{Failures: readBits(f, attrWindowFailures), Count: f.Int(attrWindowCount)},
		ConsecutiveFailures: f.Int(attrConsecutiveFailures),
		Trips:               f.Int(attrTrips),
		LastTripAt:          f.Time(attrLastTripAt, false),
		LastTripCause:       f.Str(attrLastTripCause, false),
		CanarySuccesses:     f.Int(attrCanarySuccesses),
		OpenUntil:           f.Time(attrOpenUntil, false),
		ClosedAt:            f.Time(attrClosedAt, false),
		ThrottledUntil:      f.Time(attrThrottledUntil, false),
		ChangedAt:           f.Time(attrChangedAt, false),
		Cause:               f.Str(attrCause, false),
		ForcedUntil:         f.Time(attrForcedUntil, false),
		Actor:               f.Str(attrActor, false),
		Reason:              f.Str(attrReason, false),
	}
	if name := f.Str(attrState, true); f.Err() == nil {
		state, err := breaker.ParseState(name)
		if err != nil {
			f.Fail(attrState, "unknown state %q", name)
		}
		row.State = state
	}
	if f.Err() == nil && row.Version < 1 {
		f.Fail(attrVersion, "version %d of a stored row, want at least 1", row.Version)
	}
	for i, lease := range f.List(attrLeases) {
		l := f.Elem(attrLeases, i, lease)
		row.Leases = append(row.Leases, breaker.Lease{ID: l.Str(leaseID, true), Expires: l.Time(leaseExpires, true)})
	}
	for i, av := range f.List(attrRecorded) {
		id, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			f.Fail(fmt.Sprintf("%s[%d]", attrRecorded, i), "want a string (S)")
			break
		}
		row.Recorded = append(row.Recorded, id.Value)
	}
	if t, ok := f.Sub(attrTotals); ok {
		row.Totals = breaker.Totals{
			Successes: t.Int64(totalSuccesses, false),
			Failures:  t.Int64(totalFailures, false),
			Poison:    t.Int64(totalPoison, false),
			Stale:     t.Int64(totalStale, false),
			Trips:     t.Int64(totalTrips, false),
			Closes:    t.Int64(totalCloses, false),
			Throttles: t.Int64(totalThrottles, false),
		}
	}
	if err := f.Err(); err != nil {
		return breaker.Row{}, fmt.Errorf("%w: breaker %q: %w", ErrMalformed, key, err)
	}
	return row, nil
}

// formatBits writes the window bitset as 16 hex digits. It is a string, not
// a number: minidyn evaluates update expressions in float64, which rounds
// numbers above 2^53 and so would lose the oldest outcomes of a full window.
func formatBits(b uint64) string { return fmt.Sprintf("%016x", b) }

// readBits reads a window bitset written by formatBits; absent is 0.
func readBits(f Reader, name string) uint64 {
	s := f.Str(name, false)
	if s == "" {
		return 0
	}
	v, err := strconv.ParseUint(s, 16, 64)
	if err != nil {
		f.Fail(name, "want up to 16 hex digits, got %q", s)
	}
	return v
}
