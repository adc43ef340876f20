package sfnapi

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/redrive/redrive/statemachine/local"
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
		{local.ErrInvalidDefinition, 400, "InvalidDefinition"},
		{local.ErrInvalidName, 400, "InvalidName"},
		{local.ErrInvalidArn, 400, "InvalidArn"},
		{local.ErrInvalidExecutionInput, 400, "InvalidExecutionInput"},
		{local.ErrStateMachineDoesNotExist, 400, "StateMachineDoesNotExist"},
		{local.ErrStateMachineExists, 400, "StateMachineAlreadyExists"},
		{local.ErrExecutionDoesNotExist, 400, "ExecutionDoesNotExist"},
		{local.ErrExecutionAlreadyExists, 400, "ExecutionAlreadyExists"},
		{local.ErrInvalidToken, 400, "InvalidToken"},
		{local.ErrTaskDoesNotExist, 400, "TaskDoesNotExist"},
		{local.ErrTaskTimedOut, 400, "TaskTimedOut"},
		{local.ErrInvalidOutput, 400, "InvalidOutput"},
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
