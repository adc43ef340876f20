package admin_test

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/dynamo"
	"github.com/redrive/redrive/lambda/retryable"
)

func TestCommandsChangeTheBreaker(t *testing.T) {
	f := newFixture(t, nil)
	until := t0.Add(3 * time.Hour)
	steps := []struct {
		name    string
		req     admin.Request
		prepare func(t *testing.T)
		changed bool
		from    breaker.State
		to      breaker.State
		// check looks at the output and at what the breaker now decides.
		check func(t *testing.T, out admin.Output)
	}{
		{name: "open until a time", req: admin.Request{Command: "open", Breaker: "orders", Reason: "maintenance", Until: until.Format(time.RFC3339)},
			changed: true, from: breaker.Closed, to: breaker.ForcedOpen,
			check: func(t *testing.T, out admin.Output) {
				assert.Equal(t, until, out.After.ForcedUntil)
				assert.Equal(t, "execution:ops-1", out.After.Actor)
				assert.Equal(t, "maintenance", out.After.Reason)
				d, err := f.breaker.Admit(t.Context(), "orders")
				require.NoError(t, err)
				assert.Equal(t, breaker.Queue, d.Verdict, "a forced-open breaker admits nothing: messages wait in the room")
				assert.Zero(t, d.Wait, "the controller waits the hold out, not the message")
				assert.Equal(t, out.After.Version, d.Row.Version, "turning a message away writes nothing")
			}},
		{name: "status of a forced breaker", req: admin.Request{Command: "status", Breaker: "orders"},
			from: breaker.ForcedOpen, to: breaker.ForcedOpen},
		{name: "close without until", req: admin.Request{Command: "close", Breaker: "orders", Reason: "trust it", Actor: "alice"},
			changed: true, from: breaker.ForcedOpen, to: breaker.ForcedClosed,
			check: func(t *testing.T, out admin.Output) {
				assert.Zero(t, out.After.ForcedUntil)
				assert.Equal(t, "alice", out.After.Actor)
				d, err := f.breaker.Admit(t.Context(), "orders")
				require.NoError(t, err)
				assert.Equal(t, breaker.Proceed, d.Verdict)
			}},
		{name: "release", req: admin.Request{Command: "release", Breaker: "orders", Reason: "done"},
			changed: true, from: breaker.ForcedClosed, to: breaker.Closed},
		{name: "release again changes nothing", req: admin.Request{Command: "release", Breaker: "orders", Reason: "retried"},
			from: breaker.Closed, to: breaker.Closed,
			check: func(t *testing.T, out admin.Output) {
				assert.Equal(t, out.Before, out.After)
			}},
		{name: "reset a tripped breaker", req: admin.Request{Command: "reset", Breaker: "orders", Reason: "fixed"},
			prepare: func(t *testing.T) { f.trip(t, "orders") },
			changed: true, from: breaker.Open, to: breaker.Closed,
			check: func(t *testing.T, out admin.Output) {
				assert.Equal(t, 1, out.Before.Trips)
				assert.Equal(t, 3, out.Before.WindowFailures)
				assert.Equal(t, 3, out.Before.WindowCount)
				assert.Equal(t, t0.Add(time.Minute), out.Before.OpenUntil)
				assert.Equal(t, breaker.CauseConsecutiveFailures, out.Before.Cause)
				assert.Zero(t, out.After.Trips)
				assert.Zero(t, out.After.WindowCount)
				assert.Zero(t, out.After.OpenUntil)
				assert.Equal(t, breaker.CauseReset, out.After.Cause)
			}},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			if s.prepare != nil {
				s.prepare(t)
			}
			out, err := f.command(t, s.req)
			require.NoError(t, err)
			assert.Equal(t, "orders", out.Breaker)
			assert.Equal(t, s.req.Command, out.Command)
			assert.Equal(t, s.changed, out.Changed)
			assert.Equal(t, s.from.String(), out.Before.State)
			assert.Equal(t, s.to.String(), out.After.State)
			if s.changed {
				assert.Equal(t, out.Before.Version+1, out.After.Version)
				assert.Greater(t, out.After.Generation, out.Before.Generation)
			}
			if s.check != nil {
				s.check(t, out)
			}
		})
	}

	t.Run("the releaser starts after each command that lets messages through", func(t *testing.T) {
		// close, release, release again (CLOSED all the same) and reset;
		// not status or open.
		assert.Equal(t, []string{"orders", "orders", "orders", "orders"}, f.launcher.Keys())
	})

	t.Run("one log line per command that may change the breaker", func(t *testing.T) {
		type line struct {
			Msg, Breaker, Command, Actor, Reason, From, To string
			Changed                                        bool
			Until                                          time.Time
		}
		var lines []line
		sc := bufio.NewScanner(f.log)
		for sc.Scan() {
			var l line
			require.NoError(t, json.Unmarshal(sc.Bytes(), &l), sc.Text())
			lines = append(lines, l)
		}
		want := []line{
			{"breaker command", "orders", "open", "execution:ops-1", "maintenance", "CLOSED", "FORCED_OPEN", true, until},
			{"breaker command", "orders", "close", "alice", "trust it", "FORCED_OPEN", "FORCED_CLOSED", true, time.Time{}},
			{"breaker command", "orders", "release", "execution:ops-1", "done", "FORCED_CLOSED", "CLOSED", true, time.Time{}},
			{"breaker command", "orders", "release", "execution:ops-1", "retried", "CLOSED", "CLOSED", false, time.Time{}},
			{"breaker command", "orders", "reset", "execution:ops-1", "fixed", "OPEN", "CLOSED", true, time.Time{}},
		}
		assert.Equal(t, want, lines)
	})
}

