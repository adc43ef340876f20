package sfnapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/redrive/redrive/statemachine/local"
)

// maxDiagnostics is the largest maxResults of
// ValidateStateMachineDefinition, and its default.
const maxDiagnostics = 100

// listField is a field inside a list member as the executor names it in
// its definition errors: "Retry[0].ErrorEquals", "Choices[1]".
var listField = regexp.MustCompile(`^(\w+)\[(\d+)\](?:\.(.+))?$`)

type validateStateMachineDefinitionInput struct {
	Definition string `json:"definition"`
	Type       string `json:"type"`
	Severity   string `json:"severity"`
	MaxResults int32  `json:"maxResults"`
}

type validateStateMachineDefinitionOutput struct {
	Result      string       `json:"result"`
	Diagnostics []diagnostic `json:"diagnostics"`
	Truncated   bool         `json:"truncated"`
}

// diagnostic is the API's ValidateStateMachineDefinitionDiagnostic.
type diagnostic struct {
	Severity string `json:"severity"`
	Code     string `json:"code"`
	Message  string `json:"message"`
	Location string `json:"location,omitempty"`
}

// validateStateMachineDefinition checks a definition exactly as
// CreateStateMachine does: the executor loads it, and FAIL means this
// API would not create it. The executor stops at the first error, so a
// FAIL has one ERROR diagnostic (never truncated), and it has no
// warnings. It validates only while creating a state machine, so
// validation creates one on a scratch executor, leaving the served one
// untouched.
func (s *server) validateStateMachineDefinition(ctx context.Context, in *validateStateMachineDefinitionInput) (validateStateMachineDefinitionOutput, error) {
	if err := required("definition", in.Definition); err != nil {
		return validateStateMachineDefinitionOutput{}, err
	}
	if err := atMost("definition", utf8.RuneCountInString(in.Definition), maxDefinitionLength); err != nil {
		return validateStateMachineDefinitionOutput{}, err
	}
	if err := checkType(in.Type); err != nil {
		return validateStateMachineDefinitionOutput{}, err
	}
	switch in.Severity {
	case "", "ERROR", "WARNING":
	default:
		return validateStateMachineDefinitionOutput{}, validation("severity", "Member must satisfy enum value set: [ERROR, WARNING]")
	}
	if err := between("maxResults", int(in.MaxResults), 0, maxDiagnostics); err != nil {
		return validateStateMachineDefinitionOutput{}, err
	}
	_, err := local.New(local.Options{}).CreateStateMachine(ctx, "validate", in.Definition, "")
	switch {
	case err == nil:
		return validateStateMachineDefinitionOutput{Result: "OK", Diagnostics: []diagnostic{}}, nil
	case errors.Is(err, local.ErrInvalidDefinition):
		return validateStateMachineDefinitionOutput{Result: "FAIL", Diagnostics: []diagnostic{diagnose(err, in.Definition)}}, nil
	}
	return validateStateMachineDefinitionOutput{}, fmt.Errorf("validate definition: %w", err)
}

// diagnose is the ERROR diagnostic for the executor's error loading
// definition. Its message is the executor's; its location is the state
// and field the error names (`state "X" field "Y": ...`) as a JSON Pointer
// into the definition, AWS's documented /States/<StateName>/<FieldName>;
// its code is INVALID_JSON_DESCRIPTION for a definition that is not JSON,
// INVALID_RESOURCE for a Task's Resource, else SCHEMA_VALIDATION_FAILED.
func diagnose(err error, definition string) diagnostic {
	msg := strings.TrimPrefix(err.Error(), local.ErrInvalidDefinition.Error()+": ")
	path := errorPath(msg)
	d := diagnostic{Severity: "ERROR", Code: "SCHEMA_VALIDATION_FAILED", Message: msg}
	switch {
	case !json.Valid([]byte(definition)):
		d.Code = "INVALID_JSON_DESCRIPTION"
	case len(path) > 0 && path[len(path)-1] == "Resource":
		d.Code = "INVALID_RESOURCE"
	}
	escape := strings.NewReplacer("~", "~0", "/", "~1")
	for _, p := range path {
		d.Location += "/" + escape.Replace(p)
	}
	return d
}

// errorPath is the path, from the definition's root, of the state and
// field a definition error message begins with: `state "X" field
// "Retry[0].ErrorEquals": ...` is States, X, Retry, 0, ErrorEquals;
// `definition field "StartAt": ...` is StartAt; nil when the message
// names neither.
func errorPath(msg string) []string {
	var path []string
	rest, ok := strings.CutPrefix(msg, "definition")
	if name, after, isState := cutQuoted(msg, "state "); isState {
		path, rest, ok = []string{"States", name}, after, true
	}
	if !ok {
		return nil
	}
	field, _, isField := cutQuoted(rest, " field ")
	if !isField {
		return path
	}
	m := listField.FindStringSubmatch(field)
	if m == nil {
		return append(path, field)
	}
	path = append(path, m[1], m[2])
	if m[3] != "" {
		path = append(path, m[3])
	}
	return path
}

// cutQuoted cuts prefix and then a Go-quoted string (as %q writes it) off
// the front of s, and returns the string unquoted and the rest of s.
func cutQuoted(s, prefix string) (unquoted, rest string, ok bool) {
	s, ok = strings.CutPrefix(s, prefix)
	if !ok {
		return "", "", false
	}
	q, err := strconv.QuotedPrefix(s)
	if err != nil {
		return "", "", false
	}
	unquoted, err = strconv.Unquote(q)
	return unquoted, s[len(q):], err == nil
}
