package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// stackNameKey is the context key infra/main.go reads the stack name from.
const stackNameKey = "stackName"

// cdkJSON is the part of a cdk.json file this app uses; decoding one with
// unknown fields disallowed catches settings outside "context".
type cdkJSON struct {
	App     string          `json:"app"`
	Watch   json.RawMessage `json:"watch,omitempty"`
	Context map[string]any  `json:"context"`
}

// decodeCDKJSON decodes a cdk.json document and its context the way the
// app reads them: "redrive" through SettingsFromContext, "stackName" as a
// string, and no other context key. It returns the "app" command and the
// settings, with BuildDir pointed at the test's placeholder build when
// unset, ready to Validate.
func decodeCDKJSON(doc []byte) (string, Settings, error) {
	dec := json.NewDecoder(bytes.NewReader(doc))
	dec.DisallowUnknownFields()
	var file cdkJSON
	if err := dec.Decode(&file); err != nil {
		return "", Settings{}, err
	}
	if _, ok := file.Context[ContextKey]; !ok {
		return "", Settings{}, fmt.Errorf(`no "context" object holding %q`, ContextKey)
	}
	var s Settings
	for key, value := range file.Context {
		switch key {
		case ContextKey:
			var err error
			if s, err = SettingsFromContext(value); err != nil {
				return "", Settings{}, err
			}
		case stackNameKey:
			if name, ok := value.(string); !ok || name == "" {
				return "", Settings{}, fmt.Errorf("context %q: want a non-empty string, got %v", key, value)
			}
		default:
			return "", Settings{}, fmt.Errorf("unknown context key %q", key)
		}
	}
	if s.BuildDir == "" {
		s.BuildDir = buildDir
	}
	return file.App, s, nil
}

// jsonBlock is one ```json block of a Markdown file.
type jsonBlock struct {
	line int    // the opening fence's line, 1-based
	lead string // the paragraph just before the fence
	body string
}

// jsonBlocks returns the ```json blocks of a Markdown document.
func jsonBlocks(doc string) []jsonBlock {
	var blocks []jsonBlock
	lines := strings.Split(doc, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```json" {
			continue
		}
		b := jsonBlock{line: i + 1}
		start := i
		for start > 0 && strings.TrimSpace(lines[start-1]) == "" {
			start--
		}
		end := start
		for start > 0 && strings.TrimSpace(lines[start-1]) != "" {
			start--
		}
		b.lead = strings.Join(lines[start:end], "\n")
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.body += lines[i] + "\n"
		}
		blocks = append(blocks, b)
	}
	return blocks
}

// TestCDKJSON checks infra/cdk.json and every cdk.json example in the
// READMEs: a ```json block whose lead-in paragraph names cdk.json must be a
// whole cdk.json the app accepts (the "context" wrapper, known keys, valid
// settings), with the real file's "app" command. A ```json block with
// "redrive" or "context" at the top that is not so labelled fails too, so
// a settings example cannot escape the check.
func TestCDKJSON(t *testing.T) {
	doc, err := os.ReadFile("../cdk.json")
	require.NoError(t, err)
	app, s, err := decodeCDKJSON(doc)
	require.NoError(t, err, "infra/cdk.json")
	require.NotEmpty(t, app, "infra/cdk.json: app")
	require.NoError(t, s.Validate(), "infra/cdk.json")

	for _, path := range []string{"../../README.md", "../README.md"} {
		text, err := os.ReadFile(path)
		require.NoError(t, err)
		snippets := 0
		for _, b := range jsonBlocks(string(text)) {
			where := fmt.Sprintf("%s:%d", path, b.line)
			if !strings.Contains(b.lead, "cdk.json") {
				var top map[string]json.RawMessage
				if json.Unmarshal([]byte(b.body), &top) != nil {
					continue
				}
				for _, key := range []string{"context", ContextKey} {
					if _, ok := top[key]; ok {
						t.Errorf("%s: %q in a ```json block whose lead-in does not name cdk.json", where, key)
					}
				}
				continue
			}
			snippets++
			gotApp, s, err := decodeCDKJSON([]byte(b.body))
			if !assert.NoError(t, err, where) {
				continue
			}
			assert.Equal(t, app, gotApp, "%s: app", where)
			assert.NoError(t, s.Validate(), where)
		}
		assert.NotZero(t, snippets, "%s: no cdk.json example (a ```json block after a paragraph naming cdk.json)", path)
	}
}
