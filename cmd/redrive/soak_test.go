package main

import (
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sqs"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/liveheap"
)

// envSoak sets how long TestLocalSoak runs, in wall time (e.g. 10m).
const envSoak = "REDRIVE_SOAK"

// TestLocalSoak runs redrive local at --time-scale 60 against a flaky
// consumer under steady load for REDRIVE_SOAK of wall time (an hour of
// the stack's clock per wall minute), and logs the live heap each wall
// minute: it must stay flat once the retention has begun evicting. Skipped
// unless REDRIVE_SOAK is set; the README's figure comes from it.
func TestLocalSoak(t *testing.T) {
	length, err := time.ParseDuration(os.Getenv(envSoak))
	if err != nil || length < 5*time.Minute {
		t.Skipf("%s is not a duration of 5m or more: no soak run", envSoak)
	}
	s, env := serveLocal(t, "--time-scale", "60", "--target", "flaky:0.3", "--retention", "1h")
	client := sqsClient(env)
	ctx, stop := context.WithTimeout(t.Context(), length)
	defer stop()

	const perSecond = 10 // a wall second: 600 messages an hour of the stack's clock
	go func() {
		tick := time.NewTicker(time.Second / perSecond)
		defer tick.Stop()
		for n := 0; ctx.Err() == nil; n++ {
			<-tick.C
			_, _ = client.SendMessage(ctx, &sqs.SendMessageInput{QueueUrl: aws.String(env["DLQ_URL"]),
				MessageBody: aws.String(`{"order": ` + strconv.Itoa(n) + `}`)})
		}
	}()
	var samples []int64
	sample := time.NewTicker(time.Minute)
	defer sample.Stop()
	for ctx.Err() == nil {
		select {
		case <-ctx.Done():
		case <-sample.C:
			live := liveheap.Bytes()
			samples = append(samples, live)
			p := s.Pending(t.Context())
			t.Logf("minute %d (hour %d of the stack's clock): live heap %.1f MiB, %d goroutines, %d running executions, %d queued messages",
				len(samples), len(samples), float64(live)/(1<<20), runtime.NumGoroutine(), p.Executions, p.Messages)
		}
	}
	require.GreaterOrEqual(t, len(samples), 4)
	half := len(samples) / 2
	first, second := slices.Max(samples[1:half]), slices.Max(samples[half:])
	t.Logf("soak: live heap peak %.1f MiB in the first half (after the first minute), %.1f MiB in the second",
		float64(first)/(1<<20), float64(second)/(1<<20))
	assert.LessOrEqual(t, float64(second), 1.5*float64(first), "the live heap keeps growing")
}