// A status of a key no breaker has (a typo) says so, with an error of its
// own rather than a CLOSED row at version 0 that looks like a healthy
// breaker; it writes nothing.
func TestStatusOfAKeyNoBreakerHas(t *testing.T) {
	f := newFixture(t, nil)
	f.trip(t, "orders")
	_, err := f.command(t, admin.Request{Command: "status", Breaker: "ordrs"})
	unknown, ok := err.(*admin.UnknownBreaker) // unwrapped: Step Functions sees "UnknownBreaker"
	require.True(t, ok, "error %T %v", err, err)
	assert.Equal(t, &admin.UnknownBreaker{Breaker: "ordrs"}, unknown)
	assert.EqualError(t, err, `admin: no breaker has the key "ordrs": no message has been delivered or failed under it; check the key`)
	row, err := f.breaker.Status(t.Context(), "ordrs")
	require.NoError(t, err)
	assert.Zero(t, row.Version, "status wrote nothing")

	out, err := f.command(t, admin.Request{Command: "status", Breaker: "orders"})
	require.NoError(t, err, "the breaker that is there")
	assert.Equal(t, "OPEN", out.After.State)
}

// Status shows the last trip and the trips since the breaker was made,
// which a close (here a reset) keeps.
func TestStatusShowsTheLastTrip(t *testing.T) {
	f := newFixture(t, nil)
	f.trip(t, "orders")
	tripped := f.clock.Now()
	reset, err := f.command(t, admin.Request{Command: "reset", Breaker: "orders", Reason: "fixed"})
	require.NoError(t, err)
	f.clock.Advance(time.Hour)
	f.trip(t, "orders")
	again := f.clock.Now()

	out, err := f.command(t, admin.Request{Command: "status", Breaker: "orders"})
	require.NoError(t, err)
	assert.Equal(t, int64(2), out.After.TotalTrips)
	assert.Equal(t, again, out.After.LastTripAt)
	assert.Equal(t, "3 consecutive failures", out.After.LastTripCause)
	assert.Equal(t, int64(1), reset.After.TotalTrips, "a reset keeps the count")
	assert.Equal(t, tripped, reset.After.LastTripAt, "and the last trip")
	assert.Zero(t, reset.After.Trips)
}

func TestAnUntilGivenAsADurationCountsFromTheTablesClock(t *testing.T) {
	// Not the caller's: redrive local's clock runs ahead of the wall's.
	f := newFixture(t, nil)
	out, err := f.command(t, admin.Request{Command: "open", Breaker: "orders", Reason: "maintenance", Until: "90m"})
	require.NoError(t, err)
	assert.Equal(t, f.clock.Now().Add(90*time.Minute), out.After.ForcedUntil)
}

