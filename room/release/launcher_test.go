package release_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room/release"
)

func TestEnsureStartsOneReleaserPerLease(t *testing.T) {
	f := newFixture(t)
	l := f.handler.Launcher

	started, err := l.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, started)
	started, err = l.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.False(t, started, "a live releaser holds the lease")
	require.Equal(t, []string{"release-orders-a1"}, f.sfn.Started())
	var in release.Input
	require.NoError(t, json.Unmarshal([]byte(f.sfn.Inputs()[0]), &in))
	assert.Equal(t, release.Input{BreakerKey: key, Epoch: 1}, in)

	f.clock.Advance(time.Minute)
	started, err = l.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, started, "the lease expired: a releaser that died is replaced")
	assert.Equal(t, []string{"release-orders-a1", "release-orders-a2"}, f.sfn.Started())
}

func TestEnsureOfAnExecutionThatExistsStartsNothing(t *testing.T) {
	f := newFixture(t)
	_, err := f.sfn.StartExecution(t.Context(), startOf("release-orders-a1"))
	require.NoError(t, err)
	started, err := f.handler.Launcher.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.False(t, started)
}

func TestEnsureReportsAFailedStart(t *testing.T) {
	f := newFixture(t)
	f.handler.Launcher.SFN = failingStart{}
	started, err := f.handler.Launcher.Ensure(t.Context(), key)
	assert.False(t, started)
	assert.ErrorIs(t, err, errStart)
	assert.ErrorContains(t, err, `release: start releaser of "orders" epoch 1 (its lease expires in 1m0s)`)
}

func TestExecutionName(t *testing.T) {
	assert.Equal(t, "release-orders-a3", release.ExecutionName("orders", 3))
	long := release.ExecutionName("tenant/"+strings.Repeat("x", 100), 12)
	assert.LessOrEqual(t, len(long), 80)
	assert.True(t, strings.HasSuffix(long, "-a12"), long)
	assert.NotEqual(t, long, release.ExecutionName("tenant/"+strings.Repeat("x", 101), 12))
}

// errStart is failingStart's error.
var errStart = errors.New("states is down")
