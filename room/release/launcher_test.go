package release_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/room/pace"
	"github.com/redrive/redrive/room/release"
)

func TestEnsureStartsOneControllerPerLease(t *testing.T) {
	f := newFixture(t)
	l := f.handler.Launcher

	started, err := l.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, started)
	started, err = l.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.False(t, started, "a live controller holds the lease")
	require.Equal(t, []string{"release-orders-a1"}, f.controllers())
	var in release.Input
	require.NoError(t, json.Unmarshal([]byte(f.sfn.InputsOn(releaseARN)[0]), &in))
	assert.Equal(t, release.Input{BreakerKey: key, Epoch: 1}, in)

	f.clock.Advance(time.Minute)
	started, err = l.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, started, "the lease expired: a controller that died is replaced")
	assert.Equal(t, []string{"release-orders-a1", "release-orders-a2"}, f.controllers())
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
	assert.ErrorContains(t, err, `release: start the controller of "orders" epoch 1 (its lease given back)`)

	// The lease was given back: the next entry starts a controller at
	// once, not a lease later.
	f.handler.Launcher.SFN = f.sfn
	started, err = f.handler.Launcher.Ensure(t.Context(), key)
	require.NoError(t, err)
	assert.True(t, started)
	assert.Equal(t, []string{"release-orders-a2"}, f.controllers())
}

// Ensure notes the entry even when a controller runs, so that controller
// does not stop on a look at the room that may not show it.
func TestEnsureNotesTheEntryForTheRunningController(t *testing.T) {
	f := newFixture(t)
	l := f.handler.Launcher
	_, err := l.Ensure(t.Context(), key)
	require.NoError(t, err)
	f.clock.Advance(30 * time.Second)
	started, err := l.Ensure(t.Context(), key)
	require.NoError(t, err)
	require.False(t, started)

	quit, _, err := f.pace.Quit(t.Context(), key, 1, f.clock.Now().Add(-5*time.Second))
	require.NoError(t, err)
	assert.False(t, quit, "the second entry is recent")
	quit, _, err = f.pace.Quit(t.Context(), key, 1, f.clock.Now().Add(pace.EntryNoteAhead).Add(time.Millisecond))
	require.NoError(t, err)
	assert.True(t, quit)
}

// Many messages entering an idle room at once start one controller.
func TestEnsureStartsOneControllerUnderConcurrentEntries(t *testing.T) {
	f := newFixture(t)
	var wg sync.WaitGroup
	var started atomic.Int32
	for range 16 {
		wg.Go(func() {
			ok, err := f.handler.Launcher.Ensure(context.Background(), key)
			if assert.NoError(t, err) && ok {
				started.Add(1)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, int32(1), started.Load())
	assert.Equal(t, []string{"release-orders-a1"}, f.controllers())
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

// A room whose controller could not be started is on the stalled-rooms
// list; a sweep starts its controller and takes it off, and a sweep that
// cannot start one leaves it there for the next.
func TestSweepStartsTheControllersThatCouldNotBeStarted(t *testing.T) {
	f := newFixture(t)
	l := f.handler.Launcher
	l.SFN = failingStart{}
	_, err := l.Ensure(t.Context(), key)
	require.ErrorIs(t, err, errStart)
	_, err = l.Ensure(t.Context(), "billing")
	require.ErrorIs(t, err, errStart)
	stalled, err := f.pace.Stalled(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{"billing", key}, stalled, "both rooms wait for a controller nobody started")

	out, err := f.handler.Handle(t.Context(), release.Input{Sweep: true})
	require.ErrorIs(t, err, errStart, "Step Functions still refuses: the sweep fails")
	assert.Equal(t, &release.Swept{Failed: []string{"billing", key}}, out.Swept)
	assert.True(t, out.Done)
	stalled, err = f.pace.Stalled(t.Context())
	require.NoError(t, err)
	assert.Len(t, stalled, 2, "still stalled: the next sweep tries again")

	l.SFN = f.sfn
	_, err = l.Ensure(t.Context(), "billing") // an entry starts billing's controller itself
	require.NoError(t, err)
	out, err = f.handler.Handle(t.Context(), release.Input{Sweep: true})
	require.NoError(t, err)
	assert.Equal(t, &release.Swept{Started: []string{key}, Running: []string{"billing"}}, out.Swept)
	assert.ElementsMatch(t, []string{"release-billing-a3", "release-orders-a3"}, f.controllers(), "epochs 1 and 2 failed to start")
	stalled, err = f.pace.Stalled(t.Context())
	require.NoError(t, err)
	assert.Empty(t, stalled, "every stalled room has its controller")

	out, err = f.handler.Handle(t.Context(), release.Input{Sweep: true})
	require.NoError(t, err)
	assert.Equal(t, &release.Swept{}, out.Swept, "nothing on the list: nothing to do")
}