func TestInvalidRequests(t *testing.T) {
	f := newFixture(t, nil)
	valid := "want one of status, reset, open, close, release, rule-add, rule-list, rule-remove, replay"
	tests := []struct {
		name  string
		input string // the admin function's event, as JSON
		want  []admin.Problem
	}{
		{"empty request", `{"request": {}, "executionName": "x"}`,
			[]admin.Problem{{"command", "required; " + valid}, {"breaker", `required: the breaker key, e.g. "orders"`}}},
		{"request not an object", `{"request": "reset orders", "executionName": "x"}`,
			[]admin.Problem{{"request", `want a JSON object, e.g. {"command": "status", "breaker": "orders"}`}}},
		{"request null", `{"request": null, "executionName": "x"}`,
			[]admin.Problem{{"request", `want a JSON object, e.g. {"command": "status", "breaker": "orders"}`}}},
		{"unknown command", `{"request": {"command": "restart", "breaker": "orders", "reason": "r"}, "executionName": "x"}`,
			[]admin.Problem{{"command", `unknown command "restart"; ` + valid}}},
		{"command names are exact", `{"request": {"command": "Reset", "breaker": "orders", "reason": "r"}, "executionName": "x"}`,
			[]admin.Problem{{"command", `unknown command "Reset"; ` + valid}}},
		{"no breaker", `{"request": {"command": "status"}, "executionName": "x"}`,
			[]admin.Problem{{"breaker", `required: the breaker key, e.g. "orders"`}}},
		{"breaker with spaces", `{"request": {"command": "status", "breaker": " orders"}, "executionName": "x"}`,
			[]admin.Problem{{"breaker", `breaker key " orders" starts or ends with spaces`}}},
		{"reset without reason", `{"request": {"command": "reset", "breaker": "orders"}, "executionName": "x"}`,
			[]admin.Problem{{"reason", "required for reset: it is kept on the breaker for the audit trail"}}},
		{"release with a blank reason", `{"request": {"command": "release", "breaker": "orders", "reason": "  "}, "executionName": "x"}`,
			[]admin.Problem{{"reason", "required for release: it is kept on the breaker for the audit trail"}}},
		{"until not RFC 3339", `{"request": {"command": "open", "breaker": "orders", "reason": "r", "until": "tomorrow"}, "executionName": "x"}`,
			[]admin.Problem{{"until", `want an RFC 3339 time with a zone, e.g. "2026-01-02T15:04:05Z", or a duration from now, e.g. "30m", not "tomorrow"`}}},
		{"until without a zone", `{"request": {"command": "open", "breaker": "orders", "reason": "r", "until": "2026-01-02T18:00:00"}, "executionName": "x"}`,
			[]admin.Problem{{"until", `want an RFC 3339 time with a zone, e.g. "2026-01-02T15:04:05Z", or a duration from now, e.g. "30m", not "2026-01-02T18:00:00"`}}},
		{"until a negative duration", `{"request": {"command": "open", "breaker": "orders", "reason": "r", "until": "-30m"}, "executionName": "x"}`,
			[]admin.Problem{{"until", `"-30m" is not a positive duration`}}},
		{"until in the past", `{"request": {"command": "close", "breaker": "orders", "reason": "r", "until": "2026-01-02T14:59:59Z"}, "executionName": "x"}`,
			[]admin.Problem{{"until", `"2026-01-02T14:59:59Z" is not in the future (now 2026-01-02T15:00:00Z)`}}},
		{"until now", `{"request": {"command": "open", "breaker": "orders", "reason": "r", "until": "2026-01-02T16:00:00+01:00"}, "executionName": "x"}`,
			[]admin.Problem{{"until", `"2026-01-02T16:00:00+01:00" is not in the future (now 2026-01-02T15:00:00Z)`}}},
		{"until on reset", `{"request": {"command": "reset", "breaker": "orders", "reason": "r", "until": "2026-01-03T00:00:00Z"}, "executionName": "x"}`,
			[]admin.Problem{{"until", "only for open and close"}}},
		{"until on status", `{"request": {"command": "status", "breaker": "orders", "until": "2026-01-03T00:00:00Z"}, "executionName": "x"}`,
			[]admin.Problem{{"until", "only for open and close"}}},
		{"mistyped field", `{"request": {"command": "open", "breaker": "orders", "reason": "r", "untill": "2026-01-03T00:00:00Z"}, "executionName": "x"}`,
			[]admin.Problem{{"untill", "unknown field; want command, breaker, reason, until, actor, rule, id, replay, next, limit"}}},
		{"value not a string", `{"request": {"command": "open", "breaker": "orders", "reason": "r", "until": 3600}, "executionName": "x"}`,
			[]admin.Problem{{"until", "want a string"}}},
		{"a reason over 512 bytes", `{"request": {"command": "open", "breaker": "orders", "reason": "` + strings.Repeat("x", 513) + `"}, "executionName": "x"}`,
			[]admin.Problem{{"reason", "513 bytes, want at most 512"}}},
		{"an actor over 512 bytes", `{"request": {"command": "reset", "breaker": "orders", "reason": "r", "actor": "` + strings.Repeat("a", 600) + `"}, "executionName": "x"}`,
			[]admin.Problem{{"actor", "600 bytes, want at most 512"}}},
		{"no actor and no execution name", `{"request": {"command": "reset", "breaker": "orders", "reason": "r"}}`,
			[]admin.Problem{{"actor", "required when the input has no executionName to default it from"}}},
		{"every problem at once", `{"request": {"command": "open", "until": "soon", "extra": true}, "executionName": "x"}`,
			[]admin.Problem{
				{"extra", "unknown field; want command, breaker, reason, until, actor, rule, id, replay, next, limit"},
				{"breaker", `required: the breaker key, e.g. "orders"`},
				{"reason", "required for open: it is kept on the breaker for the audit trail"},
				{"until", `want an RFC 3339 time with a zone, e.g. "2026-01-02T15:04:05Z", or a duration from now, e.g. "30m", not "soon"`},
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var in admin.Input
			require.NoError(t, json.Unmarshal([]byte(tt.input), &in), "a bad request still decodes")
			_, err := f.handler.Handle(t.Context(), in)
			require.Error(t, err)
			invalid, ok := err.(*admin.InvalidCommand) // unwrapped: the ASL sees its type name
			require.True(t, ok, "error %T %v", err, err)
			assert.Equal(t, tt.want, invalid.Problems)
			assert.Contains(t, err.Error(), "admin: invalid request: "+tt.want[0].String())
		})
	}
	row, err := f.breaker.Status(t.Context(), "orders")
	require.NoError(t, err)
	assert.Zero(t, row.Version, "no invalid request wrote anything")
	assert.Zero(t, f.log.Len(), "nothing was logged")
}

