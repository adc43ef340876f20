package sfnapi_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sfn"
	sfntypes "github.com/aws/aws-sdk-go-v2/service/sfn/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// listNames pages through ListExecutions pageSize at a time and returns
// the names in order, and how many pages it took.
func (v *env) listNames(t *testing.T, sm string, status sfntypes.ExecutionStatus, pageSize int32) ([]string, int) {
	t.Helper()
	var names []string
	pages := 0
	p := sfn.NewListExecutionsPaginator(v.client, &sfn.ListExecutionsInput{
		StateMachineArn: aws.String(sm), StatusFilter: status, MaxResults: pageSize,
	})
	for p.HasMorePages() {
		out, err := p.NextPage(context.Background())
		require.NoError(t, err)
		pages++
		if pageSize > 0 {
			assert.LessOrEqual(t, len(out.Executions), int(pageSize))
		}
		for _, ex := range out.Executions {
			assert.Equal(t, sm, aws.ToString(ex.StateMachineArn))
			if status != "" {
				assert.Equal(t, status, ex.Status)
			}
			names = append(names, aws.ToString(ex.Name))
		}
	}
	return names, pages
}

func TestListExecutions(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	sm := v.create(t, "cooldown", cooldownDef)
	other := v.create(t, "other", cooldownDef)
	v.start(t, other, "elsewhere", `{}`)
	arns := make([]string, 5)
	for i := range arns {
		arns[i] = v.start(t, sm, fmt.Sprintf("w-%d", i), `{}`)
	}
	for _, i := range []int{1, 3} {
		_, err := v.client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: aws.String(arns[i])})
		require.NoError(t, err)
	}

	tests := []struct {
		name      string
		status    sfntypes.ExecutionStatus
		pageSize  int32
		want      []string
		wantPages int
	}{
		{"all, newest first, in pages of two", "", 2, []string{"w-4", "w-3", "w-2", "w-1", "w-0"}, 3},
		{"all in one default page", "", 0, []string{"w-4", "w-3", "w-2", "w-1", "w-0"}, 1},
		{"exactly one full page has no next token", "", 5, []string{"w-4", "w-3", "w-2", "w-1", "w-0"}, 1},
		{"aborted only", sfntypes.ExecutionStatusAborted, 1, []string{"w-3", "w-1"}, 2},
		{"running only", sfntypes.ExecutionStatusRunning, 2, []string{"w-4", "w-2", "w-0"}, 2},
		{"none succeeded yet", sfntypes.ExecutionStatusSucceeded, 2, nil, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			names, pages := v.listNames(t, sm, tt.status, tt.pageSize)
			assert.Equal(t, tt.want, names)
			assert.Equal(t, tt.wantPages, pages)
		})
	}

	t.Run("a page boundary survives its execution finishing", func(t *testing.T) {
		first, err := v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{
			StateMachineArn: aws.String(sm), StatusFilter: sfntypes.ExecutionStatusRunning, MaxResults: 1,
		})
		require.NoError(t, err)
		require.Len(t, first.Executions, 1)
		assert.Equal(t, "w-4", aws.ToString(first.Executions[0].Name))
		_, err = v.client.StopExecution(ctx, &sfn.StopExecutionInput{ExecutionArn: first.Executions[0].ExecutionArn})
		require.NoError(t, err)
		second, err := v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{
			StateMachineArn: aws.String(sm), StatusFilter: sfntypes.ExecutionStatusRunning, MaxResults: 1, NextToken: first.NextToken,
		})
		require.NoError(t, err)
		require.Len(t, second.Executions, 1)
		assert.Equal(t, "w-2", aws.ToString(second.Executions[0].Name))
	})

	t.Run("after the executor runs", func(t *testing.T) {
		v.run(t)
		names, _ := v.listNames(t, sm, sfntypes.ExecutionStatusSucceeded, 10)
		assert.Equal(t, []string{"w-2", "w-0"}, names)
		out, err := v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(sm)})
		require.NoError(t, err)
		for _, ex := range out.Executions {
			assert.NotNil(t, ex.StopDate, "%s has ended", aws.ToString(ex.Name))
			assert.NotNil(t, ex.StartDate)
		}
	})

	t.Run("token of another listing", func(t *testing.T) {
		first, err := v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(sm), MaxResults: 1})
		require.NoError(t, err)
		require.NotNil(t, first.NextToken)
		_, err = v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{
			StateMachineArn: aws.String(sm), StatusFilter: sfntypes.ExecutionStatusFailed, NextToken: first.NextToken,
		})
		requireAPIError(t, err, "InvalidToken", true)
		_, err = v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(other), NextToken: first.NextToken})
		requireAPIError(t, err, "InvalidToken", true)
	})
}

