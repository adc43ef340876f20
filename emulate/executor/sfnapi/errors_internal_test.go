package sfnapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/redrive/redrive/emulate/executor"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every executor error, wrapped as the executor wraps them, maps to its API
// error; anything else is an InternalFailure.
func TestWriteErrorMapsExecutorErrors(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{executor.ErrInvalidDefinition, 400, "InvalidDefinition"},
		{executor.ErrInvalidName, 400, "InvalidName"},
		{executor.ErrInvalidArn, 400, "InvalidArn"},
		{executor.ErrInvalidExecutionInput, 400, "InvalidExecutionInput"},
		{executor.ErrStateMachineDoesNotExist, 400, "StateMachineDoesNotExist"},
		{executor.ErrStateMachineExists, 400, "StateMachineAlreadyExists"},
		{executor.ErrExecutionDoesNotExist, 400, "ExecutionDoesNotExist"},
		{executor.ErrExecutionAlreadyExists, 400, "ExecutionAlreadyExists"},
		{executor.ErrInvalidToken, 400, "InvalidToken"},
		{executor.ErrTaskDoesNotExist, 400, "TaskDoesNotExist"},
		{executor.ErrTaskTimedOut, 400, "TaskTimedOut"},
		{executor.ErrInvalidOutput, 400, "InvalidOutput"},
		{errors.New("disk on fire"), 500, "InternalFailure"},
	}
	for _, tt := range tests {
		t.Run(tt.code, func(t *testing.T) {
			wrapped := fmt.Errorf("start execution %q: %w", "x", tt.err)
			w := httptest.NewRecorder()
			writeError(w, wrapped)
			assert.Equal(t, tt.status, w.Code)
			var body struct {
				Type    string `json:"__type"`
				Message string `json:"message"`
			}
			require.NoError(t, json.Unmarshal(w.Body.Bytes(), &body))
			assert.Equal(t, tt.code, body.Type)
			assert.Contains(t, body.Message, `start execution "x"`)
			assert.Equal(t, "application/x-amz-json-1.0", w.Header().Get("Content-Type"))
		})
	}
}
