package dynamo_test

import (
	"context"
	"maps"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

func list(vs ...types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberL{Value: vs}
}

func m(kv map[string]types.AttributeValue) types.AttributeValue {
	return &types.AttributeValueMemberM{Value: kv}
}

// putRaw writes item for key with PutItem, bypassing the store's encoding.
func putRaw(t *testing.T, e env, key string, item map[string]types.AttributeValue) {
	t.Helper()
	item = maps.Clone(item)
	item["pk"] = s(dynamo.BreakerPrefix + key)
	_, err := e.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(e.table), Item: item})
	require.NoError(t, err)
}

func TestLoadMinimalItem(t *testing.T) {
	e := newEnv(t)
	// Attributes other than state and version default to zero when absent or
	// NULL, so items written before an attribute existed still load.
	putRaw(t, e, "minimal", map[string]types.AttributeValue{
		"state": s("OPEN"), "version": n("3"), "actor": &types.AttributeValueMemberNULL{Value: true},
	})
	got, err := e.store.Load(t.Context(), "minimal")
	require.NoError(t, err)
	assert.Equal(t, breaker.Row{Key: "minimal", State: breaker.Open, Version: 3}, got)
}

// An item written by an earlier version may hold attributes this one no
// longer reads, such as the OPEN breaker's scout lease (scout_until): it
// loads all the same, and a Save over it (which leaves them as they were)
// loads again.
func TestLoadIgnoresAttributesItNoLongerReads(t *testing.T) {
	e := newEnv(t)
	putRaw(t, e, "old", map[string]types.AttributeValue{
		"state": s("OPEN"), "version": n("5"), "generation": n("2"), "trips": n("1"),
		"open_until":  s("2025-01-02T03:04:05Z"),
		"scout_until": s("2025-01-02T03:06:05Z"),
	})
	got, err := e.store.Load(t.Context(), "old")
	require.NoError(t, err)
	openUntil := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	assert.Equal(t, breaker.Row{Key: "old", State: breaker.Open, Version: 5, Generation: 2, Trips: 1, OpenUntil: openUntil}, got)

	got.Version++
	got.Trips++
	require.NoError(t, e.store.Save(t.Context(), 5, got))
	again, err := e.store.Load(t.Context(), "old")
	require.NoError(t, err)
	assert.Equal(t, got, again)
	assert.Equal(t, s("2025-01-02T03:06:05Z"), getRaw(t, e, "old")["scout_until"], "a Save leaves what it does not write")
}

// An item written before the row kept its last trip (last_trip_at,
// last_trip_cause) loads with no last trip and its lifetime count of trips
// (totals.trips) as stored; the next Save adds them.
func TestLoadItemWrittenBeforeTheLastTripWasKept(t *testing.T) {
	e := newEnv(t)
	putRaw(t, e, "old", map[string]types.AttributeValue{
		"state": s("CLOSED"), "version": n("9"), "generation": n("4"), "trips": n("0"),
		"cause":  s("canary-successes"),
		"totals": m(map[string]types.AttributeValue{"trips": n("2"), "closes": n("2")}),
	})
	got, err := e.store.Load(t.Context(), "old")
	require.NoError(t, err)
	assert.Equal(t, breaker.Row{Key: "old", State: breaker.Closed, Version: 9, Generation: 4, Cause: "canary-successes",
		Totals: breaker.Totals{Trips: 2, Closes: 2}}, got)

	tripped := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	got.Version++
	got.LastTripAt, got.LastTripCause, got.Totals.Trips = tripped, "5 consecutive failures", 3
	require.NoError(t, e.store.Save(t.Context(), 9, got))
	again, err := e.store.Load(t.Context(), "old")
	require.NoError(t, err)
	assert.Equal(t, got, again)
}

