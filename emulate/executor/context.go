package executor

import (
	"maps"
	"strings"
)

// isoMillis is the context object's timestamp format, as AWS renders it
// (e.g. "2026-01-01T00:00:00.000Z").
const isoMillis = "2006-01-02T15:04:05.000Z"

// readsExecutionInput reports whether a definition may read the
// execution's input through the context object: some "$$" that is not a
// path to another member ($$.Task.Token, $$.Execution.Id, ...). When none
// does, executions leave the input out of their context object rather
// than hold a second copy of it while they run.
func readsExecutionInput(definition string) bool {
	for rest := definition; ; {
		i := strings.Index(rest, "$$")
		if i < 0 {
			return false
		}
		rest = rest[i+2:]
		after, execution := strings.CutPrefix(rest, ".Execution")
		if !execution {
			after = rest
		}
		if name := memberName(after); name != "" && (!execution || name != "Input") {
			continue
		}
		return true
	}
}

// memberName is the member a path continues with, ".Name...", or "".
func memberName(path string) string {
	rest, ok := strings.CutPrefix(path, ".")
	if !ok {
		return ""
	}
	end := strings.IndexFunc(rest, func(r rune) bool {
		return !(r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if end < 0 {
		end = len(rest)
	}
	return rest[:end]
}

// executionContext builds the context object's "Execution" member, the
// same for every state of the execution; it is built for each state that
// reads "$$" rather than kept, as a million executions may wait at once.
func (x *execution) executionContext() map[string]any {
	return map[string]any{
		"Id":           x.arn(),
		"Input":        x.ctxInput,
		"Name":         x.name(),
		"RoleArn":      x.sm.RoleARN,
		"StartTime":    clockTime(x.start).Format(isoMillis),
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
			"Execution": x.executionContext(),
			"State": map[string]any{
				"EnteredTime": clockTime(x.enteredAt).Format(isoMillis),
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

// name is the execution's name: its record's, but for an Express
// execution without the id that makes the record's unique.
func (x *execution) name() string {
	if x.sm.Type == Express {
		name, _, _ := strings.Cut(x.rec.name, ":")
		return name
	}
	return x.rec.name
}
