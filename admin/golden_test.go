package admin_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
)

// TestGoldenEvents runs each testdata/<name>.input.json event through the
// handler and compares the result with <name>.output.json. setup prepares
// the breaker a case needs; a case without one starts from no row.
func TestGoldenEvents(t *testing.T) {
	setup := map[string]func(t *testing.T, f fixture){
		"reset-tripped":  func(t *testing.T, f fixture) { f.trip(t, "orders") },
		"status-tripped": func(t *testing.T, f fixture) { f.trip(t, "orders") },
	}
	inputs, err := filepath.Glob(filepath.Join("testdata", "*.input.json"))
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, input := range inputs {
		name := strings.TrimSuffix(filepath.Base(input), ".input.json")
		t.Run(name, func(t *testing.T) {
			f := newFixture(t, nil)
			if prepare, ok := setup[name]; ok {
				prepare(t, f)
			}
			event, err := os.ReadFile(input)
			require.NoError(t, err)
			want, err := os.ReadFile(filepath.Join("testdata", name+".output.json"))
			require.NoError(t, err)
			var in admin.Input
			require.NoError(t, json.Unmarshal(event, &in))
			out, err := f.handler.Handle(t.Context(), in)
			require.NoError(t, err)
			got, err := json.Marshal(out)
			require.NoError(t, err)
			assert.JSONEq(t, string(want), string(got))
		})
	}
}
