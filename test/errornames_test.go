package test

import (
	"encoding/json"
	"fmt"
	"go/token"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/attempt"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/room/waitroom"
	"github.com/redrive/redrive/statemachine"
)

// TestErrorNamesMatchTheStateMachines checks that every custom error name a
// state machine's Retry or Catch rules match is the name of an error type
// a task it invokes returns, and that every such error type is matched.
// The name of a Go error is taken from what aws-lambda-go reports for it
// (through the local executor's Registry, which hosts handlers with
// aws-lambda-go's own handler code), so a type renamed in Go, an error
// returned wrapped, or a name mistyped in the ASL fails here.
func TestErrorNamesMatchTheStateMachines(t *testing.T) {
	tests := []struct {
		name string
		def  statemachine.Definition
		// errs are the errors the tasks of the state machine export for
		// its rules: the Attempt's and the Queue task's (the waiting
		// room's); park exports none, and the release state machine's
		// rules match States.ALL only.
		errs []error
	}{
		{"redrive", statemachine.Redrive(), append(attempt.Errors(), &waitroom.InvalidEntry{}, &waitroom.ControllerNotStarted{}, &waitroom.TooManyFailedRuns{})},
		{"admin", statemachine.Admin(), admin.Errors()},
	}
	reg := executor.NewRegistry()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inASL, err := tt.def.ErrorNames()
			require.NoError(t, err)
			require.NotEmpty(t, inASL)
			var inGo []string
			for i, e := range tt.errs {
				typ := reflect.TypeOf(e)
				require.Equal(t, reflect.Pointer, typ.Kind(), "%T: return task errors as pointers", e)
				require.Equal(t, reflect.Struct, typ.Elem().Kind(), "%T", e)
				assert.True(t, token.IsExported(typ.Elem().Name()), "%T is not exported", e)
				inGo = append(inGo, reportedName(t, reg, fmt.Sprintf("%s-%d", tt.name, i), e))
			}
			assert.ElementsMatch(t, inASL, inGo, "ASL error names (first) vs Go error types (second)")
		})
	}
}

// reportedName is the errorType a Lambda function returning err reports.
func reportedName(t *testing.T, reg *executor.Registry, function string, err error) string {
	t.Helper()
	require.NoError(t, reg.Register(function, func() error { return err }))
	inv, ierr := reg.Invoke(t.Context(), function, nil)
	require.NoError(t, ierr)
	require.Equal(t, "Unhandled", inv.FunctionError, "%T is reported as a function error", err)
	var doc struct {
		ErrorType string `json:"errorType"`
	}
	require.NoError(t, json.Unmarshal(inv.Payload, &doc))
	return doc.ErrorType
}