// contendedStore lets another writer win every conditional write: before
// passing a Save on, it really writes the row itself, so the Save fails
// its condition in DynamoDB.
type contendedStore struct{ breaker.Store }

func (s contendedStore) Save(ctx context.Context, prev int64, next breaker.Row) error {
	cur, err := s.Store.Load(ctx, next.Key)
	if err != nil {
		return err
	}
	cur.Version++
	if err := s.Store.Save(ctx, cur.Version-1, cur); err != nil {
		return err
	}
	return s.Store.Save(ctx, prev, next)
}

// brokenStore fails every Load, as DynamoDB does when unreachable.
type brokenStore struct{ breaker.Store }

func (brokenStore) Load(context.Context, string) (breaker.Row, error) {
	return breaker.Row{}, errors.New("dial tcp: connection refused")
}

func TestStoreFailures(t *testing.T) {
	t.Run("exhausted conflicts are BreakerContention, unwrapped", func(t *testing.T) {
		f := newFixture(t, func(s breaker.Store) breaker.Store { return contendedStore{s} })
		_, err := f.command(t, admin.Request{Command: "open", Breaker: "orders", Reason: "r"})
		require.Error(t, err)
		c, ok := err.(*retryable.BreakerContention)
		require.True(t, ok, "error %T %v", err, err)
		assert.Equal(t, &retryable.BreakerContention{Breaker: "orders", Op: "open", Attempts: 3}, c)
		assert.Zero(t, f.log.Len(), "nothing changed, nothing logged")
	})
	for _, req := range []admin.Request{
		{Command: "status", Breaker: "orders"},
		{Command: "reset", Breaker: "orders", Reason: "r"},
	} {
		t.Run("an unreachable table fails "+req.Command+" with context", func(t *testing.T) {
			f := newFixture(t, func(s breaker.Store) breaker.Store { return brokenStore{s} })
			_, err := f.command(t, req)
			require.Error(t, err)
			assert.ErrorContains(t, err, `admin: `+req.Command+` breaker "orders": `)
			assert.ErrorContains(t, err, "connection refused")
			assert.NotErrorAs(t, err, new(*admin.InvalidCommand))
			assert.NotErrorAs(t, err, new(*retryable.BreakerContention))
		})
	}
}

