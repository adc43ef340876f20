package attempt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/delivery"
	"github.com/redrive/redrive/delivery/target"
	"github.com/redrive/redrive/message"
)

func TestContinuesAfterMaxCycles(t *testing.T) {
	cfg := testConfig
	cfg.MaxCycles = 3
	f := newFixture(t, options{policy: tripping, config: cfg}, target.Delivered())
	doc := newDocument("orders")
	doc.Cycles = 2

	out, err := f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextDone, out.Next, "cycle 3 of 3 still attempts")

	doc.Cycles = 3
	out, err = f.run(t, doc)
	require.NoError(t, err)
	assert.Equal(t, message.NextContinue, out.Next)
	assert.Equal(t, 4, out.Cycles)
	assert.Empty(t, out.Decision, "the breaker is not asked")
	assert.Empty(t, out.Outcome)
	assert.Equal(t, 1, f.target.calls())
	_, found, err := f.ledger.Get(t.Context(), delivery.ID{OriginID: "m-1", Attempt: 1, Try: 2})
	require.NoError(t, err)
	assert.False(t, found, "no delivery was begun")
}
