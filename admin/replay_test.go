package admin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/redrive/redrive/admin"
)

// The replay command's own problems, every one named; test/ runs it on a
// parking lot.
func TestInvalidReplayCommands(t *testing.T) {
	f := newFixture(t, nil)
	tests := []struct {
		name    string
		request string
		want    []admin.Problem
	}{
		{
			"no options, a breaker",
			`{"command": "replay", "breaker": "orders"}`,
			[]admin.Problem{
				{Field: "breaker", Problem: `not for replay (its options go in "replay")`},
				{Field: "replay", Problem: `required: e.g. {"filter": {"reason": "exhausted"}, "dryRun": true}`},
			},
		},
		{
			"a mistyped option",
			`{"command": "replay", "replay": {"filtre": {}}}`,
			[]admin.Problem{{Field: "replay", Problem: `want an object such as {"filter": {"reason": "exhausted", "since": "2026-01-02T15:04:05Z"}, "dryRun": true}: json: unknown field "filtre"`}},
		},
		{
			"a dry run cannot resume",
			`{"command": "replay", "replay": {"id": "r-1", "resume": true, "dryRun": true}}`,
			[]admin.Problem{{Field: "replay", Problem: "a dry run cannot resume a replay"}},
		},
		{
			"a bad body field",
			`{"command": "replay", "replay": {"filter": {"body": ["tenant=acme"]}}}`,
			[]admin.Problem{{Field: "replay", Problem: `want an object such as {"filter": {"reason": "exhausted", "since": "2026-01-02T15:04:05Z"}, "dryRun": true}: body field "tenant=acme": JSON pointer "tenant" must start with "/"`}},
		},
		{
			"replay options on a breaker command",
			`{"command": "status", "breaker": "orders", "replay": {}}`,
			[]admin.Problem{{Field: "replay", Problem: "only for replay"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, f.problemsOf(t, tt.request))
		})
	}

	_, err := f.command(t, admin.Request{Command: admin.CommandReplay, Replay: &admin.ReplayRequest{DryRun: true}})
	assert.ErrorContains(t, err, "not configured: set PARKING_LOT_URL and DLQ_URL")
}