func TestIncompleteHandlerFailsClearly(t *testing.T) {
	var h admin.Handler
	_, err := h.Handle(t.Context(), admin.Input{Request: admin.Request{Command: "status", Breaker: "orders"}})
	assert.EqualError(t, err, "admin: handler needs a Breaker, a Logger and a clock (use New)")
	_, named := err.(*retryable.Unexpected) // Step Functions sees "Unexpected", not "errorString"
	assert.True(t, named, "error %T", err)
}

// A row a newer version wrote (an unknown state) or a corrupt one: status
// shows it as stored, reset replaces it (audited), so it can be repaired
// without a person editing the table.
func TestARowThatDoesNotDecodeIsShownAndReset(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.client.PutItem(t.Context(), &dynamodb.PutItemInput{TableName: aws.String(f.table), Item: map[string]types.AttributeValue{
		"pk": &types.AttributeValueMemberS{Value: dynamo.BreakerPrefix + "orders"}, "state": &types.AttributeValueMemberS{Value: "AJAR"},
		"version": &types.AttributeValueMemberN{Value: "12"},
	}})
	require.NoError(t, err)

	status, err := f.command(t, admin.Request{Command: "status", Breaker: "orders"})
	require.NoError(t, err, "status shows an unreadable row instead of failing")
	assert.Contains(t, status.Unreadable, `unknown state "AJAR"`)
	assert.Equal(t, map[string]any{"S": "AJAR"}, status.Raw["state"])
	assert.False(t, status.Changed)

	out, err := f.command(t, admin.Request{Command: "reset", Breaker: "orders", Reason: "row written by a newer version", Actor: "alice"})
	require.NoError(t, err)
	assert.True(t, out.Changed)
	assert.Equal(t, "CLOSED", out.After.State)
	assert.Equal(t, int64(13), out.After.Version)
	assert.Equal(t, "alice", out.After.Actor)
	assert.Equal(t, map[string]any{"N": "12"}, out.Raw["version"], "the output keeps what was replaced")
	assert.Contains(t, f.log.String(), "replaced a breaker row that did not decode")
	assert.Equal(t, []string{"orders"}, f.launcher.Keys(), "the room held behind it is released")

	row, err := f.breaker.Status(t.Context(), "orders")
	require.NoError(t, err, "readable again")
	assert.Equal(t, breaker.Closed, row.State)
}

// A releaser that cannot start does not fail the command: the output
// says so, so that the operator runs it again.
func TestAReleaserThatCannotStartIsANote(t *testing.T) {
	f := newFixture(t, nil)
	f.trip(t, "orders")
	f.launcher.Err = assert.AnError
	out, err := f.command(t, admin.Request{Command: "reset", Breaker: "orders", Reason: "target fixed", Actor: "alice"})
	require.NoError(t, err)
	assert.Equal(t, "CLOSED", out.After.State)
	require.Len(t, out.Notes, 1)
	assert.Contains(t, out.Notes[0], "the breaker's controller could not be started")
	assert.Contains(t, out.Notes[0], "run the command again")
	assert.Contains(t, f.log.String(), "could not start the breaker's controller")
}
