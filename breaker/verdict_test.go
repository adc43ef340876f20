package breaker_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

func TestVerdictAndOutcomeJSON(t *testing.T) {
	type output struct {
		Verdict breaker.Verdict
		Outcome breaker.Outcome
	}
	b, err := json.Marshal(output{breaker.Canary, breaker.Poison})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Verdict":"CANARY","Outcome":"POISON"}`, string(b))
	b, err = json.Marshal(output{breaker.Queue, breaker.Throttled})
	require.NoError(t, err)
	assert.JSONEq(t, `{"Verdict":"QUEUE","Outcome":"THROTTLED"}`, string(b))

	var back output
	require.NoError(t, json.Unmarshal([]byte(`{"Outcome":"transient"}`), &back))
	assert.Equal(t, breaker.Transient, back.Outcome)
	require.NoError(t, json.Unmarshal([]byte(`{"Outcome":"THROTTLED"}`), &back))
	assert.Equal(t, breaker.Throttled, back.Outcome)

	cases := []struct {
		name string
		call func() error
		msg  string
	}{
		{"undefined verdict", func() error { _, err := json.Marshal(output{Verdict: 0, Outcome: breaker.Success}); return err }, "breaker: invalid verdict 0"},
		{"undefined outcome", func() error { _, err := json.Marshal(output{Verdict: breaker.Wait}); return err }, "breaker: invalid outcome 0"},
		{"unknown outcome name", func() error { return json.Unmarshal([]byte(`{"Outcome":"meh"}`), &back) }, `breaker: unknown outcome "meh"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.call()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.msg)
		})
	}
}
