package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestREADMEJSONExampleIsTheRecordedRun holds the -json excerpt of
// README.md to the run it quotes, docs/figures/large-payloads.json: every
// value the excerpt shows is the recorded one (make figures records it
// again; then copy the changed values).
func TestREADMEJSONExampleIsTheRecordedRun(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	require.NoError(t, err)
	_, block, ok := strings.Cut(string(readme), "```\n{\n  \"version\"")
	require.True(t, ok, "README.md has the -json excerpt")
	block, _, ok = strings.Cut(`{"version"`+block, "```")
	require.True(t, ok)
	var lines []string
	for line := range strings.Lines(block) {
		line, _, _ = strings.Cut(line, "//")
		if t := strings.TrimSpace(line); t != "..." && t != "...," {
			lines = append(lines, line)
		}
	}
	text := regexp.MustCompile(`,(\s*[}\]])`).ReplaceAllString(strings.Join(lines, "\n"), "$1")
	var excerpt map[string]any
	require.NoError(t, json.Unmarshal([]byte(text), &excerpt), "the excerpt, without its comments and trims:\n%s", text)

	recordedJSON, err := os.ReadFile(filepath.Join("..", "..", "docs", "figures", "large-payloads.json"))
	require.NoError(t, err)
	var recorded map[string]any
	require.NoError(t, json.Unmarshal(recordedJSON, &recorded))
	assertSubset(t, "", excerpt, recorded)
}

// assertSubset checks that every value of part is whole's at the same
// path: part's maps may leave keys out, its arrays elements at the end.
func assertSubset(t *testing.T, path string, part, whole any) {
	t.Helper()
	switch p := part.(type) {
	case map[string]any:
		w, ok := whole.(map[string]any)
		if !assert.True(t, ok, "%s: an object in the excerpt, %v recorded", path, whole) {
			return
		}
		for k, v := range p {
			assertSubset(t, path+"."+k, v, w[k])
		}
	case []any:
		w, ok := whole.([]any)
		if !assert.True(t, ok && len(p) <= len(w), "%s: an array of %d in the excerpt, %v recorded", path, len(p), whole) {
			return
		}
		for i, v := range p {
			assertSubset(t, path+"["+string(rune('0'+i))+"]", v, w[i])
		}
	default:
		assert.Equal(t, whole, part, "%s: the excerpt shows %v, the run recorded %v", path, part, whole)
	}
}
