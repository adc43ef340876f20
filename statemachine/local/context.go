package local

import (
	"maps"
	"time"
)

// isoMillis is the context object's timestamp format, as AWS renders it
// (e.g. "2026-01-01T00:00:00.000Z").
const isoMillis = "2006-01-02T15:04:05.000Z"

// newExecutionContext builds the context object's "Execution" member, which
// is the same for every state of an execution.
func newExecutionContext(arn, name, roleARN string, input any, start time.Time) map[string]any {
	return map[string]any{
		"Id":           arn,
		"Input":        input,
		"Name":         name,
		"RoleArn":      roleARN,
		"StartTime":    start.UTC().Format(isoMillis),
		"RedriveCount": int64(0),
	}
}

// contextObject returns the context object ("$$") for the current state
// attempt, building it on first use: states whose definitions never mention
// "$$" pay nothing. Call with x.mu held.
func (x *execution) contextObject() any {
	if !x.cur.UsesContext() {
		return nil
	}
	if x.ctxObj == nil {
		x.ctxObj = map[string]any{
			"Execution": x.ctxExec,
			"State": map[string]any{
				"EnteredTime": x.enteredAt.UTC().Format(isoMillis),
				"Name":        x.cur.Name(),
				"RetryCount":  int64(x.retryCount),
			},
			"StateMachine": x.sm.ctxObj,
		}
	}
	return x.ctxObj
}

// withTaskToken returns the context object a callback task's Parameters
// see: ctxObj with "Task": {"Token": token}. A nil ctxObj (a state that
// never reads "$$") stays nil.
func withTaskToken(ctxObj any, token string) any {
	m, ok := ctxObj.(map[string]any)
	if !ok {
		return ctxObj
	}
	m = maps.Clone(m)
	m["Task"] = map[string]any{"Token": token}
	return m
}
