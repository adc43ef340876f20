package attempt_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
	"github.com/redrive/redrive/delivery/target"
)

// TestGoldenEvents runs each testdata/<name>.input.json event (the
// execution document as the state machine passes it) through the handler,
// with the target answering results[name], and compares the result with
// <name>.output.json. The clock stands at t0, 2026-05-04T10:00:00Z.
func TestGoldenEvents(t *testing.T) {
	results := map[string]target.Result{
		"delivered": target.Delivered(),
		"transient": {Outcome: breaker.Transient, ErrorType: "Runtime.ExitError", Message: "RequestId: 1 Error: Runtime exited with error: exit status 2"},
		"poison":    {Outcome: breaker.Poison, ErrorType: "ValidationError", Message: "order 42: customer is required"},
		"backoff":   {Outcome: breaker.Transient, ErrorType: "Runtime.ExitError", Message: "RequestId: 1 Error: Runtime exited with error: exit status 2"},
	}
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.input.json"))
	require.NoError(t, err)
	require.Len(t, inputs, len(results))
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".input.json")
		t.Run(name, func(t *testing.T) {
			result, ok := results[name]
			require.True(t, ok, "no target result for %s", name)
			f := newFixture(t, options{policy: neverTrips, config: testConfig}, result)
			event, err := os.ReadFile(input)
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join("testdata", name+".output.json"))
			require.NoError(t, err)

			out, err := f.handler.Handle(t.Context(), event)
			require.NoError(t, err)
			got, err := json.Marshal(out)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
}
