package executor

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/redrive/redrive/emulate/asl"
)

// validateName checks a state machine or execution name against Step
// Functions' rules: 1-80 characters, no whitespace, brackets, wildcards,
// special characters or control characters.
func validateName(kind, name string) error {
	if name == "" {
		return fmt.Errorf("%w: %s name is empty", ErrInvalidName, kind)
	}
	if !utf8.ValidString(name) {
		return fmt.Errorf("%w: %s name %q is not valid UTF-8", ErrInvalidName, kind, name)
	}
	if n := utf8.RuneCountInString(name); n > asl.MaxNameLength {
		return fmt.Errorf("%w: %s name %q is %d characters, over the %d-character limit", ErrInvalidName, kind, name, n, asl.MaxNameLength)
	}
	for _, r := range name {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == 0x7f || (r >= 0x80 && r <= 0x9f) || strings.ContainsRune(`<>{}[]?*"#%\^|~`+"`"+`$&,;:/`, r) {
			return fmt.Errorf("%w: %s name %q contains %q, which is not allowed", ErrInvalidName, kind, name, r)
		}
	}
	return nil
}

// arnPrefix returns "arn:aws:states:<region>:<account>:".
func (e *Executor) arnPrefix() string {
	return "arn:aws:states:" + e.opts.Region + ":" + e.opts.Account + ":"
}

// stateMachineARN returns the ARN of the state machine called name.
func (e *Executor) stateMachineARN(name string) string {
	return e.arnPrefix() + "stateMachine:" + name
}

// parseARN checks that arn is a Step Functions ARN of resource type kind
// ("stateMachine" or "execution") and returns its resource name parts (one
// for a state machine, two for an execution). It does not check the region
// or account: an ARN for another account is well formed but does not exist.
func parseARN(arn, kind string) ([]string, error) {
	parts := strings.Split(arn, ":")
	want := map[string]int{"stateMachine": 7, "execution": 8, "express": 9}[kind]
	if len(parts) != want || parts[0] != "arn" || !strings.HasPrefix(parts[1], "aws") ||
		parts[2] != "states" || parts[3] == "" || parts[4] == "" || parts[5] != kind {
		shape := map[string]string{"stateMachine": "stateMachine:<name>", "execution": "execution:<stateMachineName>:<name>",
			"express": "express:<stateMachineName>:<name>:<id>"}[kind]
		return nil, fmt.Errorf("%w: %q is not a %s ARN (arn:aws:states:<region>:<account>:%s)", ErrInvalidArn, arn, kind, shape)
	}
	names := parts[6:]
	for _, n := range names {
		if n == "" {
			return nil, fmt.Errorf("%w: %q has an empty name", ErrInvalidArn, arn)
		}
	}
	return names, nil
}
