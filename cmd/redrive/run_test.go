package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// smallScenario is a scenario file that plays in a few seconds.
const smallScenario = `
name: tiny
description: 30 messages of 2 tenants through a 5-minute outage
horizon: 1h
messages: {count: 30, start: 30s, rate: 1, poison: 0.1, tenants: 2}
target:
  capacity: 5
  health:
    - {at: 30s, state: down}
    - {at: 5m30s, state: healthy}
breaker: {cooldown_max: 2m}
bulk: {every: 3m, rate: 10}
`

// runCmd runs `redrive run args...` and returns its exit code and output.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := dispatch(context.Background(), append([]string{"run"}, args...), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

func TestRunPlaysAScenario(t *testing.T) {
	dir := t.TempDir()
	scenario := writeTiny(t, dir)
	report := filepath.Join(dir, "out.html")

	code, stdout, stderr := runCmd(t, "-scenario", scenario, "-report", report, "-progress")
	require.Equal(t, exitOK, code, "stderr: %s", stderr)
	assert.Contains(t, stdout, `scenario "tiny"`)
	assert.Regexp(t, `(?m)^0:0\d:\d\d  redrive  breaker tenant-0[12] +CLOSED -> OPEN \(`, stdout, "a live line per state change")
	assert.Regexp(t, `(?m)^\s+redrive\s+naive backoff\s+bulk move\s*$`, stdout, "the table's header")
	assert.Regexp(t, `(?m)^messages lost\s+0\s+0\s+0\s*$`, stdout)
	assert.Contains(t, stdout, "Report: "+report)
	assert.Contains(t, stderr, "redrive [", "the progress bar, forced by -progress")

	page, err := os.ReadFile(report)
	require.NoError(t, err)
	assert.Contains(t, string(page), `<body data-status="loading">`)
	assert.Contains(t, string(page), "Redrive simulation: tiny")
}

func TestRunWritesTheFiguresAsJSON(t *testing.T) {
	dir := t.TempDir()
	figures := filepath.Join(dir, "figures.json")
	code, stdout, stderr := runCmd(t, "-scenario", writeTiny(t, dir), "-report", filepath.Join(dir, "r.html"), "-json", figures)
	require.Equal(t, exitOK, code, "stderr: %s", stderr)
	assert.Contains(t, stdout, "Figures: "+figures)

	data, err := os.ReadFile(figures)
	require.NoError(t, err)
	var doc struct {
		Scenario struct {
			Name string `json:"name"`
			Seed int64  `json:"seed"`
		} `json:"scenario"`
		Strategies []struct {
			Strategy  string `json:"strategy"`
			Delivered int    `json:"delivered"`
			Lost      int    `json:"lost"`
		} `json:"strategies"`
	}
	require.NoError(t, json.Unmarshal(data, &doc))
	assert.Equal(t, "tiny", doc.Scenario.Name)
	assert.EqualValues(t, 1, doc.Scenario.Seed)
	require.Len(t, doc.Strategies, 3)
	for i, name := range []string{"redrive", "naive backoff", "bulk move"} {
		assert.Equal(t, name, doc.Strategies[i].Strategy)
		assert.Zero(t, doc.Strategies[i].Lost)
		assert.Regexp(t, fmt.Sprintf(`(?m)^messages delivered(\s+[\d,]+){%d}\s+%d\b`, i, doc.Strategies[i].Delivered), stdout, "the table's figure")
	}
}

func TestRunWithoutTerminalDrawsNoBar(t *testing.T) {
	dir := t.TempDir()
	code, _, stderr := runCmd(t, "-scenario", writeTiny(t, dir), "-report", filepath.Join(dir, "r.html"))
	require.Equal(t, exitOK, code, stderr)
	assert.Empty(t, stderr)
}

func TestRunRejectsBadInput(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("target: {capacity: 0}\n"), 0o644))
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"invalid field", []string{"-scenario", bad}, exitUsage, bad + ": target.capacity: must be > 0"},
		{"missing file", []string{"-scenario", filepath.Join(dir, "none.yaml")}, exitUsage, "redrive run: -scenario " + filepath.Join(dir, "none.yaml") + ": no such file"},
		{"unknown flag", []string{"-fast"}, exitUsage, "flag provided but not defined: -fast"},
		{"stray argument", []string{"scenarios/default.yaml"}, exitUsage, `unexpected argument "scenarios/default.yaml"`},
		{"unwritable report", []string{"-scenario", writeTiny(t, dir), "-report", filepath.Join(dir, "no", "such", "dir.html")}, exitFailure, "redrive run: report:"},
		{"unwritable figures", []string{"-scenario", writeTiny(t, dir), "-report", filepath.Join(dir, "r.html"), "-json", filepath.Join(dir, "no", "such", "dir.json")}, exitFailure, "redrive run: figures:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := runCmd(t, tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

func TestRunHelp(t *testing.T) {
	code, _, stderr := runCmd(t, "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stderr, "Usage: redrive run [flags]")
	assert.Contains(t, stderr, "-scenario")
}

// writeTiny writes the small scenario into dir and returns its path.
func writeTiny(t *testing.T, dir string) string {
	t.Helper()
	path := filepath.Join(dir, "tiny.yaml")
	require.NoError(t, os.WriteFile(path, []byte(smallScenario), 0o644))
	return path
}
