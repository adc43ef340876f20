package sqstest_test

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/aws/aws-sdk-go-v2/service/sqs/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/sqslocal/sqstest"
)

func TestCreateQueueIsUniqueAndDeletedAtCleanup(t *testing.T) {
	client, backend := sqstest.Client(t)
	t.Logf("backend %s", backend)
	var queues []sqstest.Queue
	t.Run("uses two queues", func(t *testing.T) {
		for range 2 {
			q := sqstest.CreateQueue(t, client, map[string]string{"VisibilityTimeout": "5"})
			assert.True(t, strings.HasPrefix(q.Name, sqstest.QueuePrefix), q.Name)
			assert.True(t, strings.HasSuffix(q.URL, "/"+q.Name), q.URL)
			assert.True(t, strings.HasSuffix(q.ARN, ":"+q.Name), q.ARN)
			_, err := client.SendMessage(t.Context(), &sqs.SendMessageInput{QueueUrl: aws.String(q.URL), MessageBody: aws.String("x")})
			require.NoError(t, err, "queue %s is usable", q.Name)
			queues = append(queues, q)
		}
	})
	require.Len(t, queues, 2)
	assert.NotEqual(t, queues[0].Name, queues[1].Name)
	for _, q := range queues {
		_, err := client.GetQueueUrl(t.Context(), &sqs.GetQueueUrlInput{QueueName: aws.String(q.Name)})
		assert.ErrorAs(t, err, new(*types.QueueDoesNotExist), q.Name)
	}
}

func TestClientNamesItsBackend(t *testing.T) {
	_, backend := sqstest.Client(t)
	if endpoint := os.Getenv(sqstest.EndpointEnv); endpoint != "" {
		assert.Equal(t, sqstest.EndpointEnv+"="+endpoint, backend)
		return
	}
	assert.Equal(t, sqstest.BackendSQSLocal, backend)
}

func TestClockAfterFiresWhenAdvanced(t *testing.T) {
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	c := sqstest.NewClock(start)
	late := c.After(2 * time.Second)
	soon := c.After(time.Second)
	assert.Equal(t, 2, c.Timers())

	c.Advance(999 * time.Millisecond)
	assertPending(t, soon)
	c.Advance(time.Millisecond)
	assert.Equal(t, start.Add(time.Second), <-soon)
	assertPending(t, late)
	assert.Equal(t, 1, c.Timers())

	c.Advance(time.Hour)
	assert.Equal(t, start.Add(time.Hour+time.Second), <-late, "fires with the time it was advanced to")
	assert.Equal(t, 0, c.Timers())
	assert.Equal(t, start.Add(time.Hour+time.Second), c.Now())

	now := c.After(0)
	assert.Equal(t, c.Now(), <-now, "a non-positive wait fires at once")
}

// assertPending asserts that c has not fired.
func assertPending(t *testing.T, c <-chan time.Time) {
	t.Helper()
	select {
	case got := <-c:
		t.Errorf("fired early, at %v", got)
	default:
	}
}

func TestClockWaitForTimers(t *testing.T) {
	c := sqstest.NewClock(time.Unix(0, 0))
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		done <- c.WaitForTimers(ctx, 2)
	}()
	c.After(time.Second)
	c.After(time.Second)
	require.NoError(t, <-done)

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := c.WaitForTimers(ctx, 3)
	require.ErrorIs(t, err, context.Canceled)
	assert.Contains(t, err.Error(), "have 2")
}
