package sfnapi

import (
	"context"
	"unicode/utf8"

	"github.com/redrive/redrive/emulate/asl"
)

// maxDiagnostics is the largest maxResults of
// ValidateStateMachineDefinition, and its default.
const maxDiagnostics = 100

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
// CreateStateMachine does (asl.Validate): FAIL means this API would not
// create it. Validation stops at the first error, so a FAIL has one ERROR
// diagnostic (never truncated), with asl's code, message and location;
// there are no warnings. Validating creates nothing.
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
	derr := asl.Validate(in.Definition)
	if derr == nil {
		return validateStateMachineDefinitionOutput{Result: "OK", Diagnostics: []diagnostic{}}, nil
	}
	return validateStateMachineDefinitionOutput{Result: "FAIL", Diagnostics: []diagnostic{{
		Severity: "ERROR", Code: derr.Code, Message: derr.Message, Location: derr.Location,
	}}}, nil
}
