package asl

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Codes of a DefinitionError, as ValidateStateMachineDefinition names them.
const (
	codeInvalidJSON     = "INVALID_JSON_DESCRIPTION"
	codeInvalidResource = "INVALID_RESOURCE"
	codeSchema          = "SCHEMA_VALIDATION_FAILED"
)

// DefinitionError is why Parse rejects a definition: the first error it
// finds, located as ValidateStateMachineDefinition locates a diagnostic.
type DefinitionError struct {
	// Code is INVALID_JSON_DESCRIPTION for a definition that is not JSON,
	// INVALID_RESOURCE for a Task's Resource, else
	// SCHEMA_VALIDATION_FAILED.
	Code string
	// Location is a JSON Pointer to the state and field at fault, AWS's
	// /States/<StateName>/<FieldName> (e.g. /States/T/Retry/0/MaxAttempts),
	// or to a top-level field (/StartAt); "" for the whole definition.
	Location string
	// Message names the state and field and says what is wrong, e.g.
	// `state "T" field "Retry[0].MaxAttempts": must be between 0 and
	// 99999999, got -1`.
	Message string
}

// Error returns the message.
func (e *DefinitionError) Error() string { return e.Message }

// field locates a member of a definition object (a state, or the
// definition itself): its label as messages print it
// ("Retry[0].ErrorEquals") and its path below the object
// (Retry, 0, ErrorEquals). The zero field is the object itself.
type field struct {
	label string
	path  []string
}

// member is f's member name.
func (f field) member(name string) field {
	if f.label == "" {
		return field{label: name, path: []string{name}}
	}
	return field{label: f.label + "." + name, path: append(slices.Clip(f.path), name)}
}

// index is element i of the array f.
func (f field) index(i int) field {
	return field{label: fmt.Sprintf("%s[%d]", f.label, i), path: append(slices.Clip(f.path), strconv.Itoa(i))}
}

// defError is a definition error at field at of the state named state
// ("" for the definition's top level).
func defError(state string, at field, format string, args ...any) *DefinitionError {
	where, path := "definition", at.path
	if state != "" {
		where = fmt.Sprintf("state %q", state)
		path = append([]string{"States", state}, at.path...)
	}
	if at.label != "" {
		where += fmt.Sprintf(" field %q", at.label)
	}
	code := codeSchema
	if n := len(at.path); n > 0 && at.path[n-1] == "Resource" {
		code = codeInvalidResource
	}
	return &DefinitionError{Code: code, Location: pointer(path), Message: where + ": " + fmt.Sprintf(format, args...)}
}

// pointer is the JSON Pointer (RFC 6901) of path.
func pointer(path []string) string {
	escape := strings.NewReplacer("~", "~0", "/", "~1")
	var b strings.Builder
	for _, p := range path {
		b.WriteString("/" + escape.Replace(p))
	}
	return b.String()
}
