package delivery_test

import (
	"maps"
	"testing"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery"
)

func TestMalformedRecord(t *testing.T) {
	e := newEnv(t)
	inProgress := map[string]types.AttributeValue{
		"status": s("IN_PROGRESS"), "holder": s("h"), "generation": n("3"),
		"began_at": s("2026-04-01T09:30:00Z"), "expires_at": n("1775036000000"),
	}
	completed := maps.Clone(inProgress)
	maps.Copy(completed, map[string]types.AttributeValue{
		"status": s("COMPLETED"), "outcome": s("SUCCESS"), "completed_at": s("2026-04-01T09:30:01Z"),
	})
	tests := []struct {
		name      string
		base      map[string]types.AttributeValue
		change    map[string]types.AttributeValue
		drop      string
		attribute string
		problem   string
	}{
		{name: "unknown status", base: inProgress, change: map[string]types.AttributeValue{"status": s("PAUSED")}, attribute: "status", problem: `unknown status "PAUSED"`},
		{name: "status a number", base: inProgress, change: map[string]types.AttributeValue{"status": n("1")}, attribute: "status", problem: "want a string (S), got N"},
		{name: "no status", base: inProgress, drop: "status", attribute: "status", problem: "missing"},
		{name: "no holder", base: inProgress, drop: "holder", attribute: "holder", problem: "missing"},
		{name: "generation a string", base: inProgress, change: map[string]types.AttributeValue{"generation": s("3")}, attribute: "generation", problem: "want a number (N), got S"},
		{name: "generation fractional", base: inProgress, change: map[string]types.AttributeValue{"generation": n("3.5")}, attribute: "generation", problem: `want a 64-bit integer, got "3.5"`},
		{name: "no expiry", base: inProgress, drop: "expires_at", attribute: "expires_at", problem: "missing"},
		{name: "expiry a bool", base: inProgress, change: map[string]types.AttributeValue{"expires_at": &types.AttributeValueMemberBOOL{Value: true}}, attribute: "expires_at", problem: "got BOOL"},
		{name: "begin time bad", base: inProgress, change: map[string]types.AttributeValue{"began_at": s("at nine")}, attribute: "began_at", problem: `want an RFC 3339 time, got "at nine"`},
		{name: "lease id a list", base: inProgress, change: map[string]types.AttributeValue{"lease_id": &types.AttributeValueMemberL{Value: []types.AttributeValue{s("c1")}}}, attribute: "lease_id", problem: "got L"},
		{name: "completed without outcome", base: completed, drop: "outcome", attribute: "outcome", problem: "missing"},
		{name: "unknown outcome", base: completed, change: map[string]types.AttributeValue{"outcome": s("MEH")}, attribute: "outcome", problem: `unknown outcome "MEH"`},
		{name: "completed without time", base: completed, drop: "completed_at", attribute: "completed_at", problem: "missing"},
		{name: "message a number", base: completed, change: map[string]types.AttributeValue{"message": n("5")}, attribute: "message", problem: "got N"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id := delivery.ID{OriginID: "bad", Attempt: 1, Try: i + 1}
			item := maps.Clone(tt.base)
			maps.Copy(item, tt.change)
			delete(item, tt.drop)
			putRaw(t, e, id, item)

			_, _, err := e.ledger.Get(t.Context(), id)
			require.Error(t, err)
			assert.ErrorIs(t, err, delivery.ErrMalformed)
			assert.Contains(t, err.Error(), `attribute "`+tt.attribute+`"`)
			assert.Contains(t, err.Error(), `delivery "`+id.String()+`"`)
			assert.Contains(t, err.Error(), tt.problem)
		})
	}

	t.Run("Begin reports it too", func(t *testing.T) {
		id := delivery.ID{OriginID: "bad", Attempt: 2, Try: 1}
		item := maps.Clone(completed)
		item["outcome"] = s("MEH")
		putRaw(t, e, id, item)
		_, began, err := e.ledger.Begin(t.Context(), id, breaker.Ticket{Generation: 1}, lease)
		assert.False(t, began)
		assert.ErrorIs(t, err, delivery.ErrMalformed)
		assert.Contains(t, err.Error(), `attribute "outcome"`)
	})
}
