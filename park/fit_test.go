package park

import (
	"strings"
	"testing"
	"time"

	"github.com/redrive/redrive/message"
)

// BenchmarkFit measures preparing a message for the parking lot: a
// typical one that fits at once, and the worst case, a message at SQS's
// 1 MiB limit for which every shrink step is tried before the Record goes
// to the log.
func BenchmarkFit(b *testing.B) {
	history := make([]message.Failure, message.MaxHistory)
	for i := range history {
		history[i] = message.Failure{At: time.Unix(int64(i), 0), Try: i + 1, Outcome: message.OutcomeTransient, ErrorType: "Timeout", Message: strings.Repeat("m", message.MaxFailureMessage)}
	}
	rec := Record{
		Lineage: message.Lineage{OriginID: "o-1", Attempt: 2, History: history},
		Reason:  "task failed: States.Timeout",
		Failure: &message.TaskFailure{Error: "States.Timeout", Cause: strings.Repeat("c", 32<<10)},
	}
	tests := []struct {
		name string
		body int
	}{
		{"fits", 2 << 10},
		{"at the limit", DefaultMaxMessageSize},
	}
	for _, tt := range tests {
		b.Run(tt.name, func(b *testing.B) {
			msg := message.Message{ID: "m-1", Body: strings.Repeat("b", tt.body)}
			for b.Loop() {
				if _, _, _, _, err := fit(msg, rec, DefaultMaxMessageSize); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
