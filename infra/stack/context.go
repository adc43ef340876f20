package stack

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// SettingsFromContext reads Settings from a CDK context value: the object
// under "redrive" in cdk.json, or the same object as a JSON string from
// `cdk synth -c redrive='{...}'`. An unknown field is an error naming it,
// so a misspelt setting is not silently ignored; nil (no context) is the
// zero Settings, which Validate then reports on.
func SettingsFromContext(value any) (Settings, error) {
	var data []byte
	switch v := value.(type) {
	case nil:
		return Settings{}, nil
	case string:
		data = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return Settings{}, fmt.Errorf("stack: context %q: %w", ContextKey, err)
		}
		data = b
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Settings
	if err := dec.Decode(&s); err != nil {
		return Settings{}, fmt.Errorf("stack: context %q: %w", ContextKey, err)
	}
	if dec.More() {
		return Settings{}, fmt.Errorf("stack: context %q: more than one JSON value", ContextKey)
	}
	return s, nil
}

// ContextKey is the CDK context key the app reads Settings from.
const ContextKey = "redrive"
