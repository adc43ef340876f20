package asl

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/asl/asltest"
)

// taskState parses a definition of one Task state S, with extra fields,
// and the extra states, and returns S.
func taskState(t *testing.T, extra string, states ...string) *State {
	t.Helper()
	d, err := Parse(asltest.Wrap(`{"Type":"Task",`+okTask+extra+`}`, states...))
	require.NoError(t, err)
	return d.StartAt()
}

// TestRetryFirstMatchDecides is AWS's "Complex retry scenarios": ErrorA,
// ErrorB, ErrorC, ErrorB wait 1, 2 and 5 seconds, and the fourth error is
// not retried, as the first retrier's MaxAttempts of 2 is used up.
func TestRetryFirstMatchDecides(t *testing.T) {
	st := taskState(t, `,"End":true,"Retry":[
		{"ErrorEquals":["ErrorA","ErrorB"],"IntervalSeconds":1,"BackoffRate":2,"MaxAttempts":2},
		{"ErrorEquals":["ErrorC"],"IntervalSeconds":5}]`)
	require.Equal(t, 2, st.NumRetriers())
	used := make([]int, st.NumRetriers())
	draws := 0
	random := func() float64 { draws++; return 0.5 }
	var waits []time.Duration
	for _, name := range []string{"ErrorA", "ErrorB", "ErrorC"} {
		wait, ok := st.Retry(name, used, random)
		require.True(t, ok, name)
		waits = append(waits, wait)
	}
	assert.Equal(t, []time.Duration{time.Second, 2 * time.Second, 5 * time.Second}, waits)
	_, ok := st.Retry("ErrorB", used, random)
	assert.False(t, ok, "the first retrier's attempts are used up")
	_, ok = st.Retry("ErrorD", used, random)
	assert.False(t, ok, "no retrier matches")
	_, ok = st.Retry(StatesRuntime, used, random)
	assert.False(t, ok, "States.Runtime is never retried")
	assert.Equal(t, []int{2, 1}, used)
	assert.Equal(t, 3, draws, "one draw per retry granted")
}

func TestCatch(t *testing.T) {
	st := taskState(t, `,"End":true,"Catch":[
		{"ErrorEquals":["States.Timeout"],"ResultPath":"$.error","Next":"Caught"},
		{"ErrorEquals":["States.ALL"],"ResultPath":null,"Next":"Caught"}]`, `"Caught":{"Type":"Succeed"}`)
	input := map[string]any{"a": int64(1)}

	out, next, err := st.Catch(StatesHeartbeatTimeout, "", input)
	require.NoError(t, err)
	require.NotNil(t, next)
	assert.Equal(t, "Caught", next.Name())
	assert.Equal(t, map[string]any{"a": int64(1), "error": map[string]any{"Error": StatesTimeout}}, out,
		"a missed heartbeat is caught as, and reported as, States.Timeout")

	out, next, err = st.Catch("Boom", "why", input)
	require.NoError(t, err)
	assert.Equal(t, "Caught", next.Name())
	assert.Equal(t, input, out, "ResultPath null keeps the input")

	_, next, err = st.Catch(StatesRuntime, "", input)
	require.NoError(t, err)
	assert.Nil(t, next, "States.Runtime is never caught")
	assert.Equal(t, StatesTimeout, Reported(StatesHeartbeatTimeout))
	assert.Equal(t, "Boom", Reported("Boom"))
}
