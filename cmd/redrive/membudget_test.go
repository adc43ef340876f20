package main

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]uint64{
		"6GB": 6 << 30, "6gib": 6 << 30, "1.5G": 3 << 29, "800MB": 800 << 20, "512KiB": 512 << 10, "1024": 1024, "2TB": 2 << 40,
	} {
		got, err := parseBytes(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	for _, bad := range []string{"", "GB", "-1GB", "six", "0"} {
		_, err := parseBytes(bad)
		assert.Error(t, err, bad)
	}
}

func TestMemoryBudgetDefaultsToAShareOfTheMachine(t *testing.T) {
	budget, err := memoryBudget("")
	require.NoError(t, err)
	if total := machineMemory(); total > 0 {
		assert.InDelta(t, float64(total)*memoryShare, float64(budget), 1)
	}
	budget, err = memoryBudget("2GB")
	require.NoError(t, err)
	assert.Equal(t, uint64(2<<30), budget)
}

// TestRunStopsAtTheMemoryBudget gives a run less memory than the process
// already holds: it stops at once with a message that names the budget
// and shows the progress so far, rather than being killed.
func TestRunStopsAtTheMemoryBudget(t *testing.T) {
	dir := t.TempDir()
	code, stdout, stderr := runCmd(t, "-scenario", writeTiny(t, dir), "-report", filepath.Join(dir, "r.html"), "-max-memory", "1MB")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "redrive run: stopped: the run was about to use more memory than its budget")
	assert.Contains(t, stderr, "-max-memory 1 MB")
	assert.Contains(t, stderr, "So far:")
	assert.NotContains(t, stdout, "Report:", "no report for a stopped run")

	code, _, stderr = runCmd(t, "-scenario", writeTiny(t, dir), "-max-memory", "lots")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `-max-memory "lots"`)
}

func TestGCMeterMeasuresOverAWindow(t *testing.T) {
	var m gcMeter
	start := time.Now()
	_, measured := m.share(start)
	assert.False(t, measured, "no window yet")
	_, measured = m.share(start.Add(gcWindow / 2))
	assert.False(t, measured)
	share, measured := m.share(start.Add(gcWindow))
	if measured { // the process may not have used CPU time between the reads
		assert.GreaterOrEqual(t, share, 0.0)
		assert.LessOrEqual(t, share, 1.0)
	}
	m.share(start.Add(3 * gcWindow))
	assert.LessOrEqual(t, len(m.marks), 2, "marks older than the window are dropped")
}
