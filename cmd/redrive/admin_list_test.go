package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/admin"
	"github.com/redrive/redrive/rules"
)

// pagedSFN is an adminAPI whose rule-list executions end as pages says,
// by the next of their input ("" for the first).
type pagedSFN struct {
	pages  map[string]sfn.DescribeExecutionOutput
	inputs []admin.Request
}

func (f *pagedSFN) StartExecution(_ context.Context, in *sfn.StartExecutionInput, _ ...func(*sfn.Options)) (*sfn.StartExecutionOutput, error) {
	var r admin.Request
	if err := json.Unmarshal([]byte(aws.ToString(in.Input)), &r); err != nil {
		return nil, err
	}
	f.inputs = append(f.inputs, r)
	return &sfn.StartExecutionOutput{ExecutionArn: aws.String(strconv.Itoa(len(f.inputs) - 1))}, nil
}

func (f *pagedSFN) DescribeExecution(_ context.Context, in *sfn.DescribeExecutionInput, _ ...func(*sfn.Options)) (*sfn.DescribeExecutionOutput, error) {
	i, err := strconv.Atoi(aws.ToString(in.ExecutionArn))
	if err != nil {
		return nil, err
	}
	out, ok := f.pages[f.inputs[i].Next]
	if !ok {
		return nil, fmt.Errorf("no page for next %q", f.inputs[i].Next)
	}
	return &out, nil
}

// succeeded is an execution that ended with output.
func succeeded(output string) sfn.DescribeExecutionOutput {
	return sfn.DescribeExecutionOutput{Status: sfntypes.ExecutionStatusSucceeded, Output: aws.String(output)}
}

// `redrive admin rule list` follows each page's next and prints the pages
// as one output, without a next; a page that fails fails the list.
func TestRuleListFollowsTheTokens(t *testing.T) {
	call := adminCall{request: admin.Request{Command: admin.CommandRuleList, Actor: "alice@box"}, stateMachineARN: testARN, timeout: time.Second}
	pages := map[string]sfn.DescribeExecutionOutput{
		"":   succeeded(`{"command":"rule-list","changed":false,"inForce":2,"rules":[{"on":"breaker","equals":"a<b","action":"hold","id":"r1","reason":"x","actor":"alice","added":"2026-01-02T15:00:00Z"}],"next":"t1"}`),
		"t1": succeeded(`{"command":"rule-list","changed":false,"inForce":2,"rules":[{"on":"breaker","equals":"c","action":"hold","id":"r2","reason":"y","actor":"bob","added":"2026-01-02T15:01:00Z"}],"audit":[{"at":"2026-01-02T15:00:00Z","op":"add","actor":"alice","reason":"x","rule":{"on":"breaker","equals":"a<b","action":"hold","id":"r1","reason":"x","actor":"alice","added":"2026-01-02T15:00:00Z"}}],"next":"t2"}`),
		"t2": succeeded(`{"command":"rule-list","changed":false,"inForce":2,"audit":[{"at":"2026-01-02T15:01:00Z","op":"add","actor":"bob","reason":"y","rule":{"on":"breaker","equals":"c","action":"hold","id":"r2","reason":"y","actor":"bob","added":"2026-01-02T15:01:00Z"}}]}`),
	}
	api := &pagedSFN{pages: pages}
	var stdout, stderr bytes.Buffer
	require.Equal(t, exitOK, execAdmin(t.Context(), api, call, &stdout, &stderr), stderr.String())
	assert.Empty(t, stderr.String())
	var nexts []string
	for _, r := range api.inputs {
		assert.Equal(t, admin.CommandRuleList, r.Command)
		nexts = append(nexts, r.Next)
	}
	assert.Equal(t, []string{"", "t1", "t2"}, nexts, "each page asked for with the next of the one before")
	var got admin.Output
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &got))
	assert.Equal(t, 2, *got.InForce)
	assert.Equal(t, []string{"r1", "r2"}, []string{got.Rules[0].ID, got.Rules[1].ID})
	require.Len(t, got.Audit, 2)
	assert.Equal(t, []string{"r1", "r2"}, []string{got.Audit[0].Rule.ID, got.Audit[1].Rule.ID})
	assert.NotContains(t, stdout.String(), `"next"`)
	assert.Contains(t, stdout.String(), "\n  \"rules\": [\n", "pretty-printed")
	assert.Contains(t, stdout.String(), `"equals": "a<b"`, "as the console shows it, not HTML-escaped")

	t.Run("a page fails", func(t *testing.T) {
		pages := map[string]sfn.DescribeExecutionOutput{"": pages[""], "t1": {Status: sfntypes.ExecutionStatusFailed, Error: aws.String("InvalidCommand"),
			Cause: aws.String(`{"errorMessage":"admin: invalid request: next: the rules changed","errorType":"InvalidCommand"}`)}}
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitFailure, execAdmin(t.Context(), &pagedSFN{pages: pages}, call, &stdout, &stderr))
		assert.Empty(t, stdout.String(), "no part of a list")
		assert.Contains(t, stderr.String(), "FAILED: InvalidCommand: admin: invalid request: next: the rules changed")
	})
	t.Run("a page gives back its next", func(t *testing.T) {
		pages := map[string]sfn.DescribeExecutionOutput{"": pages[""], "t1": succeeded(`{"command":"rule-list","next":"t1"}`)}
		var stdout, stderr bytes.Buffer
		assert.Equal(t, exitFailure, execAdmin(t.Context(), &pagedSFN{pages: pages}, call, &stdout, &stderr))
		assert.Empty(t, stdout.String())
		assert.Contains(t, stderr.String(), "the list would not end")
	})
}

// TestLocalRuleListPages adds three rules at their documented limits
// through `redrive local`: the rules and their audit trail are more than
// Step Functions takes in one state's result, so `redrive admin rule list`
// lists them over several executions and prints them all.
func TestLocalRuleListPages(t *testing.T) {
	_, env := serveLocal(t)
	h := fixedHost(env)
	reason := strings.Repeat("r", rules.MaxText)
	for n := range 3 {
		values := make([]string, rules.MaxValues)
		for i := range values {
			prefix := fmt.Sprintf("%d-%d-", n, i)
			values[i] = prefix + strings.Repeat("v", rules.MaxText-len(prefix))
		}
		_, stderr, code := runAdminCLI(t, h, "rule", "add", "--on", "attribute:tenant", "--in", strings.Join(values, ","),
			"--action", "quarantine", "--reason", reason)
		require.Equal(t, exitOK, code, stderr)
	}
	stdout, stderr, code := runAdminCLI(t, h, "rule", "list")
	require.Equal(t, exitOK, code, stderr)
	assert.Greater(t, len(stdout), 256<<10, "more than one execution's output")
	var got admin.Output
	require.NoError(t, json.Unmarshal([]byte(stdout), &got))
	assert.Equal(t, 3, *got.InForce)
	require.Len(t, got.Rules, 3)
	require.Len(t, got.Audit, 3)
	for i, id := range []string{"r1", "r2", "r3"} {
		assert.Equal(t, id, got.Rules[i].ID)
		assert.Equal(t, id, got.Audit[i].Rule.ID)
	}
	executions, err := sfnClient(env).ListExecutions(t.Context(), &sfn.ListExecutionsInput{StateMachineArn: aws.String(env[envAdminStateMachine])})
	require.NoError(t, err)
	assert.Greater(t, len(executions.Executions), 3+1, "three adds, and a list in pages")
}