func TestLoadMalformedItem(t *testing.T) {
	e := newEnv(t)
	valid := map[string]types.AttributeValue{"state": s("CLOSED"), "version": n("4")}
	lease := m(map[string]types.AttributeValue{"id": s("c1"), "expires": s("2025-01-02T03:04:05Z")})
	tests := []struct {
		name      string
		change    map[string]types.AttributeValue
		drop      string
		attribute string
		message   string
	}{
		{name: "unknown state", change: map[string]types.AttributeValue{"state": s("AJAR")}, attribute: "state", message: `unknown state "AJAR"`},
		{name: "state not a string", change: map[string]types.AttributeValue{"state": n("1")}, attribute: "state", message: "want a string (S), got N"},
		{name: "state missing", drop: "state", attribute: "state", message: "missing"},
		{name: "version missing", drop: "version", attribute: "version", message: "missing"},
		{name: "version not a number", change: map[string]types.AttributeValue{"version": s("4")}, attribute: "version", message: "want a number (N), got S"},
		{name: "version fractional", change: map[string]types.AttributeValue{"version": n("4.5")}, attribute: "version", message: `want a 64-bit integer, got "4.5"`},
		{name: "version zero", change: map[string]types.AttributeValue{"version": n("0")}, attribute: "version", message: "want at least 1"},
		{name: "window bits a number", change: map[string]types.AttributeValue{"window_failures": n("5")}, attribute: "window_failures", message: "want a string (S), got N"},
		{name: "window bits not hex", change: map[string]types.AttributeValue{"window_failures": s("00000000000000zz")}, attribute: "window_failures", message: `"00000000000000zz"`},
		{name: "window bits past 64", change: map[string]types.AttributeValue{"window_failures": s("10000000000000000")}, attribute: "window_failures", message: "up to 16 hex digits"},
		{name: "window bits negative", change: map[string]types.AttributeValue{"window_failures": s("-1")}, attribute: "window_failures", message: "up to 16 hex digits"},
		{name: "count overflows", change: map[string]types.AttributeValue{"consecutive_failures": n("99999999999999999999")}, attribute: "consecutive_failures", message: "integer"},
		{name: "count is a bool", change: map[string]types.AttributeValue{"window_count": &types.AttributeValueMemberBOOL{Value: true}}, attribute: "window_count", message: "got BOOL"},
		{name: "time not RFC 3339", change: map[string]types.AttributeValue{"open_until": s("yesterday")}, attribute: "open_until", message: `"yesterday"`},
		{name: "last trip not a time", change: map[string]types.AttributeValue{"last_trip_at": s("noon")}, attribute: "last_trip_at", message: `"noon"`},
		{name: "time as a number", change: map[string]types.AttributeValue{"forced_until": n("1700000000")}, attribute: "forced_until", message: "got N"},
		{name: "actor not a string", change: map[string]types.AttributeValue{"actor": list(s("alice"))}, attribute: "actor", message: "got L"},
		{name: "leases not a list", change: map[string]types.AttributeValue{"leases": lease}, attribute: "leases", message: "want a list (L), got M"},
		{name: "lease not a map", change: map[string]types.AttributeValue{"leases": list(lease, s("c2"))}, attribute: "leases[1]", message: "want a map (M), got S"},
		{name: "lease without expiry", change: map[string]types.AttributeValue{"leases": list(lease, m(map[string]types.AttributeValue{"id": s("c2")}))}, attribute: "leases[1].expires", message: "missing"},
		{name: "lease expiry empty", change: map[string]types.AttributeValue{"leases": list(m(map[string]types.AttributeValue{"id": s("c2"), "expires": s("")}))}, attribute: "leases[0].expires", message: "empty time"},
		{name: "state NULL", change: map[string]types.AttributeValue{"state": &types.AttributeValueMemberNULL{Value: true}}, attribute: "state", message: "missing"},
		{name: "lease expiry bad", change: map[string]types.AttributeValue{"leases": list(m(map[string]types.AttributeValue{"id": s("c2"), "expires": s("soon")}))}, attribute: "leases[0].expires", message: `"soon"`},
		{name: "totals not a map", change: map[string]types.AttributeValue{"totals": n("3")}, attribute: "totals", message: "want a map (M), got N"},
		{name: "total not a number", change: map[string]types.AttributeValue{"totals": m(map[string]types.AttributeValue{"failures": s("many")})}, attribute: "totals.failures", message: "want a number (N), got S"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			item := maps.Clone(valid)
			maps.Copy(item, tt.change)
			delete(item, tt.drop)
			key := "bad/" + tt.name
			putRaw(t, e, key, item)

			got, err := e.store.Load(t.Context(), key)
			require.Error(t, err)
			assert.ErrorIs(t, err, dynamo.ErrMalformed)
			assert.Contains(t, err.Error(), `attribute "`+tt.attribute+`"`)
			assert.Contains(t, err.Error(), `breaker "`+key+`"`)
			assert.Contains(t, err.Error(), tt.message)
			assert.Equal(t, breaker.Row{}, got)
		})
	}
}

func TestRawShowsAnItemThatDoesNotDecodeAndReplaceRepairsIt(t *testing.T) {
	e := newEnv(t)
	putRaw(t, e, "corrupt", map[string]types.AttributeValue{
		"state": s("AJAR"), "version": n("7"), "generation": n("3"), "open_until": s("not a time"),
	})
	_, err := e.store.Load(t.Context(), "corrupt")
	require.ErrorIs(t, err, dynamo.ErrMalformed)

	raw, err := e.store.Raw(t.Context(), "corrupt")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"S": "AJAR"}, raw["state"])
	assert.Equal(t, map[string]any{"N": "7"}, raw["version"])
	assert.Equal(t, map[string]any{"S": "not a time"}, raw["open_until"])

	fresh := breaker.Row{Key: "corrupt", State: breaker.Closed, Actor: "alice", Reason: "repair", Cause: breaker.CauseReset}
	stored, err := e.store.Replace(t.Context(), fresh)
	require.NoError(t, err)
	assert.Equal(t, int64(8), stored.Version, "the old version plus one")
	assert.Equal(t, int64(4), stored.Generation, "a new generation")
	got, err := e.store.Load(t.Context(), "corrupt")
	require.NoError(t, err, "repaired: it decodes")
	assert.Equal(t, stored, got, "the whole item replaced, the bad attribute gone")

	none, err := e.store.Raw(t.Context(), "absent")
	require.NoError(t, err)
	assert.Nil(t, none)
}

func TestReplaceLosesToAConcurrentChange(t *testing.T) {
	e := newEnv(t)
	putRaw(t, e, "corrupt", map[string]types.AttributeValue{"state": s("AJAR"), "version": s("seven")})
	racing := dynamo.New(racingAPI{API: e.client, race: func() {
		putRaw(t, e, "corrupt", map[string]types.AttributeValue{"state": s("AJAR"), "version": s("eight")})
	}}, e.table)
	_, err := racing.Replace(t.Context(), breaker.Row{Key: "corrupt", State: breaker.Closed})
	assert.ErrorIs(t, err, breaker.ErrConflict, "the item changed between the read and the write")
	raw, err := e.store.Raw(t.Context(), "corrupt")
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"S": "eight"}, raw["version"], "the other writer's item stands")
}

// racingAPI runs race before every PutItem, as another writer would.
type racingAPI struct {
	dynamo.API
	race func()
}

func (r racingAPI) PutItem(ctx context.Context, in *dynamodb.PutItemInput, optFns ...func(*dynamodb.Options)) (*dynamodb.PutItemOutput, error) {
	r.race()
	return r.API.PutItem(ctx, in, optFns...)
}
