package sim

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/redrive/redrive/emulate/executor"
)

// holdDefinition waits $.wait seconds, then succeeds.
const holdDefinition = `{"StartAt":"Hold","States":{"Hold":{"Type":"Wait","SecondsPath":"$.wait","Next":"Done"},"Done":{"Type":"Succeed"}}}`

// pickFrom runs n executions of holdDefinition, started a second apart,
// each waiting wait(i) seconds, on an executor that keeps keep finished
// histories and records running ones (0: all) and forgets an execution
// retention after it stopped (0: never), with a journeyPicker
// watching (told of keep unless blind, so that it reads nothing before
// the end); executions named "-parked" count as parked. It returns the
// picker's journeys and how many histories it read.
func pickFrom(t *testing.T, n, keep, running int, retention time.Duration, blind bool, wait func(i int) int) ([]Journey, int) {
	t.Helper()
	ctx := context.Background()
	p := newJourneyPicker(keep, retention)
	if blind {
		p = newJourneyPicker(0, 0)
	}
	exec := executor.New(executor.Options{Start: Epoch, FinishedHistories: keep, RunningHistories: running, Retention: retention, Compact: true,
		Finished: func(x executor.Execution) {
			outcome := journeyDelivered
			if strings.HasSuffix(x.Name, "-parked") {
				outcome = journeyParked
			}
			p.finished(x, outcome)
		}})
	defer exec.Close()
	p.attach(exec)
	p.setFirst(func(name string) bool { return strings.HasPrefix(name, "x-0000") })
	sm, err := exec.CreateStateMachine(ctx, "hold", holdDefinition, "arn:aws:iam::123456789012:role/hold")
	require.NoError(t, err)
	for i := range n {
		name := fmt.Sprintf("x-%04d", i)
		if i%10 == 5 {
			name += "-parked"
		}
		exec.At(Epoch.Add(time.Duration(i)*time.Second), func(ctx context.Context) {
			_, err := exec.StartExecution(ctx, sm, name, fmt.Sprintf(`{"wait":%d}`, wait(i)))
			assert.NoError(t, err)
		})
	}
	require.NoError(t, exec.Run(ctx))
	js, err := p.journeys(ctx, func(name string) string { return "id-" + name })
	require.NoError(t, err)
	return js, p.reads
}

func whys(js []Journey) map[string]string {
	out := map[string]string{}
	for _, j := range js {
		out[j.Execution] = j.Why
	}
	return out
}

func TestJourneyPickerReadsHistoriesBeforeTheyAreEvicted(t *testing.T) {
	// 2,000 executions, the executor keeping 10 histories, or keeping
	// every history but forgetting a whole execution 30s after it
	// stopped: the first one's is read before it goes, not at the end;
	// the longest (x-1234) ends last but one; of the parked ones, every
	// tenth from x-0005, x-0055 is the first to wait longest (66s).
	for _, tt := range []struct {
		name      string
		keep      int
		retention time.Duration
	}{{"by count", 10, 0}, {"by age", 0, 30 * time.Second}} {
		t.Run(tt.name, func(t *testing.T) {
			js, reads := pickFrom(t, 2000, tt.keep, 0, tt.retention, false, func(i int) int {
				if i == 1234 {
					return 1000
				}
				return 60 + i%7
			})
			assert.Equal(t, map[string]string{
				"x-0000":        "the first message to arrive",
				"x-1234":        "the delivered message that took longest",
				"x-0055-parked": "the parked message that took longest",
			}, whys(js))
			assert.LessOrEqual(t, reads, 10, "a handful of histories read, not one per execution")

			j := js[0]
			assert.Equal(t, "id-x-0000", j.Message)
			assert.Equal(t, "delivered", j.Outcome)
			assert.Equal(t, []Step{
				{At: 0, Event: "execution started"},
				{At: 0, State: "Hold", Event: "entered"},
				{At: 60 * time.Second, State: "Hold", Event: "left", Detail: "after 1m0s"},
				{At: 60 * time.Second, State: "Done", Event: "entered"},
				{At: 60 * time.Second, Event: "execution succeeded"},
			}, j.Steps)
		})
	}
}

func TestJourneyPickerPassesOverHistoriesNotRecorded(t *testing.T) {
	// Only 5 executions record their history at once, so the longest
	// (x-0900, started while 60 others ran) has none: the longest one
	// read, the first's, stands for it. The parked ones all take 60s:
	// the first of them whose history was recorded is shown.
	js, reads := pickFrom(t, 1000, 10, 5, 0, false, func(i int) int {
		switch i {
		case 0:
			return 100
		case 900:
			return 1000
		}
		return 60
	})
	assert.Equal(t, map[string]string{
		"x-0000":        "the first message to arrive; the delivered message that took longest",
		"x-0065-parked": "the parked message that took longest",
	}, whys(js), "the parked executions that started while 5 others recorded are passed over")
	assert.LessOrEqual(t, reads, 10)
}

func TestJourneyPickerFallsBackOnTheLastOnes(t *testing.T) {
	// Reading nothing before the end, the picker finds the histories it
	// preferred evicted, and shows the last message delivered and the
	// last parked instead (the executor keeps the last 10): x-0097 ends
	// last, at 97+60+6 s. The first message's is gone.
	js, reads := pickFrom(t, 100, 10, 0, 0, true, func(i int) int { return 60 + i%7 })
	assert.Equal(t, map[string]string{
		"x-0097":        "the last message delivered",
		"x-0095-parked": "the last message parked",
	}, whys(js))
	assert.Equal(t, 3+2, reads, "the three preferred, then the two fallbacks")
}

func TestJourneyPickerWithoutExecutions(t *testing.T) {
	p := newJourneyPicker(keptHistories, 0)
	js, err := p.journeys(context.Background(), func(string) string { return "" })
	require.NoError(t, err)
	assert.Empty(t, js)
}
