package local_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/ddbtest"
	"github.com/redrive/redrive/emulate/executor"
	"github.com/redrive/redrive/emulate/local"
	"github.com/redrive/redrive/message"
)

// t0 is the virtual clock's start in these tests.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// start assembles a stack, closed when t ends; on DDB_ENDPOINT's table
// unless it is InProcess.
func start(t *testing.T, opts local.Options) *local.Stack {
	t.Helper()
	if opts.Start.IsZero() {
		opts.Start = t0
	}
	if opts.DynamoDBEndpoint == "" && !opts.InProcess {
		opts.DynamoDBEndpoint = ddbtest.Endpoint()
	}
	s, err := local.Start(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, s.Close()) })
	return s
}

// messages returns n messages with distinct bodies.
func messages(n int) []message.Message {
	out := make([]message.Message, n)
	for i := range out {
		out[i] = message.Message{Body: fmt.Sprintf(`{"n":%d}`, i)}
	}
	return out
}

// executions returns every execution of the redrive state machine, oldest
// first (the executor's start order), each Name without the id an Express
// execution's record adds ("<name>:<id>"): what DescribeExecution and
// ListExecutions tell without a history, which Express executions do not
// keep.
func executions(t *testing.T, s *local.Stack) []executor.Execution {
	t.Helper()
	xs, err := s.Executor.ListExecutions(t.Context(), s.RedriveARN, "")
	require.NoError(t, err)
	slices.Reverse(xs)
	for i := range xs {
		xs[i].Name, _, _ = strings.Cut(xs[i].Name, ":")
	}
	return xs
}

// run drains the stack within a wall-clock bound.
func run(t *testing.T, s *local.Stack) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	require.NoError(t, s.RunUntilDrained(ctx))
}
