package pace

import "fmt"

// PolicyError names one invalid Policy field.
type PolicyError struct {
	// Field is the Policy field's name.
	Field string
	// Value is its value after defaults.
	Value any
	// Problem says what it must be instead.
	Problem string
}

// Error implements error.
func (e *PolicyError) Error() string {
	return fmt.Sprintf("pace: policy %s %v: %s", e.Field, e.Value, e.Problem)
}
