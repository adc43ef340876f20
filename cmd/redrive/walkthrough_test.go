package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/breaker"
)

// walkthroughBlocks are the README's walkthrough: the `redrive local`
// command line of the first shell, and the block the second shell runs.
func walkthroughBlocks(t *testing.T) (localArgs []string, script string) {
	t.Helper()
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	text := string(readme)
	_, walkthrough, ok := strings.Cut(text, "### Walkthrough")
	require.True(t, ok, "README.md has a Walkthrough section")
	line := regexp.MustCompile("(?m)^redrive local (.*)$").FindStringSubmatch(walkthrough)
	require.NotNil(t, line, "the walkthrough starts redrive local")
	_, block, ok := strings.Cut(walkthrough, "<!-- walkthrough -->\n```bash\n")
	require.True(t, ok, "the walkthrough's second shell is marked <!-- walkthrough -->")
	block, _, ok = strings.Cut(block, "```")
	require.True(t, ok)
	return strings.Fields(line[1]), block
}

// TestREADMEWalkthrough follows README.md's local walkthrough with the
// real AWS CLI: redrive local with the README's flags (on free ports),
// then the second shell's block, copied from the README and run by bash,
// with `redrive` on PATH as `make install` puts it. The outage trips the
// breaker and a probe closes it; every message is delivered once; the
// poison one is parked, found by `redrive parked`, sent back by `redrive
// replay` after a dry run, and parked again by a quarantine rule.
func TestREADMEWalkthrough(t *testing.T) {
	for _, tool := range []string{"aws", "bash"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not on PATH: the walkthrough needs it", tool)
		}
	}
	args, script := walkthroughBlocks(t)
	tmp := t.TempDir()
	gopath := filepath.Join(tmp, "gopath")
	build := exec.Command("go", "build", "-o", filepath.Join(gopath, "bin", "redrive"), ".")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)

	s, _ := serveLocal(t, append(args, "--config-dir", filepath.Join(tmp, "redrive-local"))...)
	bash := exec.Command("bash", "-eo", "pipefail", "-c", script)
	bash.Env = append(os.Environ(), "TMPDIR="+tmp, "GOPATH="+gopath, "HOME="+tmp, "USER=alice")
	var stdout, stderr bytes.Buffer
	bash.Stdout, bash.Stderr = &stdout, &stderr
	err = bash.Run()
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	require.NoError(t, err, "the walkthrough block fails copy-pasted")

	var opened, closed bool
	for _, c := range s.BreakerChanges() {
		opened = opened || c.To == breaker.Open
		closed = closed || (opened && c.To == breaker.Closed)
	}
	assert.True(t, opened && closed, "the outage tripped the breaker and a probe closed it: %v", s.BreakerChanges())
	deliveries := s.Target.Ledger().Deliveries()
	assert.Len(t, deliveries, 8, "every order delivered")
	for id, n := range deliveries {
		assert.Equal(t, 1, n, "once: %s", id)
	}
	got := stdout.String()
	assert.GreaterOrEqual(t, strings.Count(got, "\tSUCCEEDED"), 9, "an Express execution per delivery try: at least one per order")
	assert.NotRegexp(t, `\t(RUNNING|FAILED|TIMED_OUT|ABORTED)\n`, got, "every execution ended, and well")
	assert.Regexp(t, `(?m)^CLOSED\t0\t[1-9]\d*\t\S+Z\t(\d+ consecutive failures|the probe failed; opened by consecutive-failures)$`, got,
		"the breaker row, read with get-item: closed again, and when and why it last tripped, and how often")
	assert.Regexp(t, `(?m)^orders +poison +PoisonMessage +1 +\S+Z$`, got, "the parking lot's summary, from its index")
	assert.Regexp(t, `(?m)^\S+Z +orders +- +poison +PoisonMessage +\d+ +\S+$`, got, "and its list (no group: a standard queue)")
	assert.Contains(t, got, `"note": "poison"`, "the poison message, received from the parking lot")
	assert.Contains(t, got, `"id": "r1"`, "the rule added, and listed")
	assert.Regexp(t, `(?m)^orders +poison +PoisonMessage +1 +\d+ +\S+Z$`, got, "the dry run's group")
	assert.Regexp(t, `(?m)^orders +quarantined +PoisonMessage +1 +\S+Z$`, got, "the replayed message, quarantined by the rule")
}
