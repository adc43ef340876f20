package dynamo

import (
	"fmt"
	"strconv"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/redrive/redrive/breaker"
)

// Attribute names of a breaker item (see the package doc for their types).
const (
	attrPK                  = "pk"
	attrState               = "state"
	attrVersion             = "version"
	attrGeneration          = "generation"
	attrWindowFailures      = "window_failures"
	attrWindowCount         = "window_count"
	attrConsecutiveFailures = "consecutive_failures"
	attrTrips               = "trips"
	attrCanarySuccesses     = "canary_successes"
	attrOpenUntil           = "open_until"
	attrClosedAt            = "closed_at"
	attrScoutUntil          = "scout_until"
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
	"#openUntil = :openUntil, #closedAt = :closedAt, #scoutUntil = :scoutUntil, " +
	"#throttledUntil = :throttledUntil, #changedAt = :changedAt, #forcedUntil = :forcedUntil, " +
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
	"#canarySuccesses":     attrCanarySuccesses,
	"#openUntil":           attrOpenUntil,
	"#closedAt":            attrClosedAt,
	"#scoutUntil":          attrScoutUntil,
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
	var leases types.AttributeValue = null
	if len(row.Leases) > 0 {
		list := make([]types.AttributeValue, len(row.Leases))
		for i, l := range row.Leases {
			list[i] = &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
				leaseID:      str(l.ID),
				leaseExpires: timestamp(l.Expires),
			}}
		}
		leases = &types.AttributeValueMemberL{Value: list}
	}
	var recorded types.AttributeValue = null
	if len(row.Recorded) > 0 {
		list := make([]types.AttributeValue, len(row.Recorded))
		for i, id := range row.Recorded {
			list[i] = str(id)
		}
		recorded = &types.AttributeValueMemberL{Value: list}
	}
	return map[string]types.AttributeValue{
		key(attrState):               str(row.State.String()),
		key(attrVersion):             num(row.Version),
		key(attrGeneration):          num(row.Generation),
		key(attrWindowFailures):      str(formatBits(row.Window.Failures)),
		key(attrWindowCount):         num(int64(row.Window.Count)),
		key(attrConsecutiveFailures): num(int64(row.ConsecutiveFailures)),
		key(attrTrips):               num(int64(row.Trips)),
		key(attrCanarySuccesses):     num(int64(row.CanarySuccesses)),
		key(attrOpenUntil):           timestamp(row.OpenUntil),
		key(attrClosedAt):            timestamp(row.ClosedAt),
		key(attrScoutUntil):          timestamp(row.ScoutUntil),
		key(attrThrottledUntil):      timestamp(row.ThrottledUntil),
		key(attrChangedAt):           timestamp(row.ChangedAt),
		key(attrForcedUntil):         timestamp(row.ForcedUntil),
		key(attrCause):               optional(row.Cause),
		key(attrActor):               optional(row.Actor),
		key(attrReason):              optional(row.Reason),
		key(attrLeases):              leases,
		key(attrRecorded):            recorded,
		key(attrTotals): &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{
			totalSuccesses: num(row.Totals.Successes),
			totalFailures:  num(row.Totals.Failures),
			totalPoison:    num(row.Totals.Poison),
			totalStale:     num(row.Totals.Stale),
			totalTrips:     num(row.Totals.Trips),
			totalCloses:    num(row.Totals.Closes),
			totalThrottles: num(row.Totals.Throttles),
		}},
	}
}

// decode turns a stored item back into the row for key.
func decode(key string, item map[string]types.AttributeValue) (breaker.Row, error) {
	var problem error
	f := fields{key: key, m: item, err: &problem}
	row := breaker.Row{
		Key:                 key,
		Version:             f.int64(attrVersion, true),
		Generation:          f.int64(attrGeneration, false),
		Window:              breaker.Window{Failures: f.bits(attrWindowFailures), Count: f.int(attrWindowCount)},
		ConsecutiveFailures: f.int(attrConsecutiveFailures),
		Trips:               f.int(attrTrips),
		CanarySuccesses:     f.int(attrCanarySuccesses),
		OpenUntil:           f.time(attrOpenUntil, false),
		ClosedAt:            f.time(attrClosedAt, false),
		ScoutUntil:          f.time(attrScoutUntil, false),
		ThrottledUntil:      f.time(attrThrottledUntil, false),
		ChangedAt:           f.time(attrChangedAt, false),
		Cause:               f.str(attrCause, false),
		ForcedUntil:         f.time(attrForcedUntil, false),
		Actor:               f.str(attrActor, false),
		Reason:              f.str(attrReason, false),
	}
	if name := f.str(attrState, true); problem == nil {
		state, err := breaker.ParseState(name)
		if err != nil {
			f.fail(attrState, "unknown state %q", name)
		}
		row.State = state
	}
	if problem == nil && row.Version < 1 {
		f.fail(attrVersion, "version %d of a stored row, want at least 1", row.Version)
	}
	for i, lease := range f.list(attrLeases) {
		l := f.elem(attrLeases, i, lease)
		row.Leases = append(row.Leases, breaker.Lease{ID: l.str(leaseID, true), Expires: l.time(leaseExpires, true)})
	}
	for i, av := range f.list(attrRecorded) {
		id, ok := av.(*types.AttributeValueMemberS)
		if !ok {
			f.fail(fmt.Sprintf("%s[%d]", attrRecorded, i), "want a string (S)")
			break
		}
		row.Recorded = append(row.Recorded, id.Value)
	}
	if t, ok := f.sub(attrTotals); ok {
		row.Totals = breaker.Totals{
			Successes: t.int64(totalSuccesses, false),
			Failures:  t.int64(totalFailures, false),
			Poison:    t.int64(totalPoison, false),
			Stale:     t.int64(totalStale, false),
			Trips:     t.int64(totalTrips, false),
			Closes:    t.int64(totalCloses, false),
			Throttles: t.int64(totalThrottles, false),
		}
	}
	if problem != nil {
		return breaker.Row{}, problem
	}
	return row, nil
}

// null stands for a zero value that has no natural stored form.
var null = &types.AttributeValueMemberNULL{Value: true}

func str(s string) types.AttributeValue { return &types.AttributeValueMemberS{Value: s} }

// optional is s, or NULL when s is empty.
func optional(s string) types.AttributeValue {
	if s == "" {
		return null
	}
	return str(s)
}

// timestamp is t in UTC with nanoseconds, so that times sort as strings and
// read back equal; NULL when t is zero.
func timestamp(t time.Time) types.AttributeValue {
	if t.IsZero() {
		return null
	}
	return str(t.UTC().Format(time.RFC3339Nano))
}

func num(n int64) types.AttributeValue {
	return &types.AttributeValueMemberN{Value: strconv.FormatInt(n, 10)}
}

// formatBits writes the window bitset as 16 hex digits. It is a string, not
// a number: minidyn evaluates update expressions in float64, which rounds
// numbers above 2^53 and so would lose the oldest outcomes of a full window.
func formatBits(b uint64) string { return fmt.Sprintf("%016x", b) }
