package attempt_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/message"
)

func TestMalformedDocumentIsInvalidDocument(t *testing.T) {
	f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
	valid := `"message":{"messageId":"m-1","body":"{}"},"attempt":1,"breakerKey":"orders","receivedAt":"2026-05-04T09:59:00Z"`
	tests := []struct {
		name      string
		event     string
		wantField string
	}{
		{"not JSON", `{"message":`, "not a JSON document"},
		{"not an object", `"m-1"`, "not a JSON document"},
		{"origin id missing", `{` + valid + `}`, `"originId"`},
		{"attempt of the wrong type", `{` + valid + `,"originId":"m-1","attempt":"one"}`, `"attempt"`},
		{"attempt zero", `{` + valid + `,"originId":"m-1","attempt":0}`, `"attempt"`},
		{"receivedAt not a time", `{` + valid + `,"originId":"m-1","receivedAt":"yesterday"}`, `"receivedAt"`},
		{"unknown next", `{` + valid + `,"originId":"m-1","next":"RETRY"}`, `"next"`},
		{"negative tries", `{` + valid + `,"originId":"m-1","tries":-1}`, `"tries"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := f.handler.Handle(t.Context(), json.RawMessage(tt.event))
			require.Error(t, err)
			invalid, ok := err.(*attempt.InvalidDocument) // unwrapped: the ASL catches it by name
			require.True(t, ok, "error %T %v", err, err)
			assert.ErrorIs(t, invalid, message.ErrInvalidDocument)
			assert.Contains(t, invalid.Error(), "attempt: invalid execution document: ")
			assert.Contains(t, invalid.Error(), tt.wantField)
		})
	}
	assert.Zero(t, f.target.calls())
	assert.Zero(t, f.row(t, "orders").Version, "the breaker was not asked")
}

// TestNewRefusesAMisconfiguredHandler builds handlers that lack a
// dependency or their Config's defaults: New names what is missing, so
// the function fails at its cold start, before any message is taken.
func TestNewRefusesAMisconfiguredHandler(t *testing.T) {
	tests := []struct {
		name   string
		change func(h *attempt.Handler)
		want   string
	}{
		{"no dependencies", func(h *attempt.Handler) { *h = attempt.Handler{} },
			"attempt: handler is missing [Breaker Ledger Target Metrics Logger Clock Rand Launcher]"},
		{"no ledger", func(h *attempt.Handler) { h.Ledger = nil }, "attempt: handler is missing [Ledger]"},
		{"no launcher", func(h *attempt.Handler) { h.Launcher = nil }, "attempt: handler is missing [Launcher]"},
		{"config without its defaults", func(h *attempt.Handler) { h.Config.BackoffBase = 0 },
			"attempt: handler's Config lacks its defaults (use Config.WithDefaults)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, options{policy: tripping, config: testConfig}, target.Delivered())
			h := *f.handler
			tt.change(&h)
			built, err := attempt.New(h)
			assert.EqualError(t, err, tt.want)
			assert.Nil(t, built)
		})
	}
}
