package continuer

import (
	"fmt"
	"strings"
)

// executionARN is a parsed Standard workflow execution ARN:
// arn:<partition>:states:<region>:<account>:execution:<machine>:<name>.
type executionARN struct {
	// prefix is "arn:<partition>:states:<region>:<account>".
	prefix  string
	machine string
	name    string
}

// parseExecutionARN parses arn, or says what is wrong with it.
func parseExecutionARN(arn string) (executionARN, error) {
	parts := strings.Split(arn, ":")
	if len(parts) != 8 || parts[0] != "arn" || parts[1] == "" || parts[2] != "states" ||
		parts[3] == "" || parts[4] == "" || parts[5] != "execution" || parts[6] == "" || parts[7] == "" {
		return executionARN{}, fmt.Errorf("execution ARN %q: want arn:<partition>:states:<region>:<account>:execution:<state machine>:<name>", arn)
	}
	return executionARN{prefix: strings.Join(parts[:5], ":"), machine: parts[6], name: parts[7]}, nil
}

// stateMachine is the ARN of the state machine the execution belongs to.
func (a executionARN) stateMachine() string {
	return a.prefix + ":stateMachine:" + a.machine
}

// sibling is the ARN of the execution called name of the same state
// machine.
func (a executionARN) sibling(name string) string {
	return a.prefix + ":execution:" + a.machine + ":" + name
}