func TestGetExecutionHistoryPages(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	sm := v.create(t, "redrive", attemptDef)
	arn := v.start(t, sm, "msg-1", `{"OK":true}`)
	otherARN := v.start(t, sm, "msg-2", `{"OK":true}`)
	v.run(t)
	full, err := v.e.History(ctx, arn)
	require.NoError(t, err)
	require.Greater(t, len(full), 3, "enough events for several pages")

	ids := func(reverse bool) []int64 {
		var got []int64
		p := sfn.NewGetExecutionHistoryPaginator(v.client, &sfn.GetExecutionHistoryInput{
			ExecutionArn: aws.String(arn), MaxResults: 3, ReverseOrder: reverse,
		})
		for p.HasMorePages() {
			out, err := p.NextPage(ctx)
			require.NoError(t, err)
			assert.LessOrEqual(t, len(out.Events), 3)
			for _, ev := range out.Events {
				got = append(got, ev.Id)
			}
		}
		return got
	}
	var want []int64
	for _, ev := range full {
		want = append(want, ev.ID)
	}
	assert.Equal(t, want, ids(false))
	slices.Reverse(want)
	assert.Equal(t, want, ids(true))

	first, err := v.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{ExecutionArn: aws.String(arn), MaxResults: 2})
	require.NoError(t, err)
	require.NotNil(t, first.NextToken)
	for name, in := range map[string]*sfn.GetExecutionHistoryInput{
		"in the other order":    {ExecutionArn: aws.String(arn), NextToken: first.NextToken, ReverseOrder: true},
		"for another execution": {ExecutionArn: aws.String(otherARN), NextToken: first.NextToken},
		"not a token":           {ExecutionArn: aws.String(arn), NextToken: aws.String("not-a-token")},
	} {
		t.Run("token "+name, func(t *testing.T) {
			_, err := v.client.GetExecutionHistory(ctx, in)
			requireAPIError(t, err, "InvalidToken", true)
		})
	}

	t.Run("without execution data", func(t *testing.T) {
		out, err := v.client.GetExecutionHistory(ctx, &sfn.GetExecutionHistoryInput{
			ExecutionArn: aws.String(arn), IncludeExecutionData: aws.Bool(false),
		})
		require.NoError(t, err)
		require.Len(t, out.Events, len(full))
		started := out.Events[0].ExecutionStartedEventDetails
		require.NotNil(t, started)
		assert.Nil(t, started.Input)
		assert.Equal(t, roleARN, aws.ToString(started.RoleArn), "metadata stays")
		for _, ev := range out.Events {
			if d := ev.StateEnteredEventDetails; d != nil {
				assert.Nil(t, d.Input)
				assert.NotEmpty(t, aws.ToString(d.Name))
			}
			if d := ev.StateExitedEventDetails; d != nil {
				assert.Nil(t, d.Output)
			}
		}
		succeeded := out.Events[len(out.Events)-1].ExecutionSucceededEventDetails
		require.NotNil(t, succeeded)
		assert.Nil(t, succeeded.Output)
	})
}

func TestListStateMachines(t *testing.T) {
	v := newEnv(t)
	ctx := context.Background()
	var want []string
	for i := range 5 {
		name := fmt.Sprintf("m-%d", i)
		v.create(t, name, cooldownDef)
		want = append(want, name)
		require.NoError(t, v.e.RunUntil(ctx, v.e.Now().Add(time.Second)), "a creation date apart")
	}
	v.create(t, "m-0", cooldownDef) // idempotent: listed once
	_, err := v.e.CreateStateMachine(ctx, "direct", cooldownDef, roleARN)
	require.NoError(t, err)
	want = append(want, "direct") // created on the executor, not through the API

	for _, tt := range []struct {
		pageSize  int32
		wantPages int
	}{{0, 1}, {2, 3}, {5, 2}} {
		t.Run(fmt.Sprintf("pages of %d", tt.pageSize), func(t *testing.T) {
			var names []string
			var created []time.Time
			pages := 0
			p := sfn.NewListStateMachinesPaginator(v.client, &sfn.ListStateMachinesInput{MaxResults: tt.pageSize})
			for p.HasMorePages() {
				out, err := p.NextPage(ctx)
				require.NoError(t, err)
				pages++
				for _, sm := range out.StateMachines {
					assert.Equal(t, "arn:aws:states:us-east-1:123456789012:stateMachine:"+aws.ToString(sm.Name), aws.ToString(sm.StateMachineArn))
					assert.Equal(t, sfntypes.StateMachineTypeStandard, sm.Type)
					names = append(names, aws.ToString(sm.Name))
					created = append(created, *sm.CreationDate)
				}
			}
			assert.Equal(t, want, names, "oldest first; every state machine of the executor")
			assert.True(t, slices.IsSortedFunc(created, time.Time.Compare))
			assert.Equal(t, tt.wantPages, pages)
		})
	}

	t.Run("token of another listing", func(t *testing.T) {
		sm := v.create(t, "lister", cooldownDef)
		v.start(t, sm, "a", `{}`)
		v.start(t, sm, "b", `{}`)
		executions, err := v.client.ListExecutions(ctx, &sfn.ListExecutionsInput{StateMachineArn: aws.String(sm), MaxResults: 1})
		require.NoError(t, err)
		require.NotNil(t, executions.NextToken)
		_, err = v.client.ListStateMachines(ctx, &sfn.ListStateMachinesInput{NextToken: executions.NextToken})
		requireAPIError(t, err, "InvalidToken", true)
	})
}
